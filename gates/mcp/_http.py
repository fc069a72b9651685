"""The MCP endpoint on HTTP: the real host's front over the package's session managers, served by uvicorn (A1, F7).

    request ─► path ─┬─ /console, /console/…  the player's web console (`gates.console`), behind a
                     │                        guard of its own: a session from a one-time link,
                     │                        never the MCP token
                     ├─ /mcp, / (any trailing /)  `McpFront` (`_front.py`): Host, Origin, token,
                     │                        session, method, batches as the real host answers
                     │                        them; then the package: sessions (2025 era), the
                     │                        stateless path, the 2026-07-28 era; JSON responses
                     └─ anything else         404 "Not found. The MCP endpoint is /mcp"

A POST whose client goes away sets its ClientGone, and its calls are cancelled.

It binds the loopback interface only unless `allow_remote_http` says otherwise, and the token is
`DATA_DIR/token` (see `_settings.py`). uvicorn runs inside the host's task group, without its own
signal handling: `run_host` starts the endpoint after the gates and closes it before the host.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

import anyio
import anyio.abc
import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Router
from starlette.types import ASGIApp, Receive, Scope, Send

from gates.console import CONSOLE_PATH, Console
from gates.host import Host

from ._front import NOT_FOUND, McpFront, text_answer
from ._limits import HttpLimits, bounded_h11
from ._notify import Notifier
from ._server import build_server
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
SESSION_IDLE_SECONDS: Final = 12 * 60 * 60
"""A session not seen for this long is forgotten, as the real host forgets one (`StartSession`)."""


_ANY_ADDRESS: Final = ("0.0.0.0", "::")
_CONSOLE_NAMES: Final = ("127.0.0.1", "localhost", "[::1]")
"""The console answers only on this machine, whatever address the endpoint binds."""


def _origins_and_hosts(bind_host: str, port: int) -> tuple[list[str], list[str]]:
    """The Host headers the endpoint accepts (this machine's names, with our port) and the exact
    Origins it takes beside the local ones (`is_local_origin`): the bound address's, when remote."""
    names = ["127.0.0.1", "localhost"] if is_loopback(bind_host) or bind_host in _ANY_ADDRESS else []
    if bind_host not in names and bind_host not in _ANY_ADDRESS:
        names.append(f"[{bind_host}]" if ":" in bind_host else bind_host)
    hosts = [f"{name}:{port}" for name in names]
    origins = [f"http://{name}" for name in names] + [f"http://{host}" for host in hosts]
    return origins, hosts


class _Paths:
    """Which app answers a path: the console under its own path, the MCP front at `/mcp` and `/`
    (the real host's `path is "/mcp" or ""` once trailing slashes are trimmed), else the real
    host's 404. A path under /console never reaches the front, with or without the console's key."""

    def __init__(self, front: McpFront, console: ASGIApp, lifespan: ASGIApp) -> None:
        self._front = front
        self._console = console
        self._lifespan = lifespan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if path == CONSOLE_PATH or path.startswith(CONSOLE_PATH + "/"):
            await self._console(scope, receive, send)
        elif path.rstrip("/") in (MCP_PATH, ""):
            await self._front(scope, receive, send)
        else:
            await text_answer(404, NOT_FOUND)(send)


def _lifespan(*managers: StreamableHTTPSessionManager) -> ASGIApp:
    """The app's lifespan: the session managers run while it serves."""

    @contextlib.asynccontextmanager
    async def running(_: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            yield

    return Starlette(lifespan=running)


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
        notifier = Notifier(host, idle_timeout=SESSION_IDLE_SECONDS)
        server_app = build_server(host, notifier)
        # Host and Origin are the front's to judge (as the real host judges Origin); the package's
        # own check would refuse the local origins the real host serves.
        unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        sessions = StreamableHTTPSessionManager(
            app=server_app, json_response=True, security_settings=unchecked, session_idle_timeout=SESSION_IDLE_SECONDS
        )
        stateless = StreamableHTTPSessionManager(
            app=server_app, json_response=True, security_settings=unchecked, stateless=True
        )
        front = McpFront(
            sessions,
            stateless,
            token=None if config.auth_disabled else token,
            # Bound to every interface (--allow-remote-http), the names other machines use are
            # unknown, so the Host check is off; the token and Origin still hold.
            hosts=None if config.http_host in _ANY_ADDRESS else frozenset(hosts),
            origins=frozenset(origins),
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
        app = _Paths(front, Router(routes=[console.route]), _lifespan(sessions, stateless))
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
