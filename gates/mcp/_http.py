"""The MCP endpoint on HTTP: the package's session manager in a small Starlette app, served by uvicorn (A1).

    request ─► Guard ─► Origin (403) ─► bearer token (401, hmac) ─► session manager
                  │                                                   └─ Host header (421), sessions,
                  │                                                      JSON responses, both eras
                  └─ a POST whose client goes away: sets its ClientGone, and its calls are cancelled

Beside it, `/console` serves the player's web console (`gates.console`), behind a guard of its own:
a session from a one-time link, never the MCP token.

It binds the loopback interface only unless `allow_remote_http` says otherwise, and the token is
`DATA_DIR/token` (see `_settings.py`). uvicorn runs inside the host's task group, without its own
signal handling: `run_host` starts the endpoint after the gates and closes it before the host.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import socket
from dataclasses import dataclass
from typing import Final

import anyio
import anyio.abc
import uvicorn
from mcp.server.streamable_http_manager import (
    DEFAULT_SESSION_IDLE_TIMEOUT,
    StreamableHTTPASGIApp,
    StreamableHTTPSessionManager,
)
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gates.console import Console
from gates.host import Host

from ._limits import HttpLimits, bounded_h11
from ._notify import SESSION_HEADER, Notifier, Sessions
from ._server import CLIENT_GONE, ClientGone, build_server
from ._settings import (
    MCP_PATH,
    EndpointError,
    McpSettings,
    TokenFile,
    check_bind_address,
    is_loopback,
    mcp_url,
    taken_message,
)

__all__ = ["HttpLimits", "McpEndpoint", "uvicorn_server"]

log = logging.getLogger("gates.mcp")

SHUTDOWN_SECONDS: Final = 3.0


_ANY_ADDRESS: Final = ("0.0.0.0", "::")
_CONSOLE_NAMES: Final = ("127.0.0.1", "localhost", "[::1]")
"""The console answers only on this machine, whatever address the endpoint binds."""


def _origins_and_hosts(bind_host: str, port: int) -> tuple[list[str], list[str]]:
    """The Origin values and Host headers the endpoint accepts: this machine's names, with our port."""
    names = ["127.0.0.1", "localhost"] if is_loopback(bind_host) or bind_host in _ANY_ADDRESS else []
    if bind_host not in names and bind_host not in _ANY_ADDRESS:
        names.append(f"[{bind_host}]" if ":" in bind_host else bind_host)
    hosts = [f"{name}:{port}" for name in names]
    origins = [f"http://{name}" for name in names] + [f"http://{host}" for host in hosts]
    return origins, hosts


def _security(bind_host: str, hosts: list[str], origins: list[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection: only our Host headers. Bound to every interface (--allow-remote-http),
    the names other machines use are unknown, so the Host check is off; the token and Origin still hold."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=bind_host not in _ANY_ADDRESS, allowed_hosts=hosts, allowed_origins=origins
    )


class _Guard:
    """Origin and bearer token first; then watch each POST's client, and track GET streams and DELETEs."""

    def __init__(self, app: ASGIApp, *, token: TokenFile | None, origins: list[str], sessions: Sessions) -> None:
        self.app = app
        self._token = token
        self._origins = frozenset(origins)
        self._sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is not None and origin not in self._origins:
            response = _refuse(403, "forbidden_origin", f"Requests from {origin[:100]} are not allowed.")
            await response(scope, receive, send)
            return
        if self._token is not None and not self._authorized(headers.get("authorization")):
            response = _refuse(
                401, "unauthorized", "Send the header 'Authorization: Bearer TOKEN' (see `xivmcp connect`)."
            )
            response.headers["WWW-Authenticate"] = 'Bearer realm="xivmcp"'
            await response(scope, receive, send)
            return
        sid = headers.get(SESSION_HEADER)
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send)
        elif method == "GET" and sid is not None:
            self._sessions.stream_opened(sid)
            try:
                await self.app(scope, receive, send)
            finally:
                self._sessions.stream_closed(sid)
        else:
            await self.app(scope, receive, send)
            if method == "DELETE" and sid is not None:
                self._sessions.forget(sid)

    def _authorized(self, header: str | None) -> bool:
        assert self._token is not None
        scheme, _, credentials = (header or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(credentials.strip().encode(), self._token.current())

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body, then serve it while watching for the client to go away (uvicorn does not cancel)."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > DEFAULT_MAX_REQUEST_BODY_SIZE:
                await _refuse(413, "too_large", "The request body is too large.")(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        gone = ClientGone()
        scope[CLIENT_GONE] = gone
        pending: list[Message] = [{"type": "http.request", "body": bytes(body), "more_body": False}]

        async def replay() -> Message:
            if pending:
                return pending.pop()
            await gone.wait()
            return {"type": "http.disconnect"}

        # uvicorn tells only a task that awaits receive() that the client went away. A plain
        # asyncio task (uvicorn runs on asyncio), cancelled without waiting for it: a task group
        # would cost each request more than the call it serves (its cancellation takes extra turns
        # of the loop). The watcher touches nothing but `gone`, so it may outlive us for a turn.
        watcher = asyncio.get_running_loop().create_task(_watch(receive, gone))
        try:
            await self.app(scope, replay, send)
        finally:
            watcher.cancel()


async def _watch(receive: Receive, gone: ClientGone) -> None:
    try:
        while (await receive())["type"] != "http.disconnect":
            pass
    except Exception as exc:  # nobody awaits this task: say it here, and take the client for gone
        log.debug("watching a POST's client failed: %r", exc)
    gone.set()


def _refuse(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "error_description": message}, status_code=status)


def uvicorn_server(app: ASGIApp, *, lifespan: str, limits: HttpLimits | None = None) -> uvicorn.Server:
    """uvicorn as the endpoint runs it: h11 with the endpoint's bounds (S5, `_limits.py`), no access
    log, no signal handling of its own.

    `bench/mcp.py` serves its baseline (the package's own server) with this too, so the two are
    measured on the same HTTP server settings.
    """
    limits = limits or HttpLimits()
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan=lifespan,  # type: ignore[arg-type]
        http=bounded_h11(limits),
        limit_concurrency=limits.max_connections + 1,  # uvicorn counts the connection that asks, too
        ws="none",
        proxy_headers=False,
        server_header=False,
        date_header=False,
        timeout_graceful_shutdown=1,
    )
    config.load()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)  # what `serve` would set; startup() needs it
    return server


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say they are
    # TCP; without it every response waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


@dataclass(slots=True)
class McpEndpoint:
    """A running endpoint: its URL, and how to stop it."""

    url: str
    server: uvicorn.Server
    sock: socket.socket
    notifier: Notifier
    scope: anyio.CancelScope
    console: Console

    @classmethod
    async def start(cls, host: Host, config: McpSettings, task_group: anyio.abc.TaskGroup) -> McpEndpoint:
        """Bind and serve in `task_group`; `EndpointError` if the address is taken (S5: never run without it)."""
        check_bind_address(config.http_host, allow_remote=config.allow_remote_http, auth_disabled=config.auth_disabled)
        token = TokenFile(host.config.data_dir)  # made on first start; `xivmcp token rotate` takes effect at once
        try:
            sock = _bind(config.http_host, config.http_port)
        except OSError as exc:
            raise EndpointError(taken_message(config.http_host, config.http_port, exc)) from exc
        port = sock.getsockname()[1]
        origins, hosts = _origins_and_hosts(config.http_host, port)
        notifier = Notifier(host, idle_timeout=DEFAULT_SESSION_IDLE_TIMEOUT)
        manager = StreamableHTTPSessionManager(
            app=build_server(host, notifier),
            json_response=True,
            security_settings=_security(config.http_host, hosts, origins),
            session_idle_timeout=DEFAULT_SESSION_IDLE_TIMEOUT,
        )
        guarded = _Guard(
            StreamableHTTPASGIApp(manager),
            token=None if config.auth_disabled else token,
            origins=origins,
            sessions=notifier.sessions,
        )
        url = mcp_url(config.http_host, port)
        console = Console(
            host,
            task_group,
            port=port,
            hosts=[f"{name}:{port}" for name in _CONSOLE_NAMES],
            origins=[f"http://{name}:{port}" for name in _CONSOLE_NAMES],
            mcp_url=url,
            apps=notifier.sessions.clients,
        )
        # The console has its own guard (session cookie, CSRF): the MCP token never opens it.
        app = Starlette(routes=[Route(MCP_PATH, guarded), console.route], lifespan=lambda _: manager.run())
        server = uvicorn_server(app, lifespan="on")
        try:
            await server.startup(sockets=[sock])
        except BaseException:
            console.close()
            sock.close()
            raise
        endpoint = cls(url, server, sock, notifier, anyio.CancelScope(), console)
        await task_group.start(endpoint._notify)
        return endpoint

    async def _notify(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        with self.scope:
            await self.notifier.run(task_status=task_status)

    async def aclose(self) -> None:
        """Stop serving: take no new connections, end the sessions (so their event streams end),
        then let uvicorn close what is left."""
        with anyio.move_on_after(SHUTDOWN_SECONDS, shield=True):
            for listener in self.server.servers:
                listener.close()
            self.notifier.close()  # 2026-07-28 listen streams end gracefully
            self.console.close()  # and the console pages' event streams
            self.scope.cancel()
            await self.server.lifespan.shutdown()  # the session manager ends every session
            await self.server.shutdown(sockets=[self.sock])
        self.sock.close()
