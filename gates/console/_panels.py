"""What each tab of the console shows, read through the player's typed protocol.

Every panel is built from the replies of the player's commands (`gates.player`), answered by a
`PlayerDesk` of this host: the same answers `xivmcp plugins`, `approvals`, `modules`, `jobs` and
`audit` print, so the page and the command line cannot disagree. The Game tab reads the simulated
game as the host's own tools do; Connect and Info read the host's settings.

The templates get plain values and typed replies only, and escape every one of them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from game import GameError, GameUnavailableError
from gates.contract import API_VERSION, Mode, PluginState, Risk, find_capability
from gates.host import Host, PlayerDesk
from gates.mcp import APPS, configured_in
from gates.player import (
    ApprovalsReport,
    JobSummary,
    ListApprovals,
    ListJobs,
    ListModules,
    ListPlugins,
    PluginView,
    ReadAudit,
    ShowJob,
    ShowPlugins,
    ToolView,
)

__all__ = [
    "SIMULATOR_TABS",
    "TABS",
    "CapabilityRow",
    "Panels",
    "capability_rows",
    "review_text",
    "state_line",
    "version",
]

TABS: Final = (
    ("connect", "Connect"),
    ("modules", "Modules"),
    ("plugins", "Third-party plugins"),
    ("jobs", "Jobs"),
    ("info", "Info"),
    ("audit", "Audit"),
    ("game", "Game"),
)
"""The tabs, in the game window's order (Connect to Info; its Overlay tab has nothing to set here),
then this simulator's own: the audit log and the simulated game's screen."""
SIMULATOR_TABS: Final = frozenset({"audit", "game"})
"""Tabs the game's window does not have (marked so on the page)."""
AUDIT_LINES: Final = 100
JOB_LOG_LINES: Final = 40
CHAT_LINES: Final = 20
_READING: Final = "read_game"


@dataclass(frozen=True, slots=True)
class CapabilityRow:
    """One capability of a plugin's card: its mode, and the tools that declare it."""

    id: str
    title: str
    description: str
    risk: str
    critical: bool
    mode: Mode
    tools: tuple[ToolView, ...]


def state_line(view: PluginView) -> str:
    """The card's summary line, in the game window's words."""
    card = view.card
    tools = f"{len(card.tools)} tool(s)"
    broken = sum(1 for d in view.dependencies if d.state != "ok")
    if broken:
        tools += f" · its jobs miss {broken} tool(s)"
    if not card.connected:
        return "Not loaded"
    match card.state:
        case PluginState.UNDECIDED:
            return f"Waiting for your decision · {tools}"
        case PluginState.KEPT_DISABLED:
            return f"Kept disabled · {tools}"
        case PluginState.AWAITING_CONSENT:
            return f"Paused: waiting for your consent · {tools}"
        case PluginState.SUSPENDED:
            return f"Suspended · {tools}"
    asks = sum(1 for t in card.tools if t.mode is Mode.ASK)
    denied = sum(1 for t in card.tools if t.mode is Mode.DENY)
    return f"Enabled · {tools}" + (f" · {asks} ask first" if asks else "") + (f" · {denied} denied" if denied else "")


def _capability_words(ids: list[str]) -> str:
    titles = [(c.title if (c := find_capability(i)) is not None else i).lower() for i in ids if i != _READING]
    return ", ".join(titles)


def review_text(view: PluginView) -> str | None:
    """What the plugin waits for the player to decide on, as the game window says it; None if nothing."""
    awaits = view.card.awaits
    if awaits is None or not view.card.tools:
        return None
    first = not view.consented
    if first:
        head = "Wants to register with XIV MCP."
    elif view.card.state is PluginState.AWAITING_CONSENT:
        head = "Changed its registration; its tools are paused."
    else:
        head = "Changed its registration."
    parts = [head]
    if awaits.new_tools:
        parts.append(("Tools: " if first else "New tools: ") + ", ".join(awaits.new_tools) + ".")
    if asks := _capability_words(awaits.new_capabilities):
        parts.append(("It asks to: " if first else "Newly asks to: ") + asks + ".")
    return " ".join(parts)


def capability_rows(view: PluginView) -> list[CapabilityRow]:
    """The card's capability rows: riskiest first, then by title, reading last."""
    rows = []
    settings = {setting.id: setting.mode for setting in view.settings}
    for entry in view.card.capabilities:
        capability = find_capability(entry.id)
        if capability is None:
            continue
        if entry.id == _READING:
            tools = tuple(t for t in view.tools if t.read_only)
            title = "Reading"
        else:
            tools = tuple(t for t in view.tools if entry.id in t.capabilities)
            title = capability.title
        rows.append(
            CapabilityRow(
                id=entry.id,
                title=title,
                description=capability.description,
                risk=capability.risk.name,
                critical=capability.risk is Risk.CRITICAL,
                mode=settings.get(entry.id, entry.mode),
                tools=tools,
            )
        )
    order = list(Risk)
    rows.sort(key=lambda r: (r.id == _READING, -order.index(Risk[r.risk]), r.title))
    return rows


class Panels:
    """Builds each tab's values from the player's replies (see the module docstring)."""

    def __init__(self, host: Host, desk: PlayerDesk, *, mcp_url: str) -> None:
        self.host = host
        self.desk = desk
        self.mcp_url = mcp_url
        self.apps: Callable[[], list[tuple[str, bool, float]]] = list
        """The AI apps with an MCP session now (the endpoint's; none when there is no endpoint)."""
        self.last_self_test: Any = None
        """The result of the last self-test run from the Info tab (run_self_test's)."""

    async def values(self, tab: str, query: Mapping[str, str]) -> dict[str, Any]:
        """The template values of `tab` (one of `TABS`)."""
        values: dict[str, Any] = await getattr(self, f"_{tab}")(query)
        return values

    async def approvals(self) -> ApprovalsReport:
        return await self.desk.answer(ListApprovals())

    async def plugin_views(self) -> list[PluginView]:
        return (await self.desk.answer(ShowPlugins())).views

    async def _plugins(self, _: Mapping[str, str]) -> dict[str, Any]:
        views = await self.plugin_views()
        return {
            "views": views,
            "rows": {view.card.name: capability_rows(view) for view in views},
            "lines": {view.card.name: state_line(view) for view in views},
            "reviews": {view.card.name: review_text(view) for view in views},
            "audit_file": self.host.audit.path,
        }

    async def _modules(self, _: Mapping[str, str]) -> dict[str, Any]:
        return {"modules": (await self.desk.answer(ListModules())).modules}

    async def _jobs(self, _: Mapping[str, str]) -> dict[str, Any]:
        listed: list[JobSummary] = (await self.desk.answer(ListJobs())).jobs
        jobs = [(await self.desk.answer(ShowJob(id=j.id, log_lines=JOB_LOG_LINES))).job for j in listed]
        return {"jobs": jobs}

    async def _audit(self, query: Mapping[str, str]) -> dict[str, Any]:
        plugin = query.get("plugin") or None
        report = await self.desk.answer(ReadAudit(plugin=plugin, limit=AUDIT_LINES))
        names = (await self.desk.answer(ListPlugins())).plugins
        return {"entries": list(reversed(report.entries)), "plugin": plugin, "plugins": [c.name for c in names]}

    async def _game(self, _: Mapping[str, str]) -> dict[str, Any]:
        client = self.host.game.client
        try:
            me = (await client.player()).player
            inventory = await client.inventory()
            chat = await client.chat(CHAT_LINES)
        except GameUnavailableError:
            return {"running": False}
        except GameError as exc:
            return {"running": True, "error": exc.message}
        return {"running": True, "me": me, "items": inventory.items, "chat": list(reversed(chat))}

    async def _connect(self, _: Mapping[str, str]) -> dict[str, Any]:
        apps = []
        for key, (title, snippet, paths) in APPS.items():
            apps.append(
                {
                    "key": key,
                    "title": title,
                    "snippet": snippet(self.mcp_url, "Bearer TOKEN"),
                    "configured": [str(p) for p in configured_in(paths(), self.mcp_url)],
                }
            )
        connected = [
            {"name": name, "listening": listening, "ago": _ago(seconds)} for name, listening, seconds in self.apps()
        ]
        return {
            "url": self.mcp_url,
            "apps": apps,
            "connected": connected,
            "token_file": self.host.config.data_dir / "token",
        }

    async def _info(self, _: Mapping[str, str]) -> dict[str, Any]:
        config = self.host.config
        return {
            "api": API_VERSION,
            "pid": os.getpid(),
            "data_dir": Path(config.data_dir),
            "bus": self.host.pi.endpoint,
            "url": self.mcp_url,
            "peers": sorted(self.host.pi.peers),
            "test_clock": config.test_clock,
            "self_test": self.last_self_test,
        }


def _ago(seconds: float) -> str:
    """`just now`, `{n} min ago`, `{n} h ago`: the game window's words for a client's last request."""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


@functools.cache
def version() -> str:
    """This package's version (the page's header says it)."""
    from importlib import metadata

    try:
        return metadata.version("xivmcp-bus")
    except metadata.PackageNotFoundError:
        return "unknown"
