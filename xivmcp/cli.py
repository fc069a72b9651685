"""The `xivmcp` command: the only place that reads the environment.

Every command takes `--bus ENDPOINT` (or $XIVMCP_BUS) and, where it keeps data,
`--data-dir DIR` (or $XIVMCP_DATA_DIR), so several systems can run side by side.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from broker import DEFAULT_ENDPOINT, ENV_BUS

from . import _bus_cli, _connect_cli, _player_cli, _up_cli
from ._common import default_data_dir


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--bus",
        default=os.environ.get(ENV_BUS) or DEFAULT_ENDPOINT,
        help=f"bus endpoint (default: ${ENV_BUS} or {DEFAULT_ENDPOINT})",
    )
    common.add_argument(
        "--data-dir",
        default=os.environ.get("XIVMCP_DATA_DIR") or str(default_data_dir()),
        help="where the host keeps its data (default: $XIVMCP_DATA_DIR or the user's data directory)",
    )
    common.add_argument("-v", "--verbose", action="store_true", help="log more")
    parser = argparse.ArgumentParser(
        prog="xivmcp", description="XIV MCP's plugin IPC across processes: bus, host and tools."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _up_cli.add_parsers(sub, common)
    _bus_cli.add_parsers(sub, common)
    _player_cli.add_parsers(sub, common)
    _connect_cli.add_parsers(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
