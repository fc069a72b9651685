"""Shared start-up of the sample plugins: arguments, logging, the event loop."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from broker import run_main
from gates.contract import ENV_DATA_DIR, EscapedLogFormatter, find_bus
from gates.plugin import bus_keys

_VERBOSE = [False]
"""Whether the sample was started with --verbose (tracebacks for expected errors too)."""


def parse_args(name: str, extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """The sample's options; `--bus` as the commands find it (option, $XIVMCP_BUS, the running host's)."""
    parser = argparse.ArgumentParser(prog=f"python -m plugins_sample.{name}")
    parser.add_argument("--bus", default=None, help="bus endpoint (default: $XIVMCP_BUS, else the running host's)")
    parser.add_argument(
        "--data-dir",
        default=None,
        help="the host's data dir, to find its bus (default: $XIVMCP_DATA_DIR, else the user's)",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    data_dir = Path(args.data_dir).resolve() if args.data_dir else None
    if data_dir is not None:  # where this process's client finds the bus's key (`bus_keys`) too
        os.environ[ENV_DATA_DIR] = str(data_dir)
    args.bus = find_bus(args.bus, data_dir)
    args.curve = bus_keys(args.bus, data_dir)  # S4: the data dir's key when its bus asks for one
    handler = logging.StreamHandler(sys.stderr)  # a log line may quote another's words: escaped (S3)
    handler.setFormatter(EscapedLogFormatter(logging.BASIC_FORMAT))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, handlers=[handler])
    if not args.verbose:
        logging.getLogger("xivmcp.bus").setLevel(logging.ERROR)  # run() says what went wrong, once
    _VERBOSE[0] = args.verbose
    return args


def run(main: Callable[[], Awaitable[None]]) -> None:
    """Run on the bus's event loop; Ctrl-C ends quietly. No broker, or the name taken: one line
    (with --verbose, a traceback too), not a traceback alone, and exit status 2."""
    code = run_main(main, verbose=_VERBOSE[0], interrupted=0)
    if code:
        sys.exit(code)


def say(text: str) -> None:
    """A status line on stdout, flushed, for people and for tests that read it."""
    print(text, flush=True)
