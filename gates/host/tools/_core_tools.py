"""The handlers of XIV MCP's own tools: core trust (A5), always allowed, run in the host's process.

They are registered in the host's `ToolRegistry` under "XivMcp" (`_core_definitions.py`), so no
plugin can take their names, and the call path hands them to `CoreTools.call` instead of a
plugin's Invoke. A handler refuses with a `RefusedError` whose message is written for the
assistant (P6); any other exception reaches it as "TypeName: message" (T4). `call_tool` and
`run_self_test` run other tools through the `ToolCaller` they are given (the host's call path),
so this module does not import it. It knows nothing of MCP or HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Protocol

import anyio
import msgspec

from broker import PluginInterface
from gates.contract import (
    BUILTIN_TOOLS,
    HOST_NAME,
    PluginGate,
    PluginState,
    RefusedError,
    input_schema_of,
    plugin_gate,
    quote,
)
from gates.player import PluginCard

from ..base._call_outcome import CallOutcome
from ..policy._registry import ToolRegistry
from ..policy._report import PluginReports
from ._args import ToolArgs, ToolHandler
from ._core_definitions import CORE_DEFINITIONS, CORE_TOOLSET, PAGE_DEFAULT, PAGE_MAX, SELF_TEST_SECONDS
from ._offer import OfferedTools

__all__ = ["CoreTools", "ToolCaller"]

ProgressFn = Callable[[str], None]


class ToolCaller(Protocol):
    """Runs any tool by name through the player's settings (the host's call path)."""

    def __call__(
        self, name: str, arguments: dict[str, Any] | None, *, on_progress: ProgressFn | None = None
    ) -> Awaitable[CallOutcome]: ...


_PARAMS: Final[dict[str, tuple[str, ...]]] = {
    d.name: tuple((d.input_schema or {}).get("properties", {})) for d in CORE_DEFINITIONS
}
"""Each core tool's argument names, in its schema's order."""


class CoreTools:
    """The handlers of XIV MCP's own tools, and the listing every assistant-facing search uses."""

    def __init__(
        self,
        *,
        pi: PluginInterface,
        registry: ToolRegistry,
        offered: OfferedTools,
        reports: PluginReports,
        call: ToolCaller,
    ) -> None:
        self._pi = pi
        self._registry = registry
        self._offered = offered
        self._reports = reports
        self._call = call
        self._handlers: dict[str, ToolHandler] = {
            "echo": self._echo,
            "list_toolsets": self._list_toolsets,
            "search_tools": self._search_tools,
            "call_tool": self._call_tool,
            "get_plugin_status": self._get_plugin_status,
            "run_self_test": self._run_self_test,
        }

    def add_handlers(self, handlers: Mapping[str, ToolHandler]) -> None:
        """Handlers of core tools served by another part of the host (the job tools)."""
        self._handlers.update(handlers)

    async def call(self, name: str, arguments: dict[str, Any], on_progress: ProgressFn | None = None) -> CallOutcome:
        """Run a core tool; a refusal or failure is an outcome whose error the assistant reads."""
        try:
            result = await self._handlers[name](ToolArgs(name, arguments, _PARAMS[name]), on_progress)
        except RefusedError as exc:
            return CallOutcome(error=str(exc))
        except Exception as exc:
            return CallOutcome(error=f"{type(exc).__name__}: {exc}")
        # Plain JSON values for every reader (the typed plugin cards included).
        return result if isinstance(result, CallOutcome) else CallOutcome(result=msgspec.to_builtins(result))

    # --- the tools ------------------------------------------------------------------------

    async def _echo(self, args: ToolArgs, _: ProgressFn | None) -> str:
        return args.text("text", required=True) or ""

    async def _list_toolsets(self, args: ToolArgs, _: ProgressFn | None) -> dict[str, Any]:
        # The toolsets of what tools/list lists (F3), so the counts match what search_tools finds.
        counts: dict[str, int] = {}
        for tool in self._offered.all():
            counts[tool.toolset] = counts.get(tool.toolset, 0) + 1
        items = [
            {
                "name": name,
                "description": "XIV MCP's own tools: status, self-test, and finding and running other tools."
                if name == CORE_TOOLSET
                else f"The tools of the third-party plugin {name}.",
                "tools": count,
            }
            for name, count in counts.items()
        ]
        return {"total": len(items), "showing": len(items), "items": items}

    async def _search_tools(self, args: ToolArgs, _: ProgressFn | None) -> dict[str, Any]:
        words = (args.text("query") or "").lower().split()
        toolset = (args.text("toolset") or "").lower()
        limit = args.integer("limit", PAGE_DEFAULT, 1, PAGE_MAX)
        offset = args.integer("offset", 0, 0)

        def matches(name: str, description: str) -> bool:
            return all(w in name.lower() or w in description.lower() for w in words)

        # What tools/list lists, described as it is there (F3): a suspended plugin's tools and
        # denied ones too, whose calls then say why they are refused.
        found = [
            t
            for t in self._offered.all()
            if (not toolset or t.toolset.lower() == toolset) and matches(t.definition.name, t.description)
        ]
        found.sort(key=lambda t: not all(w in t.definition.name.lower() for w in words))  # name hits first
        items: list[dict[str, Any]] = [
            {
                "name": t.definition.name,
                "toolset": t.toolset,
                "description": t.description,
                "readOnly": t.definition.read_only,
                "inputSchema": input_schema_of(t.definition),
            }
            for t in found
        ]
        if not toolset or toolset == CORE_TOOLSET:  # F1: the real host's built-ins the game lacks are known too
            items += [
                {
                    "name": b.name,
                    "toolset": CORE_TOOLSET,
                    "description": b.summary,
                    "readOnly": b.read_only,
                    "simulated": False,
                }
                for b in BUILTIN_TOOLS.values()
                if b.name not in self._registry and matches(b.name, b.summary)
            ]
        page = items[offset : offset + limit]
        return {"total": len(items), "showing": len(page), "offset": offset, "items": page}

    async def _call_tool(self, args: ToolArgs, on_progress: ProgressFn | None) -> CallOutcome:
        name = args.text("name", required=True) or ""
        arguments = args.object("arguments")
        if name == "call_tool":
            raise RefusedError("call_tool runs other tools; pass the name of the tool to run, not call_tool.")
        if self._registry.get(name) is None:
            raise RefusedError(f"There is no tool named {quote(name)}. Find tools with search_tools.")
        return await self._call(name, arguments, on_progress=on_progress)

    async def _get_plugin_status(self, args: ToolArgs, _: ProgressFn | None) -> dict[str, Any]:
        cards = self._reports.cards()
        wanted = args.text("plugin")
        if wanted:
            chosen = [c for c in cards if c.name.lower() == wanted.lower()]
            if not chosen:
                names = ", ".join(c.name for c in cards) or "none yet"
                raise RefusedError(f"XIV MCP knows no plugin named {quote(wanted)}. The plugins are: {names}.")
            cards = chosen
        return {"plugins": cards}

    async def _run_self_test(self, args: ToolArgs, _: ProgressFn | None) -> dict[str, Any]:
        checks: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for card in self._reports.cards():
            if card.state is not PluginState.ENABLED:
                skipped.append({"plugin": card.name, "state": card.state})
                continue
            checks.append(await self._check_plugin(card))
        return {"ok": all(c["ok"] for c in checks), "checks": checks, "skipped": skipped}

    async def _check_plugin(self, card: PluginCard) -> dict[str, Any]:
        name = card.name
        gate = plugin_gate(name, PluginGate.INVOKE)
        check: dict[str, Any] = {"plugin": name, "invokeGate": gate, "tool": None}
        if not self._pi.get_ipc_subscriber(gate).has_function():
            return {**check, "ok": False, "message": f"{name} does not provide {gate}: is the plugin loaded?"}
        tool = next(
            (
                t.definition.name
                for t in self._registry.tools_of(name)
                if t.definition.read_only and not input_schema_of(t.definition).get("required")
            ),
            None,
        )
        if tool is None or name == HOST_NAME:
            return {**check, "ok": True, "message": f"{gate} is there; {name} has no read-only tool to try."}
        outcome: CallOutcome | None = None
        with anyio.move_on_after(SELF_TEST_SECONDS):
            outcome = await self._call(tool, {})
        if outcome is None:
            message = f"{tool} did not answer within {SELF_TEST_SECONDS:g} seconds."
        else:
            message = f"{tool} answered." if outcome.ok else f"{tool} failed: {outcome.error}"
        return {**check, "tool": tool, "ok": outcome is not None and outcome.ok, "message": message}
