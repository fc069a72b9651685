"""`xivmcp check PLUGIN`: run a plugin against a private system and report what the real host would refuse,
pause or suspend (K1).

    xivmcp check -m pkg.mod [-- PLUGIN ARGS...]       a module, as `python -m pkg.mod`
    xivmcp check SCRIPT.py [PLUGIN ARGS...]           a script
    xivmcp check -- CMD ARGS...                       any command line ($XIVMCP_BUS tells it the bus)
    xivmcp check pkg.mod                              a module, named alone

    [--json] [--junit FILE] [--examples N] [--quick-limit S] [--world FILE] [-v]

A module or a script is given ``--bus ENDPOINT`` (then PLUGIN ARGS); every form also gets
$XIVMCP_BUS and $XIVMCP_DATA_DIR. The report goes to stdout as text, or as JSON with --json;
--junit FILE also writes JUnit XML for a CI system. Exit 0 when nothing would be refused, paused
or suspended (warnings allowed), 1 when anything would, 2 when the plugin could not be started
or registered nothing (one line on stderr).

The checker (hypothesis, the harness) is imported when the command runs, not with `xivmcp`.
"""

from __future__ import annotations

import argparse
import re
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ._common import print_err

if TYPE_CHECKING:
    from gates.checking import CheckTarget

MODULE_NAME: Final = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "check",
        help="run a plugin against a private system: what XIV MCP would refuse, pause or suspend",
        description="Start a private system (broker, game and host on test clocks), run the plugin, enable it, "
        "allow what it declares, then check each tool: its definition, calls with valid and invalid arguments, "
        "Cancel of a long-running call.",
        epilog="Exit codes: 0 no errors (warnings allowed), 1 errors, 2 the plugin did not start or register.",
    )
    p.add_argument("-m", dest="module", metavar="MODULE", help="the plugin is a module, run as `python -m MODULE`")
    p.add_argument(
        "plugin",
        nargs="*",
        metavar="PLUGIN",
        help="SCRIPT.py [ARGS], or -- CMD ARGS..., or a module's name alone; with -m: the module's own arguments",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of text")
    p.add_argument("--junit", metavar="FILE", type=Path, help="also write the report as JUnit XML to FILE")
    p.add_argument("--examples", type=int, default=5, metavar="N", help="calls with valid arguments per tool (5)")
    p.add_argument(
        "--quick-limit",
        type=float,
        default=1.0,
        metavar="S",
        help="wall seconds before a call is taken for long-running and cancelled (1; a tool already seen "
        "long-running: 0.25)",
    )
    p.add_argument("--world", type=Path, metavar="FILE", help="a world file for the simulated game")
    p.add_argument("-v", "--verbose", action="store_true", help="the arguments of each finding; tracebacks")
    p.set_defaults(func=cmd_check, bus=None, data_dir=None)


def target_of(args: argparse.Namespace) -> tuple[CheckTarget, tuple[str, ...]]:
    """The plugin named on the command line, and the arguments a module or script gets after --bus."""
    from gates.checking import CheckTarget

    plugin: list[str] = list(args.plugin)
    if args.module:
        return CheckTarget.module(args.module), tuple(plugin)
    if not plugin:
        raise ValueError("name the plugin: -m MODULE, SCRIPT.py, or -- CMD ARGS...")
    first = plugin[0]
    if first.endswith(".py"):
        return CheckTarget.script(first), tuple(plugin[1:])
    if len(plugin) == 1 and MODULE_NAME.fullmatch(first) and not Path(first).exists():
        return CheckTarget.module(first), ()
    return CheckTarget.command(*plugin), ()


def cmd_check(args: argparse.Namespace) -> int:
    from gates.checking import (
        CheckAbortedError,
        CheckOptions,
        PluginStartError,
        run_check,
        to_json,
        to_junit,
        to_text,
    )

    try:
        target, plugin_args = target_of(args)
    except ValueError as exc:
        print_err(f"xivmcp check: {exc}")
        return 2
    if args.examples < 0 or args.quick_limit <= 0:
        print_err("xivmcp check: --examples takes 0 or more, --quick-limit more than 0 seconds.")
        return 2
    options = CheckOptions(
        examples=args.examples, quick_limit=args.quick_limit, world=args.world, plugin_args=plugin_args
    )
    try:
        report = run_check(target, options)
    except PluginStartError as exc:
        print_err(f"xivmcp check: {exc}")
        return 2
    except CheckAbortedError as exc:
        if args.verbose:
            traceback.print_exc()
        print_err(f"xivmcp check: the check could not go on: {exc}")
        return 2
    except AssertionError as exc:  # the harness: the host or the game did not start
        if args.verbose:
            traceback.print_exc()
        text = str(exc)  # the harness's: the command line, its output, then its stderr's tail
        said = [line for line in text.rpartition("stderr: ")[2].splitlines() if line.strip()]
        print_err(f"xivmcp check: the private system did not start: {said[-1] if said else text}")
        return 2
    print(to_json(report) if args.json else to_text(report, verbose=args.verbose), end="", flush=True)
    if args.junit is not None:
        args.junit.write_text(to_junit(report), encoding="utf-8")
    return report.exit_code
