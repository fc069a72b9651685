"""Owner-only files of the host (B8): the data dir (0700), its two secrets and the audit log (0600).

* the player key (`player.key`): who may act as the player on the `XivMcp.Player` gate (proven by
  challenge and response, never sent);
* the MCP token (`token`): the bearer token AI apps send to the MCP endpoint.

Both secrets are made on the host's first start and kept across restarts. A file or folder found
with wider permissions (group or others may read it) is tightened, and the host says so once; on
Windows, where POSIX modes do not apply, files inherit the user profile's access rules.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Final

__all__ = ["new_secret", "owner_only_dir", "owner_only_file", "read_secret", "secret", "write_secret"]

log = logging.getLogger("gates.host")

_POSIX: Final = os.name == "posix"
_OTHERS: Final = stat.S_IRWXG | stat.S_IRWXO


def owner_only_dir(path: Path) -> Path:
    """Create `path` (mode 0700), or tighten an existing one that group or others can enter."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    _tighten(path, 0o700, "folder")
    return path


def owner_only_file(path: Path) -> None:
    """Tighten an existing file that group or others can read or write to 0600."""
    if path.exists():
        _tighten(path, 0o600, "file")


def _tighten(path: Path, mode: int, what: str) -> None:
    if not _POSIX:
        return
    current = stat.S_IMODE(path.stat().st_mode)
    if current & _OTHERS:
        os.chmod(path, mode)
        log.warning("%s %s was open to other users (mode %o); made it owner-only (%o).", what, path, current, mode)


def write_secret(path: Path, value: str) -> None:
    """Write a secret readable by this user only (0600 from the start, not chmod-ed after)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value)
    if _POSIX:
        os.chmod(path, 0o600)  # the file may have existed with wider bits


def new_secret(path: Path) -> str:
    """Replace the secret at `path` with a new one, whole: a reader sees the old value or the new,
    never half of one (a temporary file, 0600 from the start, then a rename)."""
    value = secrets.token_urlsafe(32)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    write_secret(temporary, value)
    os.replace(temporary, path)
    return value


def read_secret(path: Path, what: str) -> str:
    """The secret at `path`; FileNotFoundError saying what to do if the host never made it."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        data_dir = path.parent
        raise FileNotFoundError(
            f"No {what} at {path}: start the host once with this data dir (`xivmcp up --data-dir {data_dir}`)."
        ) from None


def secret(path: Path, what: str) -> str:
    """The secret at `path` (tightened to 0600 if it was wider), made on first use."""
    if path.exists():
        owner_only_file(path)
        value = read_secret(path, what)
        if value:
            return value
    value = secrets.token_urlsafe(32)
    write_secret(path, value)
    return value
