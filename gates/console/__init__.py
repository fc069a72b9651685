"""The player's web console: the game's `/xivmcp` window as pages, beside the MCP endpoint.

`xivmcp console` asks the host for a one-time link (proving the player key over the bus, as every
player command); the link logs a browser in with a session cookie, and the pages then show and
change what the window does: the third-party plugins' cards, the approval windows with their
countdown, XIV MCP's modules, the jobs, the audit log, the simulated game, the Connect and Info
tabs. Every panel is read, and every button acts, through the player's typed protocol
(`gates.player`), answered by the same desk as the command line (`gates.host.PlayerDesk`); the
page follows the host's changes by server-sent events.

    _guard      loopback, Host, Origin, no bearer token, session cookie, CSP (the defences)
    _sessions   tickets become sessions; the CSRF token
    _views      the routes;  _panels  each tab's values;  _actions  each button's command
    _live       which panels changed, for every open page
    templates/  Jinja2, escaping everything;  static/  htmx (vendored, hash pinned), script, style

It lives in the host's process and knows the host; it knows no bus socket (the host's API only).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Final

import anyio.abc
from starlette.routing import Mount, Router

from gates.host import Host, PlayerDesk

from ._guard import SECURITY_HEADERS, ConsoleGuard
from ._live import LiveHub
from ._sessions import Sessions, cookie_name
from ._views import CSRF_HEADER, ConsoleViews

__all__ = ["CONSOLE_PATH", "CSRF_HEADER", "SECURITY_HEADERS", "Console", "cookie_name"]

CONSOLE_PATH: Final = "/console"


class Console:
    """The console of one host: mount `route` in the endpoint's app, `close` before it stops."""

    def __init__(
        self,
        host: Host,
        task_group: anyio.abc.TaskGroup,
        *,
        port: int,
        hosts: list[str],
        origins: list[str],
        mcp_url: str,
        apps: Callable[[], list[tuple[str, bool, float]]] = list,
    ) -> None:
        """`apps` tells which AI apps have an MCP session now (name, listening, seconds since their
        last request), for the Connect tab."""
        self.sessions = Sessions()
        self.hub = LiveHub(host)
        self.cookie = cookie_name(port)
        self.base = f"{CONSOLE_PATH}/{secrets.token_urlsafe(16)}"
        """Where the pages are: a key drawn at each start (see `_views`), the session cookie's path."""
        self.views = ConsoleViews(
            host,
            PlayerDesk(host, task_group),
            self.sessions,
            self.hub,
            cookie=self.cookie,
            mcp_url=mcp_url,
            base=self.base,
        )
        self.views.panels.apps = apps
        guarded = ConsoleGuard(
            Router(routes=self.views.routes()),
            sessions=self.sessions,
            cookie=self.cookie,
            hosts=hosts,
            origins=origins,
        )
        self.route = Mount(CONSOLE_PATH, app=guarded)

    def close(self) -> None:
        """End the pages' event streams (the endpoint is going down)."""
        self.hub.close()
