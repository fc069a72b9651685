"""XIV MCP's own tools: core trust (A5), always allowed, run in the host's process.

    echo, get_plugin_status, run_self_test     what the host can do before there is a game (A12)
    list_toolsets, search_tools, call_tool     reach hundreds of tools without listing them all (P2)

They are registered in the host's `ToolRegistry` under "XivMcp", so no plugin can take their
names, and `Host.call_tool` hands them to `CoreTools.call` instead of a plugin's Invoke. A
handler refuses with a `RefusedError` whose message is written for the assistant (P6); any other
exception reaches it as "TypeName: message" (T4). Lists come back as {total, showing, items}, paged
with `limit` and `offset` (P5). This module knows nothing of MCP or HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import anyio

from ._calls import CallOutcome
from ._contract import HOST_NAME, PluginState, ToolDefinition, plugin_gate
from ._definition import input_schema_of
from ._errors import RefusedError, quote

if TYPE_CHECKING:
    from ._host import Host

__all__ = ["CORE_DEFINITIONS", "CORE_TOOLSET", "CoreTools", "OfferedTool"]

CORE_TOOLSET: Final = "core"
PAGE_DEFAULT: Final = 20
PAGE_MAX: Final = 100
SELF_TEST_SECONDS: Final = 10.0
ProgressFn = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class OfferedTool:
    """A tool as an assistant is offered it: its toolset ("core" or the plugin's name) and definition."""

    toolset: str
    definition: ToolDefinition
    output_schema: dict[str, Any] | None = None


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_PAGE: Final = {
    "limit": {"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "description": "How many. Default 20, max 100."},
    "offset": {"type": "integer", "minimum": 0, "description": "How many to skip (paging). Default 0."},
}


def _listing(item: dict[str, Any]) -> dict[str, Any]:
    properties = {"total": _INT, "showing": _INT, "offset": _INT, "items": {"type": "array", "items": item}}
    return _obj(properties, ("total", "showing", "items"))


CORE_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="echo",
        description="Returns its 'text' argument unchanged. Use it to check that XIV MCP answers.",
        input_schema=_obj({"text": {"type": "string", "description": "What to send back."}}, ("text",)),
        read_only=True,
    ),
    ToolDefinition(
        name="list_toolsets",
        description="The groups of tools XIV MCP offers now: 'core' (XIV MCP's own) and one per third-party "
        "plugin, named after it, with how many tools each has. Find tools in a toolset with search_tools.",
        read_only=True,
    ),
    ToolDefinition(
        name="search_tools",
        description="Finds tools that may run now by words in their name or description (case-insensitive; "
        "every word must match). Returns {total, showing, items} with each tool's inputSchema; run one with "
        "call_tool, or call it directly.",
        input_schema=_obj(
            {
                "query": {"type": "string", "description": "Words to look for. Empty matches every tool."},
                "toolset": {"type": "string", "description": "Only this toolset, as list_toolsets names it."},
                **_PAGE,
            }
        ),
        read_only=True,
    ),
    ToolDefinition(
        name="call_tool",
        description="Runs any tool by name, as found with search_tools, through the player's permissions "
        "(some tools ask the player first). Returns what the tool returns.",
        input_schema=_obj(
            {
                "name": {"type": "string", "description": "The tool's name, as search_tools returns it."},
                "arguments": {"type": "object", "description": "The tool's arguments, per its inputSchema."},
            },
            ("name",),
        ),
        destructive=True,
    ),
    ToolDefinition(
        name="get_plugin_status",
        description="Third-party plugins as the player sees them in /xivmcp: state (enabled, suspended, ...), "
        "whether connected, each tool's mode and capability modes, and what a plugin waits for.",
        input_schema=_obj({"plugin": {"type": "string", "description": "One plugin's InternalName. Default: all."}}),
        read_only=True,
    ),
    ToolDefinition(
        name="run_self_test",
        description="Checks every enabled plugin: that it provides its Invoke gate, and that one of its "
        "read-only tools answers. Returns a report with one check per plugin.",
        read_only=True,
    ),
)

_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "list_toolsets": _listing(_obj({"name": _STR, "description": _STR, "tools": _INT}, ("name", "tools"))),
    "search_tools": _listing(
        _obj({"name": _STR, "toolset": _STR, "description": _STR, "inputSchema": {"type": "object"}}, ("name",))
    ),
    "get_plugin_status": _obj({"plugins": {"type": "array", "items": {"type": "object"}}}, ("plugins",)),
    "run_self_test": _obj(
        {
            "ok": {"type": "boolean"},
            "checks": {"type": "array", "items": {"type": "object"}},
            "skipped": {"type": "array", "items": {"type": "object"}},
        },
        ("ok", "checks"),
    ),
}


class _Args:
    """A core tool's arguments: names matched case-insensitively, unknown names refused (P4)."""

    def __init__(self, tool: str, args: dict[str, Any], params: tuple[str, ...]) -> None:
        by_lower = {p.lower(): p for p in params}
        self.tool = tool
        self.values: dict[str, Any] = {}
        for key, value in args.items():
            param = by_lower.get(key.lower())
            if param is None:
                known = ", ".join(params) or "none"
                raise RefusedError(f"{tool} has no argument {quote(key)}; its arguments are: {known}.")
            self.values[param] = value

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.values.get(name)
        if value is None:
            if required:
                raise RefusedError(f"{self.tool} needs {quote(name)}, a string.")
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, name: str, default: int, low: int, high: int | None = None) -> int:
        value = self.values.get(name, default)
        try:
            number = int(value) if not isinstance(value, bool) and float(value) == int(float(value)) else None
        except (TypeError, ValueError, OverflowError):
            number = None
        if number is None or number < low or (high is not None and number > high):
            bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise RefusedError(f"{quote(name)} must be a whole number {bounds}; got {quote(value)}.")
        return number

    def object(self, name: str) -> dict[str, Any]:
        value = self.values.get(name) or {}
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise RefusedError(f"{quote(name)} must be a JSON object of arguments; got {quote(value)}.") from None
        if not isinstance(value, dict):
            raise RefusedError(f'{quote(name)} must be an object of arguments, such as {{"x": 21.4}}.')
        return value


_PARAMS: Final[dict[str, tuple[str, ...]]] = {
    d.name: tuple((d.input_schema or {}).get("properties", {})) for d in CORE_DEFINITIONS
}
"""Each core tool's argument names, in its schema's order."""


class CoreTools:
    """The handlers of XIV MCP's own tools, and the listing every assistant-facing search uses."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._handlers: dict[str, Callable[[_Args, ProgressFn | None], Awaitable[Any]]] = {
            "echo": self._echo,
            "list_toolsets": self._list_toolsets,
            "search_tools": self._search_tools,
            "call_tool": self._call_tool,
            "get_plugin_status": self._get_plugin_status,
            "run_self_test": self._run_self_test,
        }

    def offered(self) -> list[OfferedTool]:
        """Core tools first, then every third-party tool that may run now (`Host.offered_tools`)."""
        core = [OfferedTool(CORE_TOOLSET, d, _OUTPUT_SCHEMAS.get(d.name)) for d in CORE_DEFINITIONS]
        return core + [OfferedTool(owner, definition) for owner, definition in self._host.offered_tools()]

    async def call(self, name: str, arguments: dict[str, Any], on_progress: ProgressFn | None = None) -> CallOutcome:
        """Run a core tool; a refusal or failure is an outcome whose error the assistant reads."""
        try:
            result = await self._handlers[name](_Args(name, arguments, _PARAMS[name]), on_progress)
        except RefusedError as exc:
            return CallOutcome(error=str(exc))
        except Exception as exc:
            return CallOutcome(error=f"{type(exc).__name__}: {exc}")
        return result if isinstance(result, CallOutcome) else CallOutcome(result=result)

    # --- the tools ------------------------------------------------------------------------

    async def _echo(self, args: _Args, _: ProgressFn | None) -> str:
        return args.text("text", required=True) or ""

    async def _list_toolsets(self, args: _Args, _: ProgressFn | None) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for tool in self.offered():
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

    async def _search_tools(self, args: _Args, _: ProgressFn | None) -> dict[str, Any]:
        words = (args.text("query") or "").lower().split()
        toolset = (args.text("toolset") or "").lower()
        limit = args.integer("limit", PAGE_DEFAULT, 1, PAGE_MAX)
        offset = args.integer("offset", 0, 0)
        found = [
            t
            for t in self.offered()
            if (not toolset or t.toolset.lower() == toolset)
            and all(w in t.definition.name.lower() or w in t.definition.description.lower() for w in words)
        ]
        found.sort(key=lambda t: not all(w in t.definition.name.lower() for w in words))  # name hits first
        page = found[offset : offset + limit]
        items = [
            {
                "name": t.definition.name,
                "toolset": t.toolset,
                "description": t.definition.description,
                "readOnly": t.definition.read_only,
                "inputSchema": input_schema_of(t.definition),
            }
            for t in page
        ]
        return {"total": len(found), "showing": len(items), "offset": offset, "items": items}

    async def _call_tool(self, args: _Args, on_progress: ProgressFn | None) -> CallOutcome:
        name = args.text("name", required=True) or ""
        arguments = args.object("arguments")
        if name == "call_tool":
            raise RefusedError("call_tool runs other tools; pass the name of the tool to run, not call_tool.")
        if self._host.registry.get(name) is None:
            raise RefusedError(f"There is no tool named {quote(name)}. Find tools with search_tools.")
        return await self._host.call_tool(name, arguments, on_progress=on_progress)

    async def _get_plugin_status(self, args: _Args, _: ProgressFn | None) -> dict[str, Any]:
        report = self._host.plugins_report()
        wanted = args.text("plugin")
        if wanted:
            chosen = [p for p in report if p["name"].lower() == wanted.lower()]
            if not chosen:
                names = ", ".join(p["name"] for p in report) or "none yet"
                raise RefusedError(f"XIV MCP knows no plugin named {quote(wanted)}. The plugins are: {names}.")
            report = chosen
        return {"plugins": report}

    async def _run_self_test(self, args: _Args, _: ProgressFn | None) -> dict[str, Any]:
        host = self._host
        checks: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for plugin in host.plugins_report():
            name = plugin["name"]
            if plugin["state"] != PluginState.ENABLED.value:
                skipped.append({"plugin": name, "state": plugin["state"]})
                continue
            checks.append(await self._check_plugin(name))
        return {"ok": all(c["ok"] for c in checks), "checks": checks, "skipped": skipped}

    async def _check_plugin(self, name: str) -> dict[str, Any]:
        host = self._host
        gate = plugin_gate(name, "Invoke")
        check: dict[str, Any] = {"plugin": name, "invokeGate": gate, "tool": None}
        if not host.pi.get_ipc_subscriber(gate).has_function():
            return {**check, "ok": False, "message": f"{name} does not provide {gate}: is the plugin loaded?"}
        tool = next(
            (
                t.definition.name
                for t in host.registry.tools_of(name)
                if t.definition.read_only and not input_schema_of(t.definition).get("required")
            ),
            None,
        )
        if tool is None or name == HOST_NAME:
            return {**check, "ok": True, "message": f"{gate} is there; {name} has no read-only tool to try."}
        outcome: CallOutcome | None = None
        with anyio.move_on_after(SELF_TEST_SECONDS):
            outcome = await host.call_tool(tool, {})
        if outcome is None:
            message = f"{tool} did not answer within {SELF_TEST_SECONDS:g} seconds."
        else:
            message = f"{tool} answered." if outcome.ok else f"{tool} failed: {outcome.error}"
        return {**check, "tool": tool, "ok": outcome is not None and outcome.ok, "message": message}
