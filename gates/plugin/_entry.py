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
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from broker import CurveClient, run_main
from gates.contract import bus_is_local, default_data_dir, find_bus, read_runtime

__all__ = ["bus_keys", "parse_command_line", "run_on_asyncio"]

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
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
    if not args.verbose:
        logging.getLogger("xivmcp.bus").setLevel(logging.ERROR)  # run_on_asyncio says what went wrong, once
    return find_bus(args.bus, Path(args.data_dir) if args.data_dir else None)


def bus_keys(bus: str, data_dir: Path | None = None) -> CurveClient | None:
    """The CURVE pair to join `bus` with (S4): the data dir's client key when the system running
    on that data dir says its bus admits only known keys (`RuntimeInfo.bus_key`); else None, and
    the plugin joins as before. The data dir is `data_dir`, else $XIVMCP_DATA_DIR or the user's."""
    directory = default_data_dir() if data_dir is None else data_dir
    if not bus_is_local(bus):  # another machine's bus: the pair `xivmcp keys new` made here
        return CurveClient.load(directory)
    running = read_runtime(directory)
    if running is None or running.bus_key is None or running.bus != bus:
        return None
    keys = CurveClient.load(directory)
    return keys if keys is not None and keys.server == running.bus_key else None


def run_on_asyncio(main: Callable[[T], Awaitable[None]], arg: T) -> None:
    """``main(arg)`` on the bus's event loop until it returns or Ctrl-C; a bus error (no broker,
    the name taken) is one line, and its traceback when debug logging is on, and status 2."""
    debugging = logging.getLogger("gates.plugin").isEnabledFor(logging.DEBUG)
    code = run_main(main, arg, verbose=debugging, interrupted=0)
    if code:
        sys.exit(code)
