"""The start of a plugin process: where the bus is, from the command line, and the event loop.

    python -m myplugin --bus tcp://127.0.0.1:37520      or   --data-dir DIR   or neither, -v for logs

The same options and the same loop as the sample plugins (`plugins_sample/_run.py`), so a
plugin written with `Plugin.run()` starts like every other: on asyncio (a selector loop on
Windows, which the bus needs), quiet on Ctrl-C, and one line, not a traceback, when the bus
cannot be reached or the name is taken.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from broker import CurveClient, noted_bus_key, run_main
from gates.contract import ENV_DATA_DIR, EscapedLogFormatter, bus_is_local, default_data_dir, find_bus, read_runtime

__all__ = ["bus_key", "bus_keys", "parse_command_line", "run_on_asyncio"]

T = TypeVar("T")


def parse_command_line(internal_name: str, argv: Sequence[str] | None = None) -> str:
    """The bus endpoint from ``--bus`` / ``--data-dir`` (else $XIVMCP_BUS, else the running host's);
    sets up logging (``-v``: everything, to stderr)."""
    parser = argparse.ArgumentParser(
        description=f"{internal_name}: a plugin giving the assistant tools through XIV MCP."
    )
    parser.add_argument("--bus", default=None, help="bus endpoint (default: $XIVMCP_BUS, else the running host's)")
    parser.add_argument(
        "--data-dir",
        default=None,
        help="the host's data dir, to find its bus (default: $XIVMCP_DATA_DIR, else the user's)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log everything to stderr")
    args = parser.parse_args(argv)
    handler = logging.StreamHandler(sys.stderr)  # a log line may quote another's words: escaped (S3)
    handler.setFormatter(EscapedLogFormatter(logging.BASIC_FORMAT))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, handlers=[handler])
    if not args.verbose:
        logging.getLogger("xivmcp.bus").setLevel(logging.ERROR)  # run_on_asyncio says what went wrong, once
    if args.data_dir:
        # The data dir this process was told is where it finds the bus's key too (`bus_keys`,
        # called when the client connects): the whole process is this plugin.
        os.environ[ENV_DATA_DIR] = str(Path(args.data_dir).resolve())
    return find_bus(args.bus, Path(args.data_dir) if args.data_dir else None)


def bus_key(bus: str, data_dir: Path) -> str | None:
    """The broker public key `data_dir` names for the local bus `bus` (S4): the running host's
    `RuntimeInfo.bus_key`, else the note a broker process left (`broker.note_bus`); None for a
    bus the data dir does not name as keyed, which is then joined without a key."""
    running = read_runtime(data_dir)
    if running is not None and running.bus == bus:
        return running.bus_key
    return noted_bus_key(data_dir, bus)


def bus_keys(bus: str, data_dir: Path | None = None) -> CurveClient | None:
    """The CURVE pair to join `bus` with (S4): the data dir's client key when that data dir names
    the bus as one that admits only known keys (`bus_key`); else None, and the plugin joins
    without. The data dir is `data_dir`, else $XIVMCP_DATA_DIR or the user's."""
    directory = default_data_dir() if data_dir is None else data_dir
    if not bus_is_local(bus):  # another machine's bus: the pair `xivmcp keys new` made here
        return CurveClient.load(directory)
    server = bus_key(bus, directory)
    if server is None:
        return None
    keys = CurveClient.load(directory)
    return keys if keys is not None and keys.server == server else None


def run_on_asyncio(main: Callable[[T], Awaitable[None]], arg: T, *, name: str = "") -> None:
    """``main(arg)`` on the bus's event loop until it returns or Ctrl-C; a bus error (no broker,
    the name taken) is one line ("`name`: why"), and its traceback when debug logging is on, and
    status 2."""
    debugging = logging.getLogger("gates.plugin").isEnabledFor(logging.DEBUG)
    code = run_main(main, arg, name=name, verbose=debugging, interrupted=0)
    if code:
        sys.exit(code)
