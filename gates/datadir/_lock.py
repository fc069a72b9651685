"""One data dir, one host: a lock the host holds on `DATA_DIR/host.lock` while it runs.

Two hosts on one data dir would share the player's decisions, the audit log and the token, and
each would think it alone decides. The lock is `filelock`'s: the same on Windows and POSIX, and
released by the operating system when its holder dies, so a lock left by a killed host is taken
over at once. A second host is refused with a message that names the first (from the runtime
file: its pid and where it runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from filelock import FileLock, Timeout

from gates.contract import XivMcpError, read_runtime

__all__ = ["LOCK_FILE", "DataDirInUseError", "DataDirLock"]

LOCK_FILE: Final = "host.lock"


class DataDirInUseError(XivMcpError):
    """Raised when another host holds the data dir's lock: one data dir, one host."""


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._lock = FileLock(data_dir / LOCK_FILE)

    def acquire(self) -> None:
        """Take the lock now, or raise `DataDirInUseError` naming the host that holds it."""
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise DataDirInUseError(self._holder()) from None

    def release(self) -> None:
        self._lock.release(force=True)

    def _holder(self) -> str:
        running = read_runtime(self.data_dir)
        where = ""
        if running is not None:
            mcp = f", MCP {running.mcp}" if running.mcp else ""
            where = f" (pid {running.pid}, bus {running.bus}{mcp})"
        return (
            f"Another XIV MCP host{where} already uses the data dir {self.data_dir}: one data dir, one host. "
            "Stop that one first (`xivmcp status` shows it), or give this one its own --data-dir."
        )
