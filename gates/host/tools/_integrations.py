"""The maintained integrations the simulated game performs: XIV MCP's own tools that drive another
plugin over that plugin's IPC (A5, W7).

    INTEGRATION_DEFINITIONS  the tools' definitions, core tools like the others
    INTEGRATION_PLUGINS      the plugins they drive (their coming and going changes what is offered)
    IntegrationTools(pi)     their handlers, calling the plugin's gates

Every integration of the real host has its module (`policy._modules`, from the real catalog);
this simulator performs AutoDuty's ``list_duties``, ``get_duty_status``, ``stop_duty`` and
``run_duty``. As in the real host's IntegrationCatalog, an integration's tools are offered only
while the plugin it drives is loaded (on the bus, here): `OfferedTools.core()` leaves them out
otherwise, and a call that comes anyway (a stale tools/list, `call_tool`) is refused with where to
install the plugin. AutoDuty's gates are its real IPC names: `AutoDuty.ContentHasPath`, `.Run`,
`.Stop`, `.IsStopped`, `.IsLooping`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import anyio

from broker import IpcError, IpcNotReadyError, IpcPeerLeftError, PluginInterface
from gates.contract import BUILTIN_TOOLS, CapabilityId, RefusedError, ToolDefinition, quote

from ..policy._requirements import KNOWN_PLUGINS
from ._args import ToolArgs, ToolHandler
from ._job_definitions import object_schema

__all__ = [
    "AUTODUTY_PLUGIN",
    "DUTIES",
    "INTEGRATION_DEFINITIONS",
    "INTEGRATION_OUTPUT_SCHEMAS",
    "INTEGRATION_PLUGINS",
    "Duty",
    "IntegrationTools",
]

AUTODUTY_PLUGIN: Final = "AutoDuty"

ANSWER_SECONDS: Final = 10.0
"""How long one of the plugin's gates may take to answer before the tool gives up (B1: busy, not dead)."""
MAX_LOOPS: Final = 99
_PAGE_DEFAULT: Final = 20
_PAGE_MAX: Final = 100
"""Paging as every listing of XIV MCP's own tools (`_core_definitions`): default 20, at most 100."""


@dataclass(frozen=True, slots=True)
class Duty:
    name: str
    territory_type: int
    level: int


DUTIES: Final[tuple[Duty, ...]] = (
    Duty("The Tower of Zot", 952, 81),
    Duty("The Tower of Babil", 969, 83),
    Duty("Vanaspati", 970, 85),
    Duty("Ktisis Hyperboreia", 974, 87),
    Duty("The Aitiascope", 978, 89),
    Duty("Ihuykatumu", 1167, 91),
    Duty("Worqor Zormor", 1193, 93),
    Duty("The Skydeep Cenote", 1194, 95),
    Duty("Vanguard", 1198, 97),
    Duty("Origenics", 1208, 99),
)
"""The dungeons XIV MCP knows by name; `list_duties` shows those AutoDuty has a path for."""

_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_DUTY_ARG: Final = {
    "type": "string",
    "description": 'The dungeon: its name as list_duties gives it (e.g. "Origenics"), or its territory id.',
}

INTEGRATION_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="list_duties",
        description="The dungeons AutoDuty can run for the player: those it has a path for, with their "
        "territory ids and levels. Returns {total, showing, items}. Start one with run_duty.",
        input_schema=object_schema(
            {
                "query": {"type": "string", "description": "Part of the dungeon's name. Empty lists them all."},
                "limit": {"type": "integer", "minimum": 1, "maximum": _PAGE_MAX, "description": "Default 20."},
                "offset": {"type": "integer", "minimum": 0, "description": "How many to skip (paging). Default 0."},
            }
        ),
        read_only=True,
    ),
    ToolDefinition(
        name="get_duty_status",
        description="Whether AutoDuty is running a dungeon right now and whether it loops, with the dungeon "
        "run_duty started. Poll it after run_duty to know when AutoDuty is done.",
        read_only=True,
    ),
    ToolDefinition(
        name="stop_duty",
        description="Stops AutoDuty at once: the dungeon it runs and the loops still to go. Harmless when it "
        "is already stopped.",
        capabilities=[CapabilityId.COMBAT],
    ),
    ToolDefinition(
        name="run_duty",
        description="Has AutoDuty run a dungeon 'loops' times: it enters, walks, fights and loops without "
        "you. Returns once AutoDuty started; follow it with get_duty_status and end it early with stop_duty. "
        "Refused while AutoDuty already runs one. Use list_duties for the dungeons it can run.",
        input_schema=object_schema(
            {
                "duty": _DUTY_ARG,
                "loops": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LOOPS,
                    "description": "How many runs. Default 1.",
                },
                "bare_mode": {
                    "type": "boolean",
                    "description": "Run without AutoDuty's extras (repairs, retainers, ...) between loops. "
                    "Default false.",
                },
            },
            ("duty",),
        ),
        capabilities=[CapabilityId.COMBAT, CapabilityId.MOVE_CHARACTER, CapabilityId.GAME_UI],
    ),
)

INTEGRATION_PLUGINS: Final[frozenset[str]] = frozenset(
    plugin for d in INTEGRATION_DEFINITIONS if (plugin := BUILTIN_TOOLS[d.name].plugin) is not None
)
"""The plugins whose coming and going changes which of XIV MCP's own tools are offered (those this
simulator performs an integration of)."""

INTEGRATION_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "list_duties": object_schema(
        {
            "total": _INT,
            "showing": _INT,
            "offset": _INT,
            "items": {
                "type": "array",
                "items": object_schema({"name": _STR, "territoryType": _INT, "level": _INT}, ("name", "territoryType")),
            },
        },
        ("total", "showing", "items"),
    ),
}


class IntegrationTools:
    """The handlers of the integrations' tools: each checks that its plugin is loaded, then calls its gates."""

    def __init__(self, pi: PluginInterface, *, answer_seconds: float = ANSWER_SECONDS) -> None:
        self._pi = pi
        self._answer_seconds = answer_seconds
        self._started: Duty | None = None
        """The dungeon run_duty last started, for get_duty_status (AutoDuty's IPC does not say which)."""

    def handlers(self) -> Mapping[str, ToolHandler]:
        return {
            "list_duties": self._list_duties,
            "get_duty_status": self._get_duty_status,
            "stop_duty": self._stop_duty,
            "run_duty": self._run_duty,
        }

    # --- the tools ------------------------------------------------------------------------

    async def _list_duties(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        words = (args.text("query") or "").lower().split()
        limit = args.integer("limit", _PAGE_DEFAULT, 1, _PAGE_MAX)
        offset = args.integer("offset", 0, 0)
        self._require_loaded(args.tool)
        found = [
            d
            for d in DUTIES
            if all(w in d.name.lower() for w in words) and await self._has_path(args.tool, d.territory_type)
        ]
        page = found[offset : offset + limit]
        items = [{"name": d.name, "territoryType": d.territory_type, "level": d.level} for d in page]
        return {"total": len(found), "showing": len(items), "offset": offset, "items": items}

    async def _get_duty_status(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        self._require_loaded(args.tool)
        running = not await self._flag(args.tool, "AutoDuty.IsStopped")
        looping = running and await self._flag(args.tool, "AutoDuty.IsLooping")
        if not running:
            self._started = None
        started = self._started
        duty = None if started is None else {"name": started.name, "territoryType": started.territory_type}
        return {"running": running, "looping": looping, "duty": duty}

    async def _stop_duty(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        self._require_loaded(args.tool)
        was_running = not await self._flag(args.tool, "AutoDuty.IsStopped")
        await self._call(args.tool, "AutoDuty.Stop", action=True)
        self._started = None
        return {"stopped": True, "wasRunning": was_running}

    async def _run_duty(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        duty = _find_duty(args.text("duty", required=True) or "")
        loops = args.integer("loops", 1, 1, MAX_LOOPS)
        bare_mode = args.boolean("bare_mode", False)
        self._require_loaded(args.tool)
        if not await self._flag(args.tool, "AutoDuty.IsStopped"):
            raise RefusedError(
                "AutoDuty is already running a dungeon; stop it with stop_duty first, or wait until "
                "get_duty_status says it stopped. Nothing was started."
            )
        if not await self._has_path(args.tool, duty.territory_type):
            raise RefusedError(
                f"AutoDuty has no path for {duty.name} ({duty.territory_type}), so it can't run it. "
                "list_duties shows the dungeons it can run."
            )
        await self._call(args.tool, "AutoDuty.Run", duty.territory_type, loops, bare_mode, action=True)
        self._started = duty
        return {
            "started": True,
            "duty": duty.name,
            "territoryType": duty.territory_type,
            "loops": loops,
            "bareMode": bare_mode,
            "poll": "get_duty_status",
        }

    # --- the plugin's gates ---------------------------------------------------------------

    def _require_loaded(self, tool: str) -> None:
        if AUTODUTY_PLUGIN not in self._pi.peers:
            raise RefusedError(_not_loaded(tool))

    async def _has_path(self, tool: str, territory_type: int) -> bool:
        return await self._flag(tool, "AutoDuty.ContentHasPath", territory_type)

    async def _flag(self, tool: str, gate: str, *args: object) -> bool:
        value = await self._call(tool, gate, *args)
        if not isinstance(value, bool):
            raise RefusedError(
                f"AutoDuty answered {gate} with {quote(value)}, not true or false. Is it up to date? "
                f"The player can update it ({_repo()})."
            )
        return value

    async def _call(self, tool: str, gate: str, *args: object, action: bool = False) -> object:
        """One gate of the plugin, bounded in time; every way it fails becomes a refusal for the assistant."""
        subscriber = self._pi.get_ipc_subscriber(gate)
        value: object = None
        with anyio.move_on_after(self._answer_seconds) as waited:
            try:
                if action:
                    await subscriber.invoke_action(*args)
                else:
                    value = await subscriber.invoke_func(*args)
            except (IpcNotReadyError, IpcPeerLeftError):
                raise RefusedError(_not_loaded(tool)) from None
            except IpcError as exc:
                raise RefusedError(
                    f"AutoDuty did not answer {gate} ({type(exc).__name__}: {exc}). Is it enabled and up to date?"
                ) from None
        if waited.cancelled_caught:
            raise RefusedError(
                f"AutoDuty did not answer {gate} within {self._answer_seconds:g} seconds; it may be busy. "
                f"Try {tool} again in a moment."
            )
        return value


def _repo() -> str:
    return KNOWN_PLUGINS[AUTODUTY_PLUGIN].repo


def _not_loaded(tool: str) -> str:
    return (
        f"{AUTODUTY_PLUGIN} isn't loaded, so {tool} isn't available. The player can install or enable it ({_repo()})."
    )


def _find_duty(text: str) -> Duty:
    """A dungeon by territory id, by name (any case), or by the one name that contains `text`."""
    wanted = text.strip()
    if wanted.isdigit():
        territory = int(wanted)
        known = next((d for d in DUTIES if d.territory_type == territory), None)
        return known or Duty(f"territory {territory}", territory, 0)
    lowered = wanted.lower()
    exact = [d for d in DUTIES if d.name.lower() == lowered]
    partial = exact or [d for d in DUTIES if lowered and lowered in d.name.lower()]
    if len(partial) == 1:
        return partial[0]
    if partial:
        names = ", ".join(d.name for d in partial)
        raise RefusedError(f"{quote(wanted)} matches several dungeons: {names}. Use the full name.")
    raise RefusedError(
        f"XIV MCP knows no dungeon called {quote(wanted)}. Use a name from list_duties, or a territory id."
    )
