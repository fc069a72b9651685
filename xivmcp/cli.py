"""The `xivmcp` command: the only place that reads the environment.

Every command takes `--bus ENDPOINT` and `--data-dir DIR`. A command that talks to a running
system finds it by itself when neither the option nor the environment says where: the host
writes `DATA_DIR/runtime.json` (its bus and MCP URL) while it runs. Resolution, first wins:

    --bus / --http  >  the host of a --data-dir named on the command line
                    >  $XIVMCP_BUS / $XIVMCP_HTTP  >  the host of the default data dir  >  the defaults

Exit codes: 0 done (or nothing to do), 1 refused (the message says why), 2 wrong usage or
nothing running to talk to. One line per expected error; `--verbose` adds the traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from gates.contract import API_VERSION, DEFAULT_BUS, ENV_BUS, ENV_DATA_DIR, default_data_dir, find_bus

from . import _bus_cli, _check_cli, _connect_cli, _game_cli, _player_cli, _status_cli, _up_cli


def _version() -> str:
    try:
        version = metadata.version("xivmcp-bus")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"xivmcp {version} (XIV MCP API {API_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--bus",
        default=None,
        help=f"bus endpoint (default: ${ENV_BUS}, else the running host's, else {DEFAULT_BUS})",
    )
    common.add_argument(
        "--data-dir",
        default=None,
        help=f"where the host keeps its data (default: ${ENV_DATA_DIR} or {default_data_dir()})",
    )
    common.add_argument("-v", "--verbose", action="store_true", help="log more, and show tracebacks")
    parser = argparse.ArgumentParser(
        prog="xivmcp",
        description="XIV MCP's plugin IPC across processes: bus, host and tools.",
        epilog="Exit codes: 0 done, 1 refused, 2 wrong usage or nothing running.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _up_cli.add_parsers(sub, common)
    _status_cli.add_parsers(sub, common)
    _bus_cli.add_parsers(sub, common)
    _game_cli.add_parsers(sub, common)
    _player_cli.add_parsers(sub, common)
    _connect_cli.add_parsers(sub, common)
    _check_cli.add_parsers(sub, common)
    return parser


def resolve(args: argparse.Namespace) -> None:
    """Fill in the data dir and the bus as the module docstring says (only here is the environment
    read). A --data-dir given on the command line names the system: its host's bus comes before
    $XIVMCP_BUS."""
    named = Path(args.data_dir) if args.data_dir else None
    args.data_dir = str(named or default_data_dir())
    args.data_dir_named = named is not None
    if args.bus:
        return
    if getattr(args, "finds_system", False):
        args.bus = find_bus(None, named)
    else:
        args.bus = os.environ.get(ENV_BUS) or DEFAULT_BUS


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    resolve(args)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    if not args.verbose and getattr(args, "finds_system", False):
        # A command says what went wrong itself, in one line; the bus's log would say it twice.
        logging.getLogger("xivmcp.bus").setLevel(logging.CRITICAL)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
