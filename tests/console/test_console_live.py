"""The console's live feed and its last-resort answer, without processes.

`LiveHub` over a stand-in host that records the listeners the hub gives it: a burst of changes is
one event a page, in the panels' order; a page's stream ends with its session and with the host;
the hub refuses a page past `MAX_PAGES` and stops listening when closed. And a console view that
fails with an unexpected exception answers one line (500), never a traceback.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from game import GAME_NAME
from gates.console._guard import SECURITY_HEADERS, ConsoleGuard
from gates.console._live import MAX_PAGES, LiveHub
from gates.console._sessions import Sessions
from gates.host import AuditEntry, AuditKind

pytestmark = pytest.mark.asyncio
WAIT = 5.0


class StandIn:
    """The parts of a `Host` the hub listens to; each listener kept, and whether it was removed."""

    def __init__(self) -> None:
        self.listeners: dict[str, Callable[..., Any]] = {}
        self.removed: set[str] = set()

        def keeper(name: str) -> Callable[[Callable[..., Any]], Callable[[], None]]:
            def add(listener: Callable[..., Any]) -> Callable[[], None]:
                self.listeners[name] = listener
                return lambda: self.removed.add(name)

            return add

        self.on_change = keeper("change")
        self.on_job_change = keeper("job")
        self.on_clock_moved = keeper("clock")
        self.approvals = SimpleNamespace(on_request=keeper("approval"))
        self.audit = SimpleNamespace(on_record=keeper("audit"))
        self.game = SimpleNamespace(on_change=keeper("game"))
        self.pi = SimpleNamespace(on_peer_change=keeper("peer"))


def hub_of(host: StandIn) -> LiveHub:
    return LiveHub(host)  # type: ignore[arg-type]  # a stand-in with the same listeners


async def next_event(stream: Any) -> str:
    with anyio.fail_after(WAIT):
        event = await anext(stream)
    assert event.event == "change"
    return str(event.data)


async def test_a_burst_of_changes_is_one_event_naming_each_panel_once_in_order() -> None:
    # SPEC: C1
    host = StandIn()
    hub = hub_of(host)
    stream = hub.events(lambda: True, ping=WAIT)
    starting = anyio.Event()

    async def first() -> str:
        starting.set()
        return await next_event(stream)

    async with anyio.create_task_group() as tg:
        result: list[str] = []

        async def read() -> None:
            result.append(await first())

        tg.start_soon(read)
        await starting.wait()
        with anyio.fail_after(WAIT):
            while hub.pages == 0:  # the page is open once the stream has run to its first wait
                await anyio.lowlevel.checkpoint()
        for _ in range(1000):
            host.listeners["job"](None)
        host.listeners["audit"](AuditEntry(time="t", kind=AuditKind.SUSPENSION, plugin="P"))
        host.listeners["approval"](None)
    assert result == ["plugins approvals jobs audit"]
    await stream.aclose()
    assert hub.pages == 0


async def events_after(host: StandIn, *acts: Callable[[], object]) -> list[str]:
    """The event each act sends to a page, the acts done in turn once the page listens (an act
    may return an awaitable: the game's listener is a coroutine)."""
    hub = hub_of(host)
    stream = hub.events(lambda: True, ping=WAIT)
    seen: list[str] = []
    async with anyio.create_task_group() as tg:

        async def read() -> None:
            while len(seen) < len(acts):  # one by one: the test waits for each before the next act
                event = await next_event(stream)
                seen.append(event)

        tg.start_soon(read)
        with anyio.fail_after(WAIT):
            while hub.pages == 0:
                await anyio.lowlevel.checkpoint()
        for number, act in enumerate(acts):
            done = act()
            if inspect.isawaitable(done):
                await done
            with anyio.fail_after(WAIT):
                while len(seen) <= number:
                    await anyio.lowlevel.checkpoint()
    await stream.aclose()
    return seen


async def drain(stream: Any, ended: anyio.Event | None = None) -> None:
    """Read a page's stream to its end, then set `ended`."""
    async for _ in stream:
        pass
    if ended is not None:
        ended.set()


async def test_the_game_coming_or_going_and_its_changes_reach_the_game_panel() -> None:
    # SPEC: C1
    host = StandIn()
    left = await events_after(host, lambda: host.listeners["peer"](GAME_NAME, False, "left"))
    changed = await events_after(host, lambda: host.listeners["game"](None))
    assert (left, changed) == (["game info"], ["game"])


async def test_a_test_clocks_move_reaches_the_approval_windows() -> None:
    # SPEC: C1 - on a --test-clock host an approval window's time left changes only as the clock moves
    host = StandIn()
    assert await events_after(host, lambda: host.listeners["clock"](30.0)) == ["approvals"]


async def test_a_pages_stream_ends_with_its_session_and_with_the_host() -> None:
    host = StandIn()
    hub = hub_of(host)
    logged_in = [True]
    stream = hub.events(lambda: logged_in[0], ping=0.05)
    async with anyio.create_task_group() as tg:
        ended = anyio.Event()
        tg.start_soon(drain, stream, ended)
        logged_in[0] = False  # logged out: the stream notices within a ping, with no change at all
        with anyio.fail_after(WAIT):
            await ended.wait()
    other = hub.events(lambda: True, ping=WAIT)
    async with anyio.create_task_group() as tg:
        done = anyio.Event()
        tg.start_soon(drain, other, done)
        with anyio.fail_after(WAIT):
            while hub.pages == 0:
                await anyio.lowlevel.checkpoint()
        hub.close()
        with anyio.fail_after(WAIT):
            await done.wait()
    assert host.removed == {"change", "job", "approval", "clock", "audit", "game", "peer"}
    assert hub.pages == 0


async def test_the_hub_is_full_at_max_pages() -> None:
    hub = hub_of(StandIn())
    streams = [hub.events(lambda: True, ping=WAIT) for _ in range(MAX_PAGES)]

    async with anyio.create_task_group() as tg:
        for stream in streams:
            tg.start_soon(drain, stream)
        with anyio.fail_after(WAIT):
            while hub.pages < MAX_PAGES:
                await anyio.lowlevel.checkpoint()
        assert hub.full
        hub.close()
    assert hub.pages == 0 and not hub.full


async def test_a_view_that_fails_answers_one_line_and_the_log_has_the_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise KeyError("a card the registry no longer has")

    sessions = Sessions()
    session = sessions.start()
    guard = ConsoleGuard(broken, sessions=sessions, cookie="c", hosts=["127.0.0.1:1"], origins=["http://127.0.0.1:1"])
    scope: Scope = {
        "type": "http",
        "method": "GET",
        "path": "/panel/plugins",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:1"), (b"cookie", f"c={session.id}".encode())],
        "client": ("127.0.0.1", 5),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    with caplog.at_level(logging.ERROR, logger="gates.console"), anyio.fail_after(WAIT):
        await guard(scope, receive, send)
    assert sent[0]["status"] == 500
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    assert headers["content-security-policy"] == SECURITY_HEADERS["content-security-policy"]
    body = b"".join(m.get("body", b"") for m in sent[1:]).decode()
    assert body == "XIV MCP failed answering this (KeyError: 'a card the registry no longer has'); its log says more.\n"
    assert "Traceback" in caplog.text and "KeyError" in caplog.text
