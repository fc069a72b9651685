"""Telling AI apps what changed: notifications/tools/list_changed and resources/updated (A2, A9).

One source of change, two eras of delivery:

* 2025-era sessions (initialize handshake) get them on their GET event stream. `Sessions` keeps,
  per Mcp-Session-Id, the package's `ServerSession` of the session's latest request (whose
  standalone channel is that stream), the resources it subscribed to and its open GET streams;
  the HTTP guard reports streams opening and closing and sessions being deleted.
* 2026-07-28 clients open `subscriptions/listen` streams; events go on the package's
  `SubscriptionBus`, whose `ListenHandler` filters them per stream.

`Host.on_change` and `AuditLog.on_record` only mark what may have changed, and for which plugin
(they run inside host code, on the host's event loop like all of it, and must be quick). One
task then works out, for those plugins alone, their offered tools and their cards, and notifies
only when they differ from what it announced last: a change costs work in proportion to the
plugins it touched (B7). Every plugin call adds an audit line, so the audit resource is marked
only while someone can hear of it: a session subscribed to it, or a listen stream.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import anyio.abc
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gates.contract import HOST_NAME, JobInfo, encode_json
from gates.host import AuditEntry, Host

__all__ = ["AUDIT_URI", "CACHE_PREFIX", "JOBS_URI", "PLUGINS_URI", "Notifier", "Sessions", "session_id_of"]

log = logging.getLogger("gates.mcp")

CACHE_PREFIX: Final = "xiv://cache/"
PLUGINS_URI: Final = CACHE_PREFIX + "plugins"
AUDIT_URI: Final = CACHE_PREFIX + "audit"
JOBS_URI: Final = CACHE_PREFIX + "jobs"
SESSION_HEADER: Final = "mcp-session-id"


def session_id_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The Mcp-Session-Id of the HTTP request that carried this message, if any."""
    headers = getattr(ctx.request, "headers", None)
    value = headers.get(SESSION_HEADER) if headers is not None else None
    return value if isinstance(value, str) else None


@dataclass(slots=True)
class _Session:
    session: ServerSession | None = None
    subscriptions: set[str] = field(default_factory=set)
    streams: int = 0
    last_seen: float = field(default_factory=time.monotonic)


class Sessions:
    """The 2025-era sessions that can be told about changes, by Mcp-Session-Id."""

    def __init__(self, idle_timeout: float) -> None:
        self._idle = idle_timeout
        self._by_id: dict[str, _Session] = {}
        self._stateless_seen: float | None = None
        """When a request without a session last came (the real host's `lastStatelessRequestUtc`)."""

    def _entry(self, sid: str) -> _Session:
        entry = self._by_id.get(sid)
        if entry is None:
            entry = self._by_id[sid] = _Session()
        else:
            entry.last_seen = time.monotonic()
        return entry

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """A server middleware: remember each 2025-era session's latest `ServerSession`."""
        sid = session_id_of(ctx)
        if sid is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._entry(sid).session = ctx.session
        return await call_next(ctx)

    def clients(self) -> list[tuple[str, bool, float]]:
        """The AI apps seen, as the real host's `Clients()` lists them: (name and version as the app
        gave them at initialize, whether it listens for notifications, seconds since its last
        request), the latest first; requests without a session (the stateless path, the
        2026-07-28 era) as one "unnamed client (no session)"."""
        now = time.monotonic()
        found = []
        for entry in self._by_id.values():
            params = None if entry.session is None else entry.session.client_params
            if params is None:
                continue
            info = params.client_info
            name = f"{info.name} {info.version}".strip() or "unnamed client"
            found.append((name, entry.streams > 0, now - entry.last_seen))
        if self._stateless_seen is not None:
            found.append(("unnamed client (no session)", False, now - self._stateless_seen))
        return sorted(found, key=lambda client: client[2])

    def stateless_request(self) -> None:
        """A request came without a session."""
        self._stateless_seen = time.monotonic()

    def stream_opened(self, sid: str) -> None:
        self._entry(sid).streams += 1

    def stream_closed(self, sid: str) -> None:
        entry = self._entry(sid)
        entry.streams = max(0, entry.streams - 1)

    def forget(self, sid: str) -> None:
        """The client deleted its session."""
        self._by_id.pop(sid, None)

    def subscribe(self, sid: str | None, session: ServerSession, uri: str) -> None:
        if sid is not None:
            entry = self._entry(sid)
            entry.session = session
            entry.subscriptions.add(uri)

    def unsubscribe(self, sid: str | None, uri: str) -> None:
        if sid is not None and sid in self._by_id:
            self._by_id[sid].subscriptions.discard(uri)

    def subscribed(self, uri: str) -> bool:
        """Whether some session subscribed to `uri` (maybe one the package has reaped since)."""
        return any(uri in e.subscriptions for e in self._by_id.values())

    def live(self) -> list[tuple[ServerSession, frozenset[str]]]:
        """Sessions to notify; forgets those the package has reaped as idle (no request, no stream)."""
        now = time.monotonic()
        for sid in [s for s, e in self._by_id.items() if e.streams == 0 and now - e.last_seen > self._idle]:
            del self._by_id[sid]
        return [(e.session, frozenset(e.subscriptions)) for e in self._by_id.values() if e.session is not None]

    def __len__(self) -> int:
        return len(self._by_id)


class _CountedBus(InMemorySubscriptionBus):
    """The package's in-memory bus, counting its listeners (one per open listen stream)."""

    def __init__(self) -> None:
        super().__init__()
        self.listeners = 0

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        unsubscribe = super().subscribe(listener)
        self.listeners += 1
        subscribed = True

        def once() -> None:
            nonlocal subscribed
            if subscribed:
                subscribed = False
                self.listeners -= 1
            unsubscribe()

        return once


class Notifier:
    """Marks what may have changed and notifies every session whose view actually changed."""

    def __init__(self, host: Host, *, idle_timeout: float) -> None:
        self.host = host
        self.bus = _CountedBus()
        self.listen = ListenHandler(self.bus)
        self.sessions = Sessions(idle_timeout)
        self._dirty: set[str] = set()
        self._plugins_dirty: set[str] = set()
        """The plugins whose offered tools or card may have changed since the last flush."""
        self._all_dirty = False
        self._wakeup = anyio.Event()
        self._tools: dict[str, str] = {}
        """What each plugin offered when the sessions were last told, as a signature."""
        self._cards: dict[str, str] = {}
        """Each plugin's card when the plugins resource was last announced, as a signature."""
        self._tools[HOST_NAME] = self.tools_signature(HOST_NAME)
        self._versions: dict[str, int] = {}
        """Each resource's updates announced so far (a cache's `version`)."""

    def version(self, uri: str) -> int:
        return self._versions.get(uri, 0)

    def tools_signature(self, plugin: str) -> str:
        """The names of the plugin's listed tools: the real host tells of a change when the names
        listed change (`McpServer.NotifyIfToolsChanged`), not when a description or schema does."""
        offered = self.host.offered
        # XIV MCP's own tools come and go too: a module turned off, an integration's plugin leaving.
        tools = offered.core() if plugin == HOST_NAME else offered.of(plugin)
        return encode_json(sorted(tool.definition.name for tool in tools))

    def card_signature(self, plugin: str) -> str:
        reports = self.host.reports
        return encode_json(reports.card(plugin)) if reports.has(plugin) else ""

    def _look_again(self, plugins: set[str]) -> tuple[bool, bool]:
        """Take new signatures of `plugins`: (their offered tools changed, their cards changed).
        Work in proportion to those plugins' tools, not to every registration (B7)."""
        tools_changed = cards_changed = False
        for plugin in plugins:
            tools, card = self.tools_signature(plugin), self.card_signature(plugin)
            if self._tools.get(plugin, "[]") != tools:
                tools_changed = True
            if self._cards.get(plugin, "") != card:
                cards_changed = True
            if tools == "[]":
                self._tools.pop(plugin, None)
            else:
                self._tools[plugin] = tools
            if card:
                self._cards[plugin] = card
            else:
                self._cards.pop(plugin, None)
        return tools_changed, cards_changed

    def _everyone(self) -> set[str]:
        return {HOST_NAME, *self.host.reports.names(), *self._tools, *self._cards}

    def _mark(self, what: str) -> None:
        self._dirty.add(what)
        self._wakeup.set()

    def _host_changed(self, plugin: str | None) -> None:
        if plugin is None:
            self._all_dirty = True
        else:
            self._plugins_dirty.add(plugin)
        self._mark("plugins")

    def _audit_recorded(self, entry: AuditEntry) -> None:
        try:
            if not self.bus.listeners and not self.sessions.subscribed(AUDIT_URI):
                return  # nobody would hear of it: no work for each call
            self._mark(AUDIT_URI)
        except Exception:  # AuditLog.record does not guard its listeners
            log.exception("could not mark the audit resource as changed")

    def _job_changed(self, job: JobInfo) -> None:
        if self.bus.listeners or self.sessions.subscribed(JOBS_URI):  # else nobody would hear of it
            self._mark(JOBS_URI)

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Until cancelled: listen to the host, and notify on each change."""
        self._look_again(self._everyone())
        stop = [
            self.host.on_change(self._host_changed),
            self.host.audit.on_record(self._audit_recorded),
            self.host.on_job_change(self._job_changed),
        ]
        try:
            task_status.started()
            while True:
                await self._wakeup.wait()
                self._wakeup = anyio.Event()
                try:
                    await self._flush()
                except Exception:
                    log.exception("could not notify the MCP sessions of a change")
        finally:
            for unsubscribe in stop:
                unsubscribe()

    async def _flush(self) -> None:
        dirty, self._dirty = self._dirty, set()
        plugins, self._plugins_dirty = self._plugins_dirty, set()
        if self._all_dirty:
            self._all_dirty = False
            plugins = self._everyone()
        tools_changed, cards_changed = self._look_again(plugins) if "plugins" in dirty else (False, False)
        if tools_changed:
            await self.bus.publish(ToolsListChanged())
            for session, _ in self.sessions.live():
                await _quietly(session.send_tool_list_changed())
        if cards_changed:
            await self.resource_updated(PLUGINS_URI)
        if AUDIT_URI in dirty:
            await self.resource_updated(AUDIT_URI)
        if JOBS_URI in dirty:
            await self.resource_updated(JOBS_URI)

    async def resource_updated(self, uri: str) -> None:
        self._versions[uri] = self._versions.get(uri, 0) + 1
        await self.bus.publish(ResourceUpdated(uri=uri))
        for session, subscriptions in self.sessions.live():
            if uri in subscriptions:
                await _quietly(session.send_resource_updated(uri))

    def close(self) -> None:
        """End every listen stream gracefully (the host is stopping)."""
        self.listen.close()


async def _quietly(notification: Any) -> None:
    """Send a best-effort notification: a session that just went away must not stop the others."""
    try:
        await notification
    except Exception as exc:
        log.debug("a notification was not delivered: %s", exc)
