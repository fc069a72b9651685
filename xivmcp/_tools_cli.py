"""`xivmcp tools`: what the assistant is offered now, or (`--builtin`) every one of XIV MCP's own tools.

    xivmcp tools              the tools the host's tools/list lists now, by name: XIV MCP's own ("core")
                              and the enabled plugins' (the player's `ListTools`)
    xivmcp tools --builtin    the real host's built-in tools by module, each simulated here or not, and
                              "simulated here: S of N built-in tools (C core in M modules, I in K integrations)"

Both ask the running host over `XivMcp.Player`, as the other player's commands do: the host knows
which tools it performs and which it offers now, and the command line loads no host
(tests/test_layering.py). The built-ins are the host's modules (`ListModules`), which hold the real
host's whole catalog (`gates.contract.REAL_HOST`); the count is computed from them, never written
down. Every line goes out escaped (`gates.contract.escaped`), as every command's output does (S3).
"""

from __future__ import annotations

import argparse
from typing import Any

import msgspec

from gates.contract import BUILTIN_TOOLS, escaped
from gates.player import Command, ListModules, ListTools, ModuleCard, ModulesReport, ToolsReport

from ._player_cli import send_command
from ._player_text import not_simulated, print_json


class BuiltinCount(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """How many of the real host's built-in tools the simulated game performs, of how many."""

    simulated: int
    total: int
    core: int
    core_modules: int
    integrations: int
    integration_modules: int

    @classmethod
    def of(cls, modules: list[ModuleCard]) -> BuiltinCount:
        core = [m for m in modules if m.plugin is None]
        driven = [m for m in modules if m.plugin is not None]
        return cls(
            simulated=sum(t.simulated for m in modules for t in m.tools),
            total=sum(len(m.tools) for m in modules),
            core=sum(len(m.tools) for m in core),
            core_modules=len(core),
            integrations=sum(len(m.tools) for m in driven),
            integration_modules=len(driven),
        )

    def line(self) -> str:
        return (
            f"simulated here: {self.simulated} of {self.total} built-in tools ({self.core} core in "
            f"{self.core_modules} modules, {self.integrations} in {self.integration_modules} integrations)"
        )


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "tools",
        parents=[common],
        help="the tools the assistant is offered now; --builtin: every one of XIV MCP's own, simulated or not",
        description="Without --builtin: what the host's tools/list lists now. With --builtin: the real "
        "XIV MCP's built-in tools by module, each marked simulated here or not, and how many are.",
    )
    parser.add_argument(
        "--builtin", action="store_true", help="XIV MCP's own tools by module, each simulated here or not"
    )
    parser.add_argument("--json", action="store_true", help="print the host's JSON answer")
    parser.set_defaults(func=_tools, finds_system=True)


def _tools(args: argparse.Namespace) -> int:
    build: Command[Any] = ListModules() if args.builtin else ListTools()
    return send_command(args, build=lambda _: build, show=_show)


def _show(reply: msgspec.Struct, extra: dict[str, str], as_json: bool) -> None:
    match reply:
        case ModulesReport(modules=modules):
            count = BuiltinCount.of(modules)
            if as_json:
                print_json({"ok": True, **msgspec.to_builtins(reply), "count": msgspec.to_builtins(count)})
                return
            for module in modules:
                _print_module(module)
            _say(count.line())
        case ToolsReport(tools=tools):
            if as_json:
                print_json({"ok": True, **msgspec.to_builtins(reply)})
                return
            for tool in tools:
                kind = ", read-only" if tool.read_only else ""
                own = "; this simulator's own" if tool.simulator_only else ""
                _say(f"{tool.name} ({tool.toolset}{kind}{own})")
            _say(f"{len(tools)} tools offered to the assistant now (tools/list)")


def _print_module(module: ModuleCard) -> None:
    simulated = sum(t.simulated for t in module.tools)
    driven = f"; offered while {module.plugin} is loaded" if module.plugin else ""
    _say(f"{module.id} ({module.title}{driven}): {simulated} of {len(module.tools)} simulated")
    for tool in module.tools:
        builtin = BUILTIN_TOOLS.get(tool.name)
        access = "" if builtin is None else " (reading)" if builtin.read_only else " (changes)"
        _say(f"  {tool.name}{access}: {'simulated' if tool.simulated else not_simulated(tool)}")


def _say(line: str) -> None:
    print(escaped(line))
