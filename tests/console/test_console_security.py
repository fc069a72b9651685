"""The console's defences over real HTTP, on one system (broker, host with its endpoint, game).

Each refusal is checked with its status and its message (which says what to do), and beside
each refusal the same request that passes, so a test cannot pass by refusing everything. Then
what every response carries (the CSP and its companions), the session cookie's attributes, the
page's script (files only, no inline code) and a plugin's HTML shown as text. The player's
commands the console rests on (`console`, `clear-session`, `ShowPlugin`) are run here too, as
the player runs them.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpx2
import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client
from starlette.responses import PlainTextResponse
from starlette.types import Message, Receive, Scope, Send

from gates.console import SECURITY_HEADERS, cookie_name
from gates.console._guard import ConsoleGuard
from gates.console._sessions import Sessions
from gates.player import PlayerClient, PlayerError, ShowPlugin
from gates.testing import Process

from .conftest import ROOT, ConsoleSystem

WAIT = 10.0
"""Seconds one request, command or wait may take."""
PLUGIN = "HtmlPlugin"
HTML_PLUGIN = str(Path(__file__).parent / "plugins" / "html_plugin.py")
SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(1)>"


@dataclass(frozen=True)
class Login:
    """A logged-in browser: its session cookie, the CSRF token its page carries, and where the
    pages are (`/console/KEY`: the login's redirect says it)."""

    cookie: str
    csrf: str
    base: str


def port_of(system: ConsoleSystem) -> int:
    port = urlsplit(system.base).port
    assert port is not None
    return port


def origin_of(system: ConsoleSystem) -> str:
    return system.base


@pytest.fixture(scope="module")
def http(system: ConsoleSystem) -> Iterator[httpx2.Client]:
    """A client that keeps no cookie: each request carries exactly the cookie the test gives it."""
    no_cookies = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
    with httpx2.Client(base_url=system.base, timeout=WAIT, follow_redirects=False, cookies=no_cookies) as client:
        yield client


def log_in(system: ConsoleSystem, http: httpx2.Client) -> Login:
    """A fresh session from a fresh link, and the CSRF token of its page."""
    name = cookie_name(port_of(system))
    answer = http.get(system.console_link())
    assert answer.status_code == 303, answer.text
    cookie = answer.cookies[name]
    base = answer.headers["location"].removesuffix("/")
    page = http.get(f"{base}/", headers={"cookie": f"{name}={cookie}"})
    assert page.status_code == 200, page.text
    csrf = json.loads(_body_attrs(page.text)["hx-headers"] or "{}")["X-CSRF-Token"]
    return Login(cookie=cookie, csrf=csrf, base=base)


@pytest.fixture(scope="module")
def login(system: ConsoleSystem, http: httpx2.Client) -> Login:
    return log_in(system, http)


def with_session(system: ConsoleSystem, login: Login, **headers: str) -> dict[str, str]:
    return {"cookie": f"{cookie_name(port_of(system))}={login.cookie}", **headers}


def act(
    login: Login, http: httpx2.Client, headers: dict[str, str], form: dict[str, str] | None = None
) -> httpx2.Response:
    """`POST BASE/act/clear_session` for a plugin nobody has: the host refuses it politely (a 303
    back to the page, saying so) once the request got through the console's guard."""
    return http.post(f"{login.base}/act/clear_session", data={"plugin": "Nobody", **(form or {})}, headers=headers)


def passed(login: Login, answer: httpx2.Response) -> bool:
    """Whether a change got through the guard and the CSRF check (the host's answer: back to the page)."""
    return answer.status_code == 303 and answer.headers["location"].startswith(f"{login.base}/?tab=")


# --- the page's HTML, read as a browser reads it ---------------------------------------------


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.script_text.append(data)


def tags_of(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    parser.close()
    return parser


def _body_attrs(html: str) -> dict[str, str | None]:
    return next(attrs for tag, attrs in tags_of(html).tags if tag == "body")


# --- refusals -----------------------------------------------------------------------------------


NOT_LOGGED_IN = "Not logged in: run `xivmcp console --open`"


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/console/"), ("POST", "/console/act/enable"), ("GET", "/console/events"), ("GET", "/console/game.png")],
)
def test_no_cookie_is_refused_with_401(system: ConsoleSystem, http: httpx2.Client, method: str, path: str) -> None:
    headers = {"origin": origin_of(system)} if method == "POST" else {}
    answer = http.request(
        method, path, headers=headers, data={"plugin": PLUGIN, "digest": "x"} if method == "POST" else None
    )
    assert answer.status_code == 401, answer.text
    assert NOT_LOGGED_IN in answer.text


def test_a_session_opens_the_page(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    answer = http.get(f"{login.base}/", headers=with_session(system, login))
    assert answer.status_code == 200 and "XIV MCP" in answer.text


def test_a_ticket_works_once(system: ConsoleSystem, http: httpx2.Client) -> None:
    # SPEC: C2
    link = system.console_link()
    first = http.get(link)
    assert first.status_code == 303 and re.fullmatch(r"/console/[\w-]{20,}/", first.headers["location"])
    second = http.get(link)
    assert second.status_code == 403
    assert "used already or is too old. Run `xivmcp console --open` for a new one." in second.text
    assert cookie_name(port_of(system)) not in second.cookies


def test_a_made_up_ticket_is_refused(system: ConsoleSystem, http: httpx2.Client) -> None:
    # SPEC: C2
    for ticket in ("made-up-ticket", ""):
        answer = http.get("/console/login", params={"ticket": ticket})
        assert answer.status_code == 403 and "Run `xivmcp console --open` for a new one." in answer.text
        assert not answer.cookies


FOREIGN_ORIGIN = "A change to XIV MCP must come from the console's own page (its Origin did not match)."


def test_a_foreign_origin_is_refused_even_with_session_and_csrf(
    system: ConsoleSystem, http: httpx2.Client, login: Login
) -> None:
    # SPEC: C2
    for origin in ("http://evil.example", f"http://evil.example:{port_of(system)}", "null"):
        answer = act(login, http, with_session(system, login, origin=origin, **{"x-csrf-token": login.csrf}))
        assert answer.status_code == 403 and FOREIGN_ORIGIN in answer.text, (origin, answer.text)
    same = act(login, http, with_session(system, login, origin=origin_of(system), **{"x-csrf-token": login.csrf}))
    assert passed(login, same), same.text


def test_a_post_without_origin_is_refused(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    # SPEC: C2
    answer = act(login, http, with_session(system, login, **{"x-csrf-token": login.csrf}))
    assert answer.status_code == 403 and FOREIGN_ORIGIN in answer.text


NOT_FROM_PAGE = "This change did not come from your console page: reload it."


def test_a_missing_or_wrong_csrf_token_is_refused(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    # SPEC: C2
    origin = origin_of(system)
    missing = act(login, http, with_session(system, login, origin=origin))
    wrong_header = act(login, http, with_session(system, login, origin=origin, **{"x-csrf-token": "x" + login.csrf}))
    wrong_field = act(login, http, with_session(system, login, origin=origin), {"csrf": login.csrf[:-1]})
    for answer in (missing, wrong_header, wrong_field):
        assert answer.status_code == 403 and NOT_FROM_PAGE in answer.text, answer.text
    # The same requests with the session's token pass, as a header (htmx) or a field (a plain form).
    assert passed(login, act(login, http, with_session(system, login, origin=origin, **{"x-csrf-token": login.csrf})))
    assert passed(login, act(login, http, with_session(system, login, origin=origin), {"csrf": login.csrf}))


def test_another_sessions_csrf_token_is_refused(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    # SPEC: C2
    other = log_in(system, http)
    answer = act(login, http, with_session(system, login, origin=origin_of(system), **{"x-csrf-token": other.csrf}))
    assert answer.status_code == 403 and NOT_FROM_PAGE in answer.text


def test_the_mcp_token_is_no_session_cookie(system: ConsoleSystem, http: httpx2.Client) -> None:
    # SPEC: S5
    answer = http.get("/console/", headers={"cookie": f"{cookie_name(port_of(system))}={system.token}"})
    assert answer.status_code == 401 and NOT_LOGGED_IN in answer.text


def test_the_mcp_token_is_refused_even_with_a_session(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    # SPEC: S5
    for value in (f"Bearer {system.token}", "Bearer whatever"):
        answer = http.get(f"{login.base}/", headers=with_session(system, login, authorization=value))
        assert answer.status_code == 403
        assert "The console does not take the assistant's token" in answer.text
        assert "open it with the link `xivmcp console` prints." in answer.text
    assert http.get(f"{login.base}/", headers=with_session(system, login)).status_code == 200


def test_a_rebinding_host_header_is_refused_with_421(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    port = port_of(system)
    for host in (f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}"):
        answer = http.get(f"{login.base}/", headers=with_session(system, login, host=host))
        assert answer.status_code == 421, (host, answer.status_code)
        assert "Open the console at the address `xivmcp console` prints" in answer.text
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert http.get(f"{login.base}/", headers=with_session(system, login, host=host)).status_code == 200, host


# --- what every response carries ----------------------------------------------------------------


def test_every_console_response_has_the_security_headers(
    system: ConsoleSystem, http: httpx2.Client, login: Login
) -> None:
    assert SECURITY_HEADERS["content-security-policy"].startswith("default-src 'self'; frame-ancestors 'none'")
    session = with_session(system, login)
    answers = {
        "page": http.get(f"{login.base}/", headers=session),
        "panel": http.get(f"{login.base}/panel/plugins", headers=session),
        "no tab": http.get(f"{login.base}/panel/nothing", headers=session),
        "static": http.get("/console/static/console.js"),
        "login": http.get(system.console_link()),
        "used ticket": http.get("/console/login", params={"ticket": "made-up"}),
        "no cookie": http.get("/console/"),
        "no origin": http.post(f"{login.base}/act/enable", headers=session),
        "no csrf": act(login, http, with_session(system, login, origin=origin_of(system))),
        "bearer": http.get(f"{login.base}/", headers=with_session(system, login, authorization="Bearer x")),
        "rebinding": http.get("/console/", headers={"host": "evil.example"}),
    }
    assert answers["page"].status_code == 200 and answers["static"].status_code == 200
    assert {answer.status_code for answer in answers.values()} >= {200, 303, 401, 403, 404, 421}
    for name, answer in answers.items():
        for header, value in SECURITY_HEADERS.items():
            assert answer.headers.get(header) == value, (name, header, answer.headers.get(header))
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["cache-control"] == "no-store"


def test_the_session_cookie_is_httponly_strict_and_for_the_console_only(
    system: ConsoleSystem, http: httpx2.Client
) -> None:
    answer = http.get(system.console_link())
    cookies = answer.headers.get_list("set-cookie")
    assert len(cookies) == 1, cookies
    name, _, rest = cookies[0].partition("=")
    assert name == f"xivmcp_console_{port_of(system)}"
    attributes = {part.strip().split("=")[0].lower(): part.strip() for part in rest.split(";")[1:]}
    assert "httponly" in attributes
    assert attributes["samesite"].lower() == "samesite=strict"
    assert re.fullmatch(r"Path=/console/[\w-]{20,}", attributes["path"])  # the pages' key: see gates/console/_views.py
    assert "domain" not in attributes  # this host only


def test_the_page_has_no_inline_script(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    for tab in ("plugins", "connect", "modules", "jobs", "info", "audit", "game"):
        page = http.get(f"{login.base}/", params={"tab": tab}, headers=with_session(system, login))
        assert page.status_code == 200
        parsed = tags_of(page.text)
        scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
        assert scripts and all((attrs.get("src") or "").startswith("/console/static/") for attrs in scripts)
        assert not parsed.script_text, parsed.script_text
        handlers = [
            (tag, name)
            for tag, attrs in parsed.tags
            for name in attrs
            if name.startswith(("on", "hx-on")) or "javascript:" in (attrs[name] or "").lower()
        ]
        assert not handlers, (tab, handlers)


# --- a plugin's HTML is text -------------------------------------------------------------------


@pytest.fixture(scope="module")
def html_plugin(system: ConsoleSystem) -> Iterator[Process]:
    process = system.start_plugin(HTML_PLUGIN, name="html_plugin")
    try:
        process.wait_line("registered")
        system.xivmcp("enable", PLUGIN)
        yield process
    finally:
        process.stop()


def waiting_approval(system: ConsoleSystem) -> dict[str, Any]:
    """The one approval waiting for the player (`xivmcp approvals --wait`)."""
    reply = json.loads(system.xivmcp("approvals", "--wait", str(WAIT), "--json").stdout)
    assert len(reply["approvals"]) == 1, reply
    approval: dict[str, Any] = reply["approvals"][0]
    return approval


def background_call(system: ConsoleSystem, tool: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        system.cli("call", tool, "{}", "--quiet"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(call: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = call.communicate(timeout=WAIT * 3)
    finally:
        if call.poll() is None:
            call.kill()
            call.wait()
    return call.returncode, out, err


def assert_escaped(html: str) -> None:
    assert SCRIPT not in html and IMAGE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert not [attrs for tag, attrs in tags_of(html).tags if tag == "img" and attrs.get("src") == "x"]


def test_plugin_text_is_escaped(system: ConsoleSystem, http: httpx2.Client, login: Login, html_plugin: Process) -> None:
    # SPEC: S3
    page = http.get(f"{login.base}/", params={"tab": "plugins"}, headers=with_session(system, login))
    assert page.status_code == 200 and f'data-plugin="{PLUGIN}"' in page.text
    assert_escaped(page.text)
    assert "Html &lt;script&gt;alert(1)&lt;/script&gt;" in page.text  # the display name, as text
    tools = http.get(f"{login.base}/plugin/{PLUGIN}/tools/spend_gil", headers=with_session(system, login))
    assert tools.status_code == 200  # a capability row's tools, as the page fetches them when it is opened
    assert_escaped(tools.text)
    assert "Buys &lt;script&gt;alert(1)&lt;/script&gt; with gil" in tools.text  # the tool's description


def test_an_approval_summary_is_escaped(
    system: ConsoleSystem, http: httpx2.Client, login: Login, html_plugin: Process
) -> None:
    # SPEC: S3
    call = background_call(system, "htmlplugin_buy")
    try:
        before = waiting_approval(system)  # spend_gil asks before the call
        system.xivmcp("approve", before["approvalId"])
        summary = waiting_approval(system)  # and the plugin asks mid-call, with its own summary
        assert summary["summary"] == f"Buy {SCRIPT} for {IMAGE} gil"
        for path in (f"{login.base}/approvals", f"{login.base}/"):
            answer = http.get(path, headers=with_session(system, login))
            assert answer.status_code == 200 and f'data-approval="{summary["approvalId"]}"' in answer.text
            assert_escaped(answer.text)
            assert "Buy &lt;script&gt;alert(1)&lt;/script&gt; for &lt;img src=x onerror=alert(1)&gt; gil" in answer.text
        system.xivmcp("decline", summary["approvalId"])
    finally:
        code, _, err = finish(call)
    assert code != 0 and "The player declined; nothing was bought." in err


# --- the player's commands the console rests on --------------------------------------------------


def show_plugin(system: ConsoleSystem, plugin: str) -> Any:
    """`ShowPlugin` through the player's client (no command of the CLI sends it): the view, or the
    PlayerError the host answered."""

    async def ask() -> Any:
        with anyio.fail_after(WAIT):
            async with system.connect("ConsoleTests") as pi:
                try:
                    return await PlayerClient.for_data_dir(pi, system.data_dir).send(ShowPlugin(plugin=plugin))
                except PlayerError as exc:
                    return exc

    return anyio.run(ask)


def test_xivmcp_console_prints_a_link_that_works_once(system: ConsoleSystem, http: httpx2.Client) -> None:
    # SPEC: C2
    out = system.xivmcp("console").stdout.splitlines()
    assert out[0].startswith(f"{system.base}/console/login?ticket=")
    assert out[1] == "(works once, for 120 s; `xivmcp console` gives a new one)"
    reply = json.loads(system.xivmcp("console", "--json").stdout)
    assert reply["seconds"] == 120 and reply["url"] != out[0]
    for link in (out[0], reply["url"]):
        assert http.get(link).status_code == 303
        assert http.get(link).status_code == 403


def test_xivmcp_console_without_a_host_exits_2(tmp_path: Path) -> None:
    argv = [*ConsoleSystem(tmp_path).cli("console")]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done
    assert not done.stdout
    assert "XIV MCP serves no web console here: start it with `xivmcp up`" in done.stderr


def test_show_plugin_of_an_unknown_plugin_is_refused(system: ConsoleSystem, html_plugin: Process) -> None:
    refused = show_plugin(system, "NoSuchPlugin")
    assert isinstance(refused, PlayerError), refused
    assert refused.command == "plugin"
    assert refused.message == "XIV MCP knows no plugin named 'NoSuchPlugin'; see `xivmcp plugins`."
    view = show_plugin(system, PLUGIN)
    assert not isinstance(view, PlayerError) and view.card.name == PLUGIN


def test_clear_session_forgets_the_session_approvals(system: ConsoleSystem, html_plugin: Process) -> None:
    assert show_plugin(system, PLUGIN).session_approvals == 0
    call = background_call(system, "htmlplugin_touch")
    try:
        approval = waiting_approval(system)
        assert approval["tool"] == "htmlplugin_touch"
        system.xivmcp("approve", approval["approvalId"], "--session")
    finally:
        code, _, err = finish(call)
    assert code == 0, err
    assert show_plugin(system, PLUGIN).session_approvals == 1
    assert system.xivmcp("call", "htmlplugin_touch", "{}", "--quiet").returncode == 0  # not asked again
    said = system.xivmcp("clear-session", PLUGIN).stdout
    assert said == f"Cleared 1 session approval(s) of {PLUGIN}.\n"
    assert show_plugin(system, PLUGIN).session_approvals == 0
    assert system.xivmcp("clear-session", PLUGIN).stdout == f"{PLUGIN} has none to clear.\n"
    call = background_call(system, "htmlplugin_touch")  # asked again, now the session's answer is gone
    try:
        system.xivmcp("decline", waiting_approval(system)["approvalId"])
    finally:
        code, _, err = finish(call)
    assert code != 0


# --- only this machine ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_guard_refuses_a_client_on_another_machine() -> None:
    reached: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope["path"])
        await PlainTextResponse("inside")(scope, receive, send)

    sessions = Sessions()
    session = sessions.start()
    guard = ConsoleGuard(app, sessions=sessions, cookie="c", hosts=["127.0.0.1:1"], origins=["http://127.0.0.1:1"])

    async def get(client: tuple[str, int] | None) -> tuple[int, dict[str, str], str]:
        scope: Scope = {
            "type": "http",
            "method": "GET",
            "path": "/",
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"127.0.0.1:1"), (b"cookie", f"c={session.id}".encode())],
            "client": client,
        }
        sent: list[Message] = []

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            sent.append(message)

        with anyio.fail_after(WAIT):
            await guard(scope, receive, send)
        start = sent[0]
        headers = {k.decode(): v.decode() for k, v in start["headers"]}
        body = b"".join(m.get("body", b"") for m in sent[1:]).decode()
        return start["status"], headers, body

    for client in (("10.0.0.5", 1234), ("192.168.1.2", 80), ("::ffff:10.0.0.5", 1), ("not-an-address", 1), None):
        status, headers, body = await get(client)
        assert status == 403, client
        assert body == "The console answers only on this machine (127.0.0.1): open it there.\n"
        assert headers["content-security-policy"] == SECURITY_HEADERS["content-security-policy"]
    assert reached == []
    for client in (("127.0.0.1", 1234), ("::1", 1)):
        status, _, body = await get(client)
        assert (status, body) == (200, "inside"), client
    assert reached == ["/", "/"]


# --- the Connect tab ------------------------------------------------------------------------------


def test_the_connect_tab_names_an_app_with_a_session(system: ConsoleSystem, http: httpx2.Client, login: Login) -> None:
    def connected() -> str:
        page = http.get(f"{login.base}/panel/connect", headers=with_session(system, login))
        assert page.status_code == 200
        return page.text

    assert "Not connected yet." in connected()

    async def with_an_app() -> str:
        headers = {"Authorization": f"Bearer {system.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=WAIT) as client,
            mcp.Client(streamable_http_client(system.mcp_url, http_client=client), mode="legacy") as app,
        ):
            await app.list_tools()
            return await anyio.to_thread.run_sync(connected)

    text = anyio.run(with_an_app)
    assert "Connected: <strong>mcp" in text and "last request just now" in text


def test_open_gives_the_browser_an_owner_only_page_not_the_link(system: ConsoleSystem, http: httpx2.Client) -> None:
    # SPEC: S5 (a program's arguments are visible to every user: the ticket never is one)
    env = {**os.environ, "BROWSER": "echo OPENED=%s"}  # webbrowser runs $BROWSER with what it opens
    done = subprocess.run(system.cli("console", "--open"), capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    link = done.stdout.split()[0]
    opened = next(line for line in done.stdout.splitlines() if line.startswith("OPENED="))
    page = system.data_dir / "console-open.html"
    assert opened == f"OPENED={page.as_uri()}" and "ticket" not in opened
    assert link in page.read_text(encoding="utf-8").replace("&amp;", "&")
    if os.name == "posix":
        assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert http.get(link).status_code == 303  # the page's link logs in, once
