"""The MCP endpoint's HTTP front: each request answered as the real host's listener answers it (F7).

The real host (`XivMcp/Mcp/McpServer.cs` @b0e2678c, `HandleHttp`; `McpServer.Resources.cs`
@b2eb72ad, `OpenEventStream`) checks, in this order, and so does this front:

    path     anything but /mcp or / (trailing slashes aside)   404 "Not found. The MCP endpoint is /mcp"
    Host     not this machine's name with our port (S5 here)   421 "Invalid Host header"
    Origin   present and not loopback or localhost, any port   403 "Forbidden origin"
    token    no "Bearer TOKEN"                                 401 "Missing or invalid bearer token. …"
    session  an Mcp-Session-Id that names no session           404 "Unknown session; initialize again."
    method   GET without a session or an event-stream Accept   405 "GET needs an Mcp-Session-Id header …"
             DELETE without a session                          200 (nothing to end)
             anything but GET, POST, DELETE                    405 "Method not allowed"
    POST     a body over 4 MiB (S5 here)                       413
             not JSON                                          400, JSON-RPC -32700 "Parse error: …"
             a JSON-RPC batch                                  each message in turn; 202 if none answers

Sessions are optional: `initialize` opens one (its answer names it in Mcp-Session-Id), and a
request without the header is served statelessly. `Accept` and `Content-Type` are not checked on
POST. Every answer says `Cache-Control: no-store`; the front's own answers are text/plain.

What each message means is the official `mcp` package's: a session (the initialize handshake,
2025-era), the stateless path, or the 2026-07-28 era, each through its session manager. The front
gives the package what its transport asks for (the Accept and Content-Type it requires, the Host
and Origin it checks already judged here) and keeps the packages's answers, one message at a time.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final
from urllib.parse import urlsplit

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from ._notify import SESSION_HEADER, Sessions
from ._server import CLIENT_GONE, ClientGone
from ._settings import TokenFile

__all__ = [
    "BAD_TOKEN",
    "FORBIDDEN_ORIGIN",
    "GET_NEEDS_A_SESSION",
    "NOT_FOUND",
    "UNKNOWN_SESSION",
    "McpFront",
    "is_local_origin",
    "text_answer",
]

log = logging.getLogger("gates.mcp")

NOT_FOUND: Final = "Not found. The MCP endpoint is /mcp"
FORBIDDEN_ORIGIN: Final = "Forbidden origin"
BAD_TOKEN: Final = "Missing or invalid bearer token. See the XIV MCP settings window (/xivmcp)."
UNKNOWN_SESSION: Final = "Unknown session; initialize again."
GET_NEEDS_A_SESSION: Final = "GET needs an Mcp-Session-Id header and Accept: text/event-stream"
METHOD_NOT_ALLOWED: Final = "Method not allowed"
INVALID_HOST: Final = "Invalid Host header"
TOO_LARGE: Final = "Request body too large"

_JSON: Final = b"application/json; charset=utf-8"
_PROTOCOL_HEADER: Final = "mcp-protocol-version"
_LOOPBACK_NAMES: Final = frozenset({"localhost", "loopback"})
"""Host names .NET's `Uri.IsLoopback` takes for loopback (with 127.0.0.0/8 and ::1)."""


def is_local_origin(origin: str) -> bool:
    """Whether an Origin is one the real host serves (`IsLocalOrigin`): an absolute URI whose host
    is a loopback address or `localhost`, whatever its scheme and port."""
    try:
        parts = urlsplit(origin)
        host = parts.hostname
        _ = parts.port  # a port that is not one makes the URI invalid, as it does for .NET
    except ValueError:
        return False
    if not parts.scheme or host is None:
        return False
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def text_answer(status: int, text: str, headers: dict[str, str] | None = None) -> Callable[[Send], Awaitable[None]]:
    """The real host's `WriteText`: text/plain in UTF-8, not to be cached."""
    body = text.encode()
    raw = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *((name.lower().encode(), value.encode()) for name, value in (headers or {}).items()),
    ]

    async def answer(send: Send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": body})

    return answer


async def _json_answer(send: Send, status: int, value: Any, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    raw = [(b"content-type", _JSON), (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": status, "headers": [*raw, *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


async def _empty_answer(send: Send, status: int) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": b""})


def _error(id_: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error as the real host writes it (`Error`): the id (null if none), code and message."""
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _no_store(send: Send) -> Send:
    """`send`, with the real host's `Cache-Control: no-store` (unless the answer set its own) and
    its JSON media type, on the package's answers."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"content-type"]
            for key, value in message.get("headers", []):
                if key.lower() == b"content-type":
                    headers.append((b"content-type", _JSON if value == b"application/json" else value))
            if not any(k.lower() == b"cache-control" for k, _ in headers):
                headers.append((b"cache-control", b"no-store"))
            message = {**message, "headers": headers}
        await send(message)

    return sending


class _Captured:
    """What the package answered to one message of a batch."""

    def __init__(self) -> None:
        self.status = 0
        self.session: str | None = None
        self.body = bytearray()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            for key, value in message.get("headers", []):
                if key.lower() == SESSION_HEADER.encode():
                    self.session = value.decode("latin-1")
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")

    def reply(self) -> Any:
        """The JSON-RPC answer, or None when the message needed none (202)."""
        if self.status == 202 or not self.body:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return _error(None, -32603, "Internal error")


class McpFront:
    """The MCP endpoint's ASGI app for its paths (`/mcp`, `/`); see the module docstring."""

    def __init__(
        self,
        sessions_manager: StreamableHTTPSessionManager,
        stateless_manager: StreamableHTTPSessionManager,
        *,
        token: TokenFile | None,
        hosts: frozenset[str] | None,
        origins: frozenset[str],
        sessions: Sessions,
    ) -> None:
        """`hosts`: the Host headers served (None: any, for an endpoint bound to every interface);
        `origins`: exact origins served beside the local ones (the bound address's, when remote)."""
        self._stateful = sessions_manager
        self._stateless = stateless_manager
        self._token = token
        self._hosts = hosts
        self._origins = origins
        self._sessions = sessions

    def _is_session(self, sid: str) -> bool:
        # The package's own table of the sessions it keeps: the one truth of which ids it still serves.
        return sid in self._stateful._server_instances

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if self._hosts is not None and headers.get("host") not in self._hosts:
            await text_answer(421, INVALID_HOST)(send)
            return
        origin = headers.get("origin")
        if origin and origin not in self._origins and not is_local_origin(origin):
            await text_answer(403, FORBIDDEN_ORIGIN)(send)
            return
        if self._token is not None and not self._authorized(headers.get("authorization")):
            await text_answer(401, BAD_TOKEN, {"WWW-Authenticate": "Bearer"})(send)
            return
        sid = headers.get(SESSION_HEADER) or None
        if sid is not None and not self._is_session(sid):
            await text_answer(404, UNKNOWN_SESSION)(send)
            return
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send, sid)
        elif method == "GET":
            if sid is None or "text/event-stream" not in headers.get("accept", "").lower():
                await text_answer(405, GET_NEEDS_A_SESSION, {"Allow": "POST, DELETE"})(send)
                return
            self._sessions.stream_opened(sid)
            try:
                await self._stateful.handle_request(_for_package(scope, post=False), receive, _no_store(send))
            finally:
                self._sessions.stream_closed(sid)
        elif method == "DELETE":
            if sid is None:
                await _empty_answer(send, 200)
                return
            await self._stateful.handle_request(_for_package(scope, post=False), receive, _no_store(send))
            self._sessions.forget(sid)
        else:
            await text_answer(405, METHOD_NOT_ALLOWED, {"Allow": "GET, POST, DELETE"})(send)

    def _authorized(self, header: str | None) -> bool:
        assert self._token is not None
        value = header or ""
        if value[:7].lower() != "bearer ":
            return False
        return hmac.compare_digest(value[7:].strip().encode(), self._token.current())

    async def _post(self, scope: Scope, receive: Receive, send: Send, sid: str | None) -> None:
        """Read the body, then serve it while watching for the client to go away (uvicorn does not cancel)."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > DEFAULT_MAX_REQUEST_BODY_SIZE:
                await text_answer(413, TOO_LARGE)(send)
                return
            if not message.get("more_body", False):
                break
        if sid is None:
            self._sessions.stateless_request()
        try:
            parsed = json.loads(bytes(body).decode("utf-8", errors="replace"))
        except ValueError as exc:
            await _json_answer(send, 400, _error(None, -32700, f"Parse error: {exc}"))
            return
        gone = ClientGone()
        # uvicorn tells only a task that awaits receive() that the client went away. A plain
        # asyncio task (uvicorn runs on asyncio), cancelled without waiting for it: a task group
        # would cost each request more than the call it serves (its cancellation takes extra turns
        # of the loop). The watcher touches nothing but `gone`, so it may outlive us for a turn.
        watcher = asyncio.get_running_loop().create_task(_watch(receive, gone))
        try:
            if isinstance(parsed, list):
                await self._batch(scope, send, sid, parsed, gone)
            else:
                await self._one(scope, send, sid, parsed, bytes(body), gone)
        finally:
            watcher.cancel()

    def _manager_for(self, scope: Scope, sid: str | None, method: str) -> StreamableHTTPSessionManager:
        """A session's messages and `initialize` (which opens one) go to the sessions; the
        2026-07-28 era to the package's entry for it (the same manager routes it); the rest, sent
        without a session, are served statelessly."""
        version = Headers(scope=scope).get(_PROTOCOL_HEADER)
        modern = version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS
        return self._stateful if sid is not None or method == "initialize" or modern else self._stateless

    async def _one(
        self, scope: Scope, send: Send, sid: str | None, message: Any, body: bytes, gone: ClientGone
    ) -> None:
        if not isinstance(message, dict):
            await _json_answer(send, 200, _error(None, -32600, "Invalid request"))
            return
        method = message.get("method")
        if method is None and "result" not in message and "error" not in message:
            await _empty_answer(send, 202)  # nothing the real host would answer
            return
        if method is not None and not isinstance(method, str):
            await _empty_answer(send, 500)  # the real host fails reading it, before its handler
            return
        manager = self._manager_for(scope, sid, method or "")
        await manager.handle_request(_for_package(scope, post=True, gone=gone), _replay(body, gone), _no_store(send))

    async def _batch(self, scope: Scope, send: Send, sid: str | None, batch: list[Any], gone: ClientGone) -> None:
        """Each message in turn, as the real host does; their answers as one JSON array."""
        replies: list[Any] = []
        opened: str | None = None
        for message in batch:
            if gone.is_set:
                return
            captured = _Captured()
            body = json.dumps(message).encode()
            await self._one(scope, captured.send, sid, message, body, gone)
            reply = captured.reply()
            if reply is not None:
                replies.append(reply)
            if isinstance(message, dict) and message.get("method") == "initialize" and captured.session:
                opened = captured.session
        if not replies:
            await _empty_answer(send, 202)
            return
        extra = [] if opened is None else [(SESSION_HEADER.encode(), opened.encode())]
        await _json_answer(send, 200, replies, extra)


def _for_package(scope: Scope, *, post: bool, gone: ClientGone | None = None) -> Scope:
    """The request as the package's transport wants it: a POST accepting JSON and saying it sends
    JSON (the real host checks neither), an empty session header dropped (no session)."""
    skip = {b"accept", b"content-type"} if post else set()
    headers = [
        (key, value)
        for key, value in scope["headers"]
        if key.lower() not in skip and not (key.lower() == SESSION_HEADER.encode() and not value.strip())
    ]
    if post:
        headers += [(b"accept", b"application/json, text/event-stream"), (b"content-type", b"application/json")]
    made = {**scope, "headers": headers}
    if gone is not None:
        made[CLIENT_GONE] = gone
    return made


def _replay(body: bytes, gone: ClientGone) -> Receive:
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        await gone.wait()
        return {"type": "http.disconnect"}

    return replay


async def _watch(receive: Receive, gone: ClientGone) -> None:
    try:
        while (await receive())["type"] != "http.disconnect":
            pass
    except Exception as exc:  # nobody awaits this task: say it here, and take the client for gone
        log.debug("watching a POST's client failed: %r", exc)
    gone.set()
