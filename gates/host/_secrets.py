"""The host's two secrets, each a file in the data dir readable by this user only (mode 0600).

* the player key (`player.key`): who may act as the player on the `XivMcp.Player` gate;
* the MCP token (`token`): the bearer token AI apps send to the MCP endpoint.

Both are made on the host's first start and kept across restarts.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["read_secret", "secret", "write_secret"]


def write_secret(path: Path, value: str) -> None:
    """Write a secret readable by this user only (0600 from the start, not chmod-ed after)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value)
    if os.name == "posix":
        os.chmod(path, 0o600)  # the file may have existed with wider bits


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
    """The secret at `path`, made on first use."""
    if path.exists():
        value = read_secret(path, what)
        if value:
            return value
    value = secrets.token_urlsafe(32)
    write_secret(path, value)
    return value
