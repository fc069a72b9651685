"""The data dir's own files: the owner-only folder, its secrets, and the lock that keeps one host per dir.

Shared by the host (`gates.host`), its MCP front (`gates.mcp`, which reads the token), the
player's client (`gates.player`, which reads the player key) and the command line. Importing it
loads only the standard library, `filelock` and the contract.
"""

from __future__ import annotations

from ._lock import LOCK_FILE, DataDirInUseError, DataDirLock
from ._secrets import new_secret, owner_only_dir, owner_only_file, read_secret, secret, write_secret

__all__ = [
    "LOCK_FILE",
    "DataDirInUseError",
    "DataDirLock",
    "new_secret",
    "owner_only_dir",
    "owner_only_file",
    "read_secret",
    "secret",
    "write_secret",
]
