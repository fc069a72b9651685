"""A plugin that looks into the data dir `xivmcp check` gives it, says what it found, and ends."""

import os
import sys
from pathlib import Path

data_dir = Path(os.environ["XIVMCP_DATA_DIR"])
found = sorted(p.name for p in data_dir.iterdir()) if data_dir.is_dir() else []
sys.exit(f"peeking_plugin: the data dir holds {found}.")
