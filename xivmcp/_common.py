"""What every command shares: the event loop, error printing, peer names, data dirs."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from broker import IpcError


def print_err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_async(main: Callable[[], Awaitable[int]]) -> int:
    """Run `main` on asyncio; a selector loop on Windows, which zmq's descriptor needs."""
    options: dict[str, Any] = {}
    if sys.platform == "win32":
        options["loop_factory"] = asyncio.SelectorEventLoop
    try:
        return anyio.run(main, backend="asyncio", backend_options=options)
    except IpcError as exc:
        print_err(f"{type(exc).__name__}: {exc}")
        return 2
    except KeyboardInterrupt:
        return 130


def cli_peer_name() -> str:
    """A bus name of its own for each command-line process."""
    return f"XivMcpCli{os.getpid()}"


def default_data_dir() -> Path:
    """The user's data directory for xivmcp, per platform."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
        return base / "xivmcp"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "xivmcp"
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "xivmcp"
