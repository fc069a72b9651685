"""The console's pages and actions: Starlette routes under `/console`, behind `ConsoleGuard`.

    GET  /console/login?ticket=…   one-time link (`xivmcp console`) → session cookie → BASE/
    GET  /console/static/…         the page's script, style and htmx (vendored, no CDN)

and under BASE, `/console/` and a random key the host draws at start (`Console.base`):

    GET  BASE/                     the whole page, one tab (`?tab=plugins`)
    GET  BASE/panel/{tab}          one tab's panel (what the page fetches when the host changes)
    GET  BASE/approvals            the approval windows waiting
    GET  BASE/plugin/{p}/tools/{capability}   one capability row's tools (fetched when opened)
    GET  BASE/events               server-sent events: which panels changed (`LiveHub`)
    GET  BASE/game.png             the simulated game window, drawn now
    POST BASE/act/{action}         one of the player's commands (`_actions.ACTIONS`)
    POST BASE/self-test            XIV MCP's self-test, as run_self_test runs it
    POST BASE/logout

The session cookie's path is BASE. Browsers send a cookie to every port of a host, so without the
key a page another local user serves on 127.0.0.1:OTHER_PORT could have the player's browser send
it the cookie of `/console`; it cannot name a path it does not know.

A change answers htmx with the panel it changed (and the host's message); without script, a
plain form post is answered with a redirect back to its tab.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gates.contract import RefusedError, find_capability
from gates.host import Host, PlayerDesk, screen_png
from gates.player import ShowPlugin

from ._actions import command_of
from ._guard import session_of
from ._live import LiveHub
from ._panels import SIMULATOR_TABS, TABS, Panels, capability_rows, version
from ._sessions import Sessions

__all__ = ["CSRF_HEADER", "ConsoleViews"]

CSRF_HEADER: Final = "x-csrf-token"
"""The header htmx sends the session's CSRF token in (`hx-headers` on the page's body)."""
CSRF_FIELD: Final = "csrf"
"""The same token as a hidden form field, for a browser without script."""
STATIC_DIR: Final = Path(__file__).parent / "static"
_TAB_NAMES: Final = frozenset(name for name, _ in TABS)
DEFAULT_TAB: Final = "plugins"
PING_SECONDS: Final = 15


def _risk_of(capability_id: str) -> str:
    capability = find_capability(capability_id)
    return "" if capability is None else capability.risk.name


def templates() -> Environment:
    """The console's templates: every value escaped (plugin text is the plugin author's, S3)."""
    env = Environment(
        loader=PackageLoader("gates.console", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["capability"] = find_capability
    env.filters["risk_of"] = _risk_of
    env.filters["brief_json"] = _brief_json
    return env


def _brief_json(value: object, limit: int = 200) -> str:
    """A value as JSON, cut at `limit` characters: plain text, which the template escapes."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConsoleViews:
    """The route handlers, over one host, its desk, the sessions and the live hub."""

    def __init__(
        self,
        host: Host,
        desk: PlayerDesk,
        sessions: Sessions,
        hub: LiveHub,
        *,
        cookie: str,
        mcp_url: str,
        base: str,
    ) -> None:
        self.base = base
        """Where the pages are (`/console/KEY`): the session cookie's path."""
        self.host = host
        self.desk = desk
        self.sessions = sessions
        self.hub = hub
        self.cookie = cookie
        self.panels = Panels(host, desk, mcp_url=mcp_url)
        self.env = templates()

    def routes(self) -> list[Route | Mount]:
        """The routes under `/console`: the login and the static files, then the pages under the key."""
        key = self.base.rsplit("/", 1)[1]
        return [
            Route("/login", self.login),
            Mount("/static", StaticFiles(directory=STATIC_DIR)),
            Mount(f"/{key}", routes=self.page_routes()),
        ]

    def page_routes(self) -> list[Route]:
        return [
            Route("/", self.page),
            Route("/panel/{tab}", self.panel),
            Route("/approvals", self.approvals),
            Route("/plugin/{plugin}/tools/{capability}", self.plugin_tools),
            Route("/events", self.events),
            Route("/game.png", self.game_png),
            Route("/act/{action}", self.act, methods=["POST"]),
            Route("/self-test", self.self_test, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
        ]

    # --- rendering -------------------------------------------------------------------------

    def render(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(self.env.get_template(template).render(**values), status_code=status)

    async def page_html(self, tab: str, query: dict[str, str], csrf: str, said: str | None = None) -> str:
        """The whole page of one tab (the benchmark times this)."""
        values = await self.panels.values(tab, query)
        approvals = await self.panels.approvals()
        return self.env.get_template("page.html").render(
            tabs=TABS,
            simulator_tabs=SIMULATOR_TABS,
            approvals=approvals.approvals,
            **{**self._common(tab, csrf, said, False, query), **values},
        )

    def _common(self, tab: str, csrf: str, said: str | None, failed: bool, query: dict[str, str]) -> dict[str, Any]:
        """What every template may use."""
        return {
            "tab": tab,
            "csrf": csrf,
            "said": said,
            "failed": failed,
            "query": query,
            "now_ms": _now_ms(),
            "test_clock": self.panels.host.config.test_clock,
            "version": version(),
            "mcp_url": self.panels.mcp_url,
            "base": self.base,
        }

    async def _panel_response(self, request: Request, tab: str, query: dict[str, str]) -> HTMLResponse:
        values = await self.panels.values(tab, query)
        csrf = session_of(request.scope).csrf
        return self.render(f"{tab}.html", **{**self._common(tab, csrf, None, False, query), **values})

    # --- pages -----------------------------------------------------------------------------

    async def page(self, request: Request) -> Response:
        tab = request.query_params.get("tab", DEFAULT_TAB)
        if tab not in _TAB_NAMES:
            tab = DEFAULT_TAB
        query = dict(request.query_params)
        html = await self.page_html(tab, query, session_of(request.scope).csrf, said=query.get("said"))
        return HTMLResponse(html)

    async def login(self, request: Request) -> Response:
        ticket = request.query_params.get("ticket", "")
        if not ticket or not self.host.console_tickets.redeem(ticket):
            return self.render(
                "refused.html",
                status=403,
                message="This console link was used already or is too old. Run `xivmcp console --open` for a new one.",
            )
        session = self.sessions.start()
        response = RedirectResponse(f"{self.base}/", status_code=303)
        response.set_cookie(self.cookie, session.id, httponly=True, samesite="strict", path=self.base)
        return response

    async def panel(self, request: Request) -> Response:
        tab = request.path_params["tab"]
        if tab == "approvals":
            return await self.approvals(request)
        if tab not in _TAB_NAMES:
            return self.render("refused.html", status=404, message=f"The console has no tab {tab!r}.")
        return await self._panel_response(request, tab, dict(request.query_params))

    async def approvals(self, request: Request) -> HTMLResponse:
        report = await self.panels.approvals()
        common = self._common("approvals", session_of(request.scope).csrf, None, False, {})
        return self.render("approvals.html", approvals=report.approvals, **common)

    async def plugin_tools(self, request: Request) -> Response:
        """The tools of one capability row of a plugin's card: fetched when the player opens the
        row, so a page of a hundred plugins carries their cards, not their thousands of buttons."""
        plugin, capability = request.path_params["plugin"], request.path_params["capability"]
        try:
            view = await self.desk.answer(ShowPlugin(plugin=plugin))
        except RefusedError as exc:
            return self.render("refused.html", status=404, message=str(exc))
        row = next((r for r in capability_rows(view) if r.id == capability), None)
        if row is None:
            return self.render("refused.html", status=404, message=f"{plugin} declares no {capability!r}: reload.")
        common = self._common("plugins", session_of(request.scope).csrf, None, False, {})
        return self.render("tools.html", row=row, name=plugin, **common)

    async def events(self, request: Request) -> Response:
        if self.hub.full:  # 204: EventSource stops asking (a 200 that ends would be asked again)
            return Response(status_code=204)
        session = session_of(request.scope)
        stream = self.hub.events(lambda: self.sessions.alive(session), PING_SECONDS)
        return EventSourceResponse(stream, ping=PING_SECONDS, send_timeout=10)

    async def game_png(self, request: Request) -> Response:
        try:
            data = await screen_png(self.host.game)
        except RefusedError as exc:
            return self.render("refused.html", status=503, message=str(exc))
        return Response(data, media_type="image/png")

    # --- changes ---------------------------------------------------------------------------

    async def _form(self, request: Request) -> dict[str, str] | Response:
        """The form of a change, once its CSRF token is the session's; else the refusal."""
        form = await request.form()
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        sent = request.headers.get(CSRF_HEADER) or fields.get(CSRF_FIELD)
        if not session_of(request.scope).csrf_matches(sent):
            return self.render(
                "refused.html", status=403, message="This change did not come from your console page: reload it."
            )
        return fields

    async def act(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        failed = False
        try:
            reply = await self.desk.answer(command_of(request.path_params["action"], form))
            said = str(getattr(reply, "message", "Done."))
        except RefusedError as exc:
            said, failed = str(exc), True
        return await self._answered(request, form, said, failed)

    async def self_test(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        outcome = await self.host.core_tools.call("run_self_test", {})
        query = {"self_test": "1"}
        if outcome.ok:
            self.panels.last_self_test = outcome.result
            return await self._answered(request, {**form, "tab": "info"}, "Self-test finished.", False, query)
        return await self._answered(request, {**form, "tab": "info"}, str(outcome.error), True, query)

    async def _answered(
        self, request: Request, form: dict[str, str], said: str, failed: bool, query: dict[str, str] | None = None
    ) -> Response:
        tab = form.get("tab", DEFAULT_TAB)
        if "hx-request" not in request.headers:  # a plain form: back to its tab, with what was said
            target = tab if tab in _TAB_NAMES else DEFAULT_TAB
            return RedirectResponse(f"{self.base}/?" + urlencode({"tab": target, "said": said}), status_code=303)
        if tab == "approvals":
            answer: HTMLResponse = await self.approvals(request)
        else:
            if tab not in _TAB_NAMES:
                tab = DEFAULT_TAB
            answer = await self._panel_response(request, tab, query or {})
        # htmx swaps the panel into its place and the message into #said (out of band).
        said_html = self.env.get_template("said.html").render(said=said, failed=failed)
        return HTMLResponse(bytes(answer.body).decode() + said_html, status_code=answer.status_code)

    async def logout(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        self.sessions.end(session_of(request.scope))
        response = self.render("refused.html", message="Logged out. `xivmcp console --open` logs in again.")
        response.delete_cookie(self.cookie, path=self.base)
        return response


def _now_ms() -> int:
    return int(time.time() * 1000)
