"""Support for the MCP endpoint's tests: a real system in subprocesses, and official `mcp` clients.

`XivSystem` is the shipped harness (`gates.testing.XivMcpSystem`): `xivmcp broker` and `xivmcp host
--auto-enable --test-clock --http 127.0.0.1:0` as subprocesses; plugins are started per test
(`start_plugin`) and stopped by pid afterwards.
`connect(system, era)` opens an `mcp.Client` of one protocol era: "legacy" negotiates 2025-11-25
with the initialize handshake, "auto" probes server/discover and adopts 2026-07-28.

Nothing waits by sleeping: `Events` counts the change notifications a client received (the GET
stream's for 2025-era sessions, a subscriptions/listen stream's for 2026-07-28) and `expect`
waits, under `anyio.fail_after`, for one that arrives after an action.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

from gates import testing
from gates.testing import Process, XivMcpSystem

ROOT = Path(__file__).resolve().parents[2]
START = 20.0
"""Seconds a process may take to start (a loaded CI machine imports slowly)."""
WAIT = 10.0
"""Seconds to wait for an event."""
PLUGINS_URI = "xiv://cache/plugins"
AUDIT_URI = "xiv://cache/audit"
JOBS_URI = "xiv://cache/jobs"
TOOLS = "tools"
RAWPLUGIN_TOOLS = ("rawplugin_echo", "rawplugin_slow", "rawplugin_inline")
MYPLUGIN_TOOLS = (
    "myplugin_status",
    "myplugin_set_flag",
    "myplugin_follow",
    "myplugin_stop",
    "myplugin_farm",
    "myplugin_restock",
)
CARELESS_TOOLS = ("careless_buy_potions", "careless_sell_junk", "careless_grind")
MODERN = "auto"


def free_port() -> int:
    return testing.free_port()


class XivSystem(XivMcpSystem):
    """Broker and host (`--http 127.0.0.1:0`) in subprocesses, with the MCP endpoint's URL and token."""

    @property
    def bus(self) -> str:
        return self.endpoint

    @property
    def url(self) -> str:
        return self.mcp_url

    async def run_cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """`xivmcp ARGS --bus … --data-dir …`, as the player types it, run to its end."""
        done = await anyio.run_process(self.cli(*args), cwd=ROOT, check=False, stderr=subprocess.PIPE)
        if check and done.returncode != 0:
            raise AssertionError(f"xivmcp {' '.join(args)} failed ({done.returncode}): {done.stderr.decode()}")
        return done


StartPlugin = Callable[..., Awaitable[Process]]


class Events:
    """The change notifications one client received, counted by kind ("tools" or a resource URI)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.progress: list[str] = []
        self.stream_open = anyio.Event()
        self.posts_unanswered = 0
        self._changed = anyio.Event()

    def add(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self._changed.set()
        self._changed = anyio.Event()

    async def on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            self.add(TOOLS)
        elif method == "notifications/resources/updated":
            self.add(message.params.uri)

    async def on_request(self, request: httpx2.Request) -> None:
        if request.method == "POST":
            self.posts_unanswered += 1

    async def on_response(self, response: httpx2.Response) -> None:
        if response.request.method == "GET" and response.status_code == 200:
            self.stream_open.set()
        if response.request.method == "POST":
            self.posts_unanswered -= 1
            self.add("post answered")

    async def wait_beyond(self, kind: str, seen: int, within: float = WAIT) -> None:
        with anyio.fail_after(within):
            while self.counts.get(kind, 0) <= seen:
                await self._changed.wait()

    @contextlib.asynccontextmanager
    async def expect(self, kind: str, within: float = WAIT) -> AsyncIterator[None]:
        """Wait, after the block, for a notification of `kind` that arrived after the block began."""
        seen = self.counts.get(kind, 0)
        yield
        await self.wait_beyond(kind, seen, within)


@dataclass
class Session:
    client: Client
    events: Events
    era: str
    _tg: anyio.abc.TaskGroup

    @property
    def modern(self) -> bool:
        return self.era == MODERN

    async def watch(self, *resources: str) -> None:
        """Make sure list_changed and `resources`' updates reach this client from now on."""
        if self.modern:
            await self._tg.start(self._listen, resources)
            return
        with anyio.fail_after(WAIT):
            await self.events.stream_open.wait()  # the GET stream the notifications come on
        for uri in resources:
            await self.client.subscribe_resource(uri)  # the 2025-era way (its warning: see pyproject)

    async def _listen(self, resources: tuple[str, ...], *, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with self.client.listen(tools_list_changed=True, resource_subscriptions=resources) as subscription:
            task_status.started()
            async for event in subscription:
                if isinstance(event, ToolsListChanged):
                    self.events.add(TOOLS)
                elif isinstance(event, ResourceUpdated):
                    self.events.add(event.uri)

    async def wait_offered(self, *names: str, offered: bool = True, within: float = WAIT) -> list[str]:
        """List the tools each time they change (after `watch`) until `names` are offered (or all gone)."""
        with anyio.fail_after(within):
            while True:
                seen = self.events.counts.get(TOOLS, 0)
                current = await self.tool_names()
                if all((n in current) is offered for n in names):
                    return current
                await self.events.wait_beyond(TOOLS, seen, within)

    async def tool_names(self) -> list[str]:
        return [t.name for t in await self.list_all()]

    async def list_all(self) -> list[types.Tool]:
        """Every tool listed now, all pages, asked afresh."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor, cache_mode="refresh")
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                return tools

    async def read_json(self, uri: str) -> Any:
        result = await self.client.read_resource(uri)
        content = result.contents[0]
        assert isinstance(content, types.TextResourceContents)
        return json.loads(content.text)


@contextlib.asynccontextmanager
async def connect(system: XivSystem, era: str, token: str | None = None) -> AsyncIterator[Session]:
    events = Events()
    headers = {"Authorization": f"Bearer {token or system.token}"}
    hooks = {"request": [events.on_request], "response": [events.on_response]}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300), event_hooks=hooks) as http,
        Client(streamable_http_client(system.url, http_client=http), mode=era, message_handler=events.on_message) as c,
    ):
        async with anyio.create_task_group() as tg:
            session = Session(c, events, era, tg)
            yield session
            tg.cancel_scope.cancel()  # listen streams
        if not session.modern:
            await _settle(session)


async def _settle(session: Session) -> None:
    """Before a 2025-era client closes, let the answers to cancelled requests arrive (the server
    answers them with REQUEST_CANCELLED; the mcp client fails if one comes while it is closing)."""
    events = session.events
    with anyio.fail_after(WAIT):
        while events.posts_unanswered > 0:
            await events.wait_beyond("post answered", events.counts.get("post answered", 0))
        await session.client.list_tools()  # its answer comes after theirs on the client's read stream
