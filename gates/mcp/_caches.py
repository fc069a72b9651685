"""XIV MCP's caches as MCP resources, in the real host's shapes (F7, A9).

The real host (`XivMcp/Mcp/McpServer.Resources.cs` @b2eb72ad, `XivMcp/Util/Caches.cs` @38ab4774)
offers each snapshot cache as `xiv://cache/<id>`:

    resources/list         {uri, name: id, title, description + " Subscribe to get notified …", mimeType}
    resources/read         one JSON text {cache, version, entries, data}, under the cache's own URI
    resources/subscribe    a session's (2025 era); without one -32602 "Subscriptions need a session: …"
    an unknown one         -32002 "Resource not found: {uri}"

A URI names a cache by its id, case-insensitively, with or without the `xiv://cache/` prefix and
with any slashes around it (`CacheRegistry.Get`).

The real host's caches are snapshots of the game (retainers, submersibles, the saddlebag and FC
chest, the glamour dresser). The simulator's are its own: the plugins as /xivmcp shows them, the
audit log's tail and the jobs, each saying so in its description. They are live, so `entries`
(the real host's per-character capture times) is empty; `version` counts the updates announced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError

from gates.contract import encode_json
from gates.host import Host, job_summary

from ._notify import AUDIT_URI, CACHE_PREFIX, JOBS_URI, PLUGINS_URI, Notifier, session_id_of

__all__ = ["AUDIT_TAIL", "CACHES", "RESOURCE_NOT_FOUND", "Cache", "CacheResources", "find_cache"]

AUDIT_TAIL: Final = 100
RESOURCE_NOT_FOUND: Final = -32002
NEEDS_A_SESSION: Final = "Subscriptions need a session: send the Mcp-Session-Id header from initialize."
_SUBSCRIBE: Final = " Subscribe to get notified when the snapshot is refreshed."
_OURS: Final = " [This simulator's own cache: the real XIV MCP has no cache by this id.]"


@dataclass(frozen=True, slots=True)
class Cache:
    """One cache: its id (`xiv://cache/<id>`), title and description, as `ICache` has them."""

    id: str
    title: str
    description: str

    @property
    def uri(self) -> str:
        return CACHE_PREFIX + self.id


CACHES: Final = (
    Cache(
        "plugins", "Third-party plugins", "Third-party plugins as /xivmcp shows them: state, tools, capability modes."
    ),
    Cache("audit", "Audit log", f"The audit log's last {AUDIT_TAIL} entries: calls, decisions, approvals, consent."),
    Cache("jobs", "Background jobs", "The background jobs: id, name, state, the step they are at, why they wait."),
)
_BY_ID: Final = {cache.id.lower(): cache for cache in CACHES}
assert {cache.uri for cache in CACHES} == {PLUGINS_URI, AUDIT_URI, JOBS_URI}


def find_cache(uri: str) -> Cache:
    """The cache a URI (or bare id) names, as `CacheRegistry.Get` finds it; -32002 if none."""
    id_ = uri[len(CACHE_PREFIX) :] if uri.lower().startswith(CACHE_PREFIX) else uri
    cache = _BY_ID.get(id_.strip("/").lower())
    if cache is None:
        raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}")
    return cache


_UriParams = types.ReadResourceRequestParams | types.SubscribeRequestParams | types.UnsubscribeRequestParams


def _raw_uri(ctx: ServerRequestContext[Any], params: _UriParams) -> str:
    """The URI as the client sent it (the real host quotes it so in its refusal)."""
    raw = ctx.params.get("uri") if isinstance(ctx.params, dict) else None
    return raw if isinstance(raw, str) else params.uri


class CacheResources:
    """The resources handlers, over one host and the notifier that announces their updates."""

    def __init__(self, host: Host, notifier: Notifier) -> None:
        self.host = host
        self.notifier = notifier

    def listing(self) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=cache.uri,
                    name=cache.id,
                    title=cache.title,
                    description=cache.description + _OURS + _SUBSCRIBE,
                    mime_type="application/json",
                )
                for cache in CACHES
            ]
        )

    def _data(self, cache: Cache) -> Any:
        host = self.host
        if cache.uri == PLUGINS_URI:
            return host.reports.cards()
        if cache.uri == JOBS_URI:
            return [job_summary(job) for job in host.jobs.listing()]
        return host.audit.tail(AUDIT_TAIL)

    def read(self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        cache = find_cache(_raw_uri(ctx, params))
        document = {
            "cache": cache.id,
            "version": self.notifier.version(cache.uri),
            "entries": [],
            "data": self._data(cache),
        }
        text = encode_json(document)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=cache.uri, mime_type="application/json", text=text)]
        )

    def subscribe(
        self,
        ctx: ServerRequestContext[Any],
        params: types.SubscribeRequestParams | types.UnsubscribeRequestParams,
        on: bool,
    ) -> None:
        """`Subscribe`: a session is needed (checked before the URI, as the real host checks)."""
        sid = session_id_of(ctx)
        if sid is None:
            raise MCPError(types.INVALID_PARAMS, NEEDS_A_SESSION)
        cache = find_cache(_raw_uri(ctx, params))
        sessions = self.notifier.sessions
        if on:
            sessions.subscribe(sid, ctx.session, cache.uri)
        else:
            sessions.unsubscribe(sid, cache.uri)
