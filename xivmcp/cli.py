"""The `xivmcp` command: the only place that reads the environment.

Every command takes `--bus ENDPOINT` and `--data-dir DIR`. A command that talks to a running
system finds it by itself when neither the option nor the environment says where: the host
writes `DATA_DIR/runtime.json` (its bus and MCP URL) while it runs. Resolution, first wins:

    --bus / --http  >  the host of a --data-dir named on the command line
                    >  $XIVMCP_BUS / $XIVMCP_HTTP  >  the host of the default data dir  >  the defaults

Exit codes: 0 done (or nothing to do), 1 refused (the message says why), 2 wrong usage or
nothing running to talk to, 141 stdout closed early (`xivmcp tools | head`: quietly, as `ls | head`).
One line per expected error; `--verbose` adds the traceback.

A command loads only its own module (`_COMMANDS`); `xivmcp --help` and a word that is no command
load them all. So `xivmcp broker` starts without the host or MCP, and `xivmcp up` starts its
broker and game before it loads the host (`python -m bench.startup`).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from gates.contract import (
    API_VERSION,
    DEFAULT_BUS,
    ENV_BUS,
    ENV_DATA_DIR,
    REAL_HOST_READ,
    EscapedLogFormatter,
    bus_is_local,
    default_data_dir,
    find_bus,
)

_MODULES: Final = (
    "_up_cli",
    "_status_cli",
    "_bus_cli",
    "_game_cli",
    "_player_cli",
    "_console_cli",
    "_tools_cli",
    "_connect_cli",
    "_check_cli",
    "_keys_cli",
)
"""The command line's modules, in the order `xivmcp --help` lists their commands."""
_PLAYER_COMMANDS: Final = (
    *("plugins", "enable", "consent", "keep-disabled", "lift", "clear-session", "mode", "approvals", "approve"),
    "decline",
    *("audit", "call", "jobs", "job", "modules", "module", "tool", "installed", "install", "uninstall"),
    "advance-clock",
)
_COMMANDS: Final[dict[str, str]] = {
    "up": "_up_cli",
    "host": "_up_cli",
    "status": "_status_cli",
    "broker": "_bus_cli",
    "gate": "_bus_cli",
    "game": "_game_cli",
    **dict.fromkeys(_PLAYER_COMMANDS, "_player_cli"),
    "tools": "_tools_cli",
    "console": "_console_cli",
    "connect": "_connect_cli",
    "token": "_connect_cli",
    "check": "_check_cli",
    "keys": "_keys_cli",
}
"""Each command's module (tests/test_layering.py checks it against what each module adds)."""
EXIT_STDOUT_CLOSED: Final = 128 + 13
"""The status of a command whose reader went away (`| head`): what the shell reports for `ls | head`'s
`ls`, killed by SIGPIPE, so `set -o pipefail` and `$PIPESTATUS` treat both alike. Not 0: the command
did not write all it had to say."""


def _version() -> str:
    from importlib import metadata  # only for --version: it costs 10 ms

    try:
        version = metadata.version("xivmcp-bus")
    except metadata.PackageNotFoundError:
        version = "unknown"
    read = REAL_HOST_READ
    width = max(len(file.path) for file in read.files)
    files = [f"  {file.path:<{width}}  {file.commit}" for file in read.files]
    return "\n".join(
        [
            f"xivmcp {version} (XIV MCP API {API_VERSION})",
            f"simulates XIV MCP {read.version} ({read.repo}), checked against these files at these commits:",
            *files,
            "Run your checks again when XIV MCP updates past them (docs/fidelity.md lists what still differs).",
        ]
    )


class _VersionAction(argparse.Action):
    """argparse's "version" action, with the version read only when it is asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(_version())
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or only what `command` needs (its module's commands)."""
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
    common.add_argument(
        "--curve",
        action="store_true",
        help="join (or run) a bus that admits only known CURVE keys, with the data dir's key "
        "(found by itself when the running system uses CURVE; implied by a non-loopback --bus)",
    )
    common.add_argument("-v", "--verbose", action="store_true", help="log more, and show tracebacks")
    parser = argparse.ArgumentParser(
        prog="xivmcp",
        description="XIV MCP's plugin IPC across processes: bus, host and tools.",
        epilog="Exit codes: 0 done, 1 refused, 2 wrong usage or nothing running, 141 output cut off (| head).",
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = (_COMMANDS[command],) if command in _COMMANDS else () if command == "--version" else _MODULES
    for module in modules:
        importlib.import_module(f"{__package__}.{module}").add_parsers(sub, common)
    return parser


def resolve(args: argparse.Namespace) -> None:
    """Fill in the data dir and the bus as the module docstring says (only here is the environment
    read). A --data-dir given on the command line names the system: its host's bus comes before
    $XIVMCP_BUS."""
    named = Path(args.data_dir) if args.data_dir else None
    args.data_dir = str(named or default_data_dir())
    args.data_dir_named = named is not None
    if not args.bus:
        if getattr(args, "finds_system", False):
            args.bus = find_bus(None, named)
        else:
            args.bus = os.environ.get(ENV_BUS) or DEFAULT_BUS
    # S4: a bus the data dir names as keyed asks for keys (`gates.plugin.bus_key`), and another
    # machine's bus when this data dir holds a key for it (`xivmcp keys new`). `xivmcp up` runs
    # its bus with CURVE unless told `--no-curve`; `xivmcp broker` and `xivmcp host`, the parts
    # it starts, only when told `--curve`.
    if getattr(args, "runs_bus", False):
        args.curve = getattr(args, "curve", False) or (
            getattr(args, "curve_by_default", False) and not getattr(args, "no_curve", False)
        )
    elif bus_is_local(args.bus):
        from gates.plugin import bus_key  # the kit's rule, so a plugin and a command agree

        args.curve = getattr(args, "curve", False) or bus_key(args.bus, Path(args.data_dir)) is not None
    else:
        args.curve = getattr(args, "curve", False) or (Path(args.data_dir) / "bus-client.key").exists()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in `argv` (default: the process's arguments) and return its exit status."""
    try:
        try:
            return _run(list(sys.argv[1:] if argv is None else argv))
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not as a traceback when the interpreter exits
    except BrokenPipeError:
        return _stdout_closed()


def _run(words: list[str]) -> int:
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    resolve(args)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapedLogFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, handlers=[handler])
    if not args.verbose and getattr(args, "finds_system", False):
        # A command says what went wrong itself, in one line; the bus's log would say it twice.
        logging.getLogger("xivmcp.bus").setLevel(logging.CRITICAL)
    code: int = args.func(args)
    return code


def _stdout_closed() -> int:
    """Whoever read stdout has gone: say nothing more. What is still buffered goes to /dev/null,
    so the interpreter's last flush does not fail again (Python's own recipe, docs of `signal`)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_STDOUT_CLOSED


if __name__ == "__main__":
    sys.exit(main())
