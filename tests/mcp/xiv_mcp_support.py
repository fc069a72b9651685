"""Support for the MCP endpoint's tests: a real system in subprocesses, and official `mcp` clients.

`XivSystem` is `xivmcp broker` and `xivmcp host --auto-enable --test-clock --http 127.0.0.1:0`
as subprocesses; plugins are started per test (`start_plugin`) and killed by pid afterwards.
`connect(system, era)` opens an `mcp.Client` of one protocol era: "legacy" negotiates 2025-11-25
with the initialize handshake, "auto" probes server/discover and adopts 2026-07-28.

Nothing waits by sleeping: `Events` counts the change notifications a client received (the GET
stream's for 2025-era sessions, a subscriptions/listen stream's for 2026-07-28) and `expect`
waits, under `anyio.fail_after`, for one that arrives after an action.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

ROOT = Path(__file__).resolve().parents[2]
START = 20.0
"""Seconds a process may take to start (a loaded CI machine imports slowly)."""
WAIT = 10.0
"""Seconds to wait for an event."""
PLUGINS_URI = "xiv://cache/plugins"
AUDIT_URI = "xiv://cache/audit"
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
MODERN = "auto"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Proc:
    """A subprocess whose stdout is read line by line with a deadline (for sync fixtures)."""

    def __init__(self, *argv: str) -> None:
        self.argv = list(argv)
        self.popen = subprocess.Popen(self.argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        self._buffer = b""
        self.lines: list[str] = []

    def expect(self, prefix: str, within: float = START) -> str:
        assert self.popen.stdout is not None
        deadline = time.monotonic() + within
        fd = self.popen.stdout.fileno()
        while True:
            while b"\n" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\n", 1)
                line = raw.decode(errors="replace")
                self.lines.append(line)
                if line.startswith(prefix):
                    return line
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise AssertionError(f"{self.argv} printed no line starting {prefix!r}; it printed {self.lines}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError(f"{self.argv} ended (exit {self.popen.wait()}) before printing {prefix!r}")
            self._buffer += chunk

    def kill(self) -> None:
        """kill -9 by pid, and reap."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGKILL)
        self.popen.wait(10)
        if self.popen.stdout is not None:
            self.popen.stdout.close()


@dataclass
class XivSystem:
    """Broker and host in subprocesses, with the MCP endpoint's URL and token."""

    data_dir: Path
    bus: str = field(default_factory=lambda: f"tcp://127.0.0.1:{free_port()}")
    url: str = ""
    token: str = ""
    procs: list[Proc] = field(default_factory=list)

    def start(self, *host_args: str) -> None:
        broker = Proc(sys.executable, "-m", "xivmcp", "broker", "--bus", self.bus)
        self.procs.append(broker)
        broker.expect("xivmcp broker: listening")
        host = Proc(sys.executable, "-m", "xivmcp", "host", *self.common, "--http", "127.0.0.1:0", *host_args)
        self.procs.append(host)
        self.url = host.expect("xivmcp host: MCP endpoint ").split()[4].rstrip(";")
        host.expect("xivmcp host: ready")
        self.token = (self.data_dir / "token").read_text().strip()

    @property
    def common(self) -> list[str]:
        return ["--bus", self.bus, "--data-dir", str(self.data_dir)]

    @property
    def host(self) -> Proc:
        return self.procs[1]

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.kill()

    async def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """`xivmcp ARGS --bus … --data-dir …`, as the player types it."""
        done = await anyio.run_process(
            [sys.executable, "-m", "xivmcp", *args, *self.common], cwd=ROOT, check=False, stderr=subprocess.PIPE
        )
        if check and done.returncode != 0:
            raise AssertionError(f"xivmcp {' '.join(args)} failed ({done.returncode}): {done.stderr.decode()}")
        return done


class PluginProc:
    """A plugin subprocess; `kill()` is kill -9 by pid."""

    def __init__(self, process: anyio.abc.Process, argv: list[str]) -> None:
        self.process = process
        self.argv = argv
        assert process.stdout is not None
        self._out = BufferedByteReceiveStream(process.stdout)

    async def expect(self, prefix: str, within: float = START) -> str:
        with anyio.fail_after(within):
            while True:
                line = (await self._out.receive_until(b"\n", 1 << 20)).decode()
                if line.startswith(prefix):
                    return line

    def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGKILL)

    async def aclose(self) -> None:
        """Stop it by pid: SIGINT first, so it leaves the bus at once (a killed peer is noticed only
        after the broker's two-second timeout, and the next test's plugin has the same name), then
        SIGKILL if it has not ended within a few seconds."""
        with anyio.CancelScope(shield=True):
            if self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.process.pid, signal.SIGINT)
                with anyio.move_on_after(5):
                    await self.process.wait()
            self.kill()
            with anyio.fail_after(10):
                await self.process.wait()
            await self.process.aclose()


StartPlugin = Callable[..., Awaitable[PluginProc]]


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
        names: list[str] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor, cache_mode="refresh")
            names += [t.name for t in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                return names

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
