"""What stands before every console page: the defences a web page on this machine needs.

    request ─► loopback client? (403) ─► our Host header? (421, DNS rebinding) ─► no bearer token (403)
            ─► a session cookie, but for the login link and the static files (401)
            ─► a change (POST): exactly our Origin (403); its CSRF token is checked with the form
    response ◄─ Content-Security-Policy: default-src 'self'; frame-ancestors 'none', nosniff, no-store, no referrer

The assistant's bearer token never opens the console: an AI app that could approve its own calls
would make every approval meaningless. A request that carries one is refused, whatever else it has.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Final

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._sessions import ConsoleSession, Sessions

__all__ = ["SECURITY_HEADERS", "SESSION_KEY", "ConsoleGuard", "session_of"]

log = logging.getLogger("gates.console")

SESSION_KEY: Final = "xivmcp.console.session"
"""Where the guard leaves the request's session in the ASGI scope."""
CSP: Final = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
SECURITY_HEADERS: Final = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
"""On every console response, refusals included."""
_OPEN_PATHS: Final = ("/login", "/static/")
"""Under the console's path: what a browser without a session may fetch."""
_SAFE_METHODS: Final = ("GET", "HEAD")


def session_of(scope: Scope) -> ConsoleSession:
    """The session the guard let in (only on a path that needs one)."""
    session = scope[SESSION_KEY]
    assert isinstance(session, ConsoleSession)
    return session


def _is_loopback(client: tuple[str, int] | None) -> bool:
    if client is None:
        return False
    try:
        return ipaddress.ip_address(client[0].split("%")[0]).is_loopback
    except ValueError:
        return False


class ConsoleGuard:
    """ASGI middleware of the console's mount; `hosts` and `origins` are this machine's names with our port."""

    def __init__(
        self, app: ASGIApp, *, sessions: Sessions, cookie: str, hosts: list[str], origins: list[str]
    ) -> None:
        self.app = app
        self._sessions = sessions
        self._cookie = cookie
        self._hosts = frozenset(hosts)
        self._origins = frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        started = False

        async def secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, secured)
            return
        try:
            await self.app(scope, receive, secured)
        except Exception as exc:  # a bug here: one line for the page, the traceback for the host's log
            log.exception("the console failed answering %s %s", scope["method"], scope.get("path"))
            if started:
                raise
            failed = _refuse(500, f"XIV MCP failed answering this ({type(exc).__name__}: {exc}); its log says more.")
            await failed(scope, receive, secured)

    def _refusal(self, scope: Scope) -> PlainTextResponse | None:
        headers = Headers(scope=scope)
        if not _is_loopback(scope.get("client")):
            return _refuse(403, "The console answers only on this machine (127.0.0.1): open it there.")
        if headers.get("host") not in self._hosts:
            return _refuse(421, "Open the console at the address `xivmcp console` prints (127.0.0.1 or localhost).")
        if "authorization" in headers:
            return _refuse(
                403,
                "The console does not take the assistant's token (the AI must not approve its own calls): "
                "open it with the link `xivmcp console` prints.",
            )
        method = scope["method"]
        if method not in _SAFE_METHODS and headers.get("origin") not in self._origins:
            return _refuse(403, "A change to XIV MCP must come from the console's own page (its Origin did not match).")
        path = scope.get("path", "")[len(scope.get("root_path", "")) :]
        if any(path.startswith(open_path) for open_path in _OPEN_PATHS):
            return None
        session = self._sessions.find(_cookie_value(headers, self._cookie))
        if session is None:
            return _refuse(
                401, "Not logged in: run `xivmcp console --open` (or open the link it prints; each link works once)."
            )
        scope[SESSION_KEY] = session
        return None


def _cookie_value(headers: Headers, name: str) -> str | None:
    for header in headers.getlist("cookie"):
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
    return None


def _refuse(status: int, message: str) -> PlainTextResponse:
    return PlainTextResponse(message + "\n", status_code=status)
