"""A plugin that ends at start, for the test of `xivmcp check`'s exit code 2."""

import sys

sys.exit("crashing_plugin: its settings file is missing; nothing was registered.")
