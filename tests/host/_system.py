"""Helpers of the host tests, on the shipped kit (`gates.testing`): the test's own peer, the player.

    with host_system(tmp_path) as system:        # broker + host (`--test-clock --no-mcp`), free port
        plugin = system.start_plugin("plugins_sample.myplugin")
        await plugin.expect("MyPlugin: registered myplugin_restock")
        async with broker.connect(system.endpoint, "TestPeer") as pi:
            player = player_of(pi, system.data_dir)    # the kit's `Player`
            await player.enable("MyPlugin")

Every process is stopped by pid by the harness (`XivMcpSystem.close`), whatever the test did;
`expect()` waits for a line (an event), never for time to pass.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

import broker
from broker import Broker, BrokerConfig
from gates.contract import JobInfo
from gates.host import Host, HostConfig, host_running
from gates.player import CallReply, PlayerClient
from gates.testing import Player, Process, XivMcpSystem, free_endpoint, xivmcp_argv
from tests._gates import gate_reply, refused

__all__ = [
    "HOST_FLAGS",
    "ROOT",
    "WAIT",
    "CallInFlight",
    "Process",
    "TestPlugin",
    "XivMcpSystem",
    "background",
    "free_endpoint",
    "gate",
    "host_system",
    "inprocess_host",
    "new_system",
    "ok",
    "player_of",
    "plugin_peer",
    "read_audit",
    "refused",
    "run_in_thread",
    "start_call",
    "until",
    "xivmcp_argv",
]

ROOT = Path(__file__).resolve().parents[2]
WAIT = 10.0
"""Seconds any one awaited event may take (a loaded 2-core CI machine starts processes slowly)."""
HOST_FLAGS = ("--test-clock", "--no-mcp")
"""How the tests run `xivmcp host`: on the manual clock, and without the MCP endpoint (not theirs to test)."""


def new_system(root: Path, *host_flags: str) -> XivMcpSystem:
    """A system (not started) whose host runs with `host_flags` (default: `HOST_FLAGS`)."""
    return XivMcpSystem(root, *(host_flags or HOST_FLAGS))


@contextlib.contextmanager
def host_system(root: Path, *host_flags: str) -> Iterator[XivMcpSystem]:
    """A started broker and host; every process of it is killed by pid on the way out."""
    with new_system(root, *host_flags) as system:
        yield system.start()


def run_in_thread(func: Callable[[], Awaitable[None]]) -> None:
    """Run an async function to completion on an event loop of its own, in a thread of its own
    (sync fixtures must not touch the event loop pytest-asyncio gives the tests)."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            anyio.run(func)
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def read_audit(data_dir: Path) -> list[dict[str, Any]]:
    """DATA_DIR/audit.jsonl, one JSON object a line (each line must be one)."""
    text = (data_dir / "audit.jsonl").read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines() if line]
    assert all(isinstance(e, dict) for e in entries)
    return entries


# --------------------------------------------------------------------------- in-process host


@asynccontextmanager
async def inprocess_host(data_dir: Path, **options: Any) -> AsyncIterator[tuple[str, Host]]:
    """A broker thread on a free loopback port and the host in this event loop; yields (endpoint, host)."""
    bus = Broker(BrokerConfig(endpoint="tcp://127.0.0.1:*")).start_in_thread()
    try:
        config = HostConfig(bus=bus.endpoint, data_dir=data_dir, test_clock=True, **options)
        async with host_running(config) as host:
            with anyio.fail_after(WAIT):
                await host.pi.flush()  # the broker has taken the host's gates: peers can call them
            yield bus.endpoint, host
    finally:
        bus.close()


# --------------------------------------------------------------------------- the test's own peer


async def until(host: Host, job_id: str, ready: Callable[[JobInfo], bool]) -> JobInfo:
    """Wait (on the host's job events, never by sleeping) until the job satisfies `ready`."""
    changed = anyio.Event()

    def on_change(job: JobInfo) -> None:
        if job.id == job_id:
            changed.set()

    stop = host.on_job_change(on_change)
    try:
        with anyio.fail_after(WAIT):
            while not ready(job := host.jobs.get(job_id)):
                await changed.wait()
                changed = anyio.Event()
        return job
    finally:
        stop()


async def gate(pi: broker.PluginInterface, name: str, *args: object) -> Any:
    """Call host gate `XivMcp.<name>` and decode its JSON reply (ApiVersion and IsReady as they are)."""
    return await gate_reply(pi, f"XivMcp.{name}", *args)


async def ok(pi: broker.PluginInterface, name: str, *args: object) -> dict[str, Any]:
    reply = await gate(pi, name, *args)
    assert reply.get("ok") is True, reply
    assert isinstance(reply, dict)
    return reply


def player_of(pi: broker.PluginInterface, data_dir: Path) -> Player:
    """The shipped `gates.testing.Player` on the test's own peer, with the key of `data_dir`. Its
    `advance_clock` moves the host's clock alone: a test that runs a game moves the game's itself."""
    return Player(PlayerClient.for_data_dir(pi, data_dir))


class CallInFlight:
    """A tool call made in the background by the test (the assistant waiting for its answer)."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.reply: CallReply | None = None
        self.lost: str | None = None
        """The bus's error when the host went away during the call (then there is no reply)."""

    async def run(self, player: Player, tool: str, arguments: dict[str, Any] | None) -> None:
        try:
            self.reply = await player.call(tool, arguments, within=WAIT * 3)
        except broker.IpcError as exc:  # the host went away during the call
            self.lost = f"{type(exc).__name__}: {exc}"
        self.done.set()

    async def ended(self) -> None:
        """Wait until the call has ended, with a reply or lost."""
        with anyio.fail_after(WAIT):
            await self.done.wait()

    async def outcome(self) -> CallReply:
        """The call's reply, once it has one (an assertion error if it was lost)."""
        await self.ended()
        assert self.reply is not None, self.lost
        return self.reply


def start_call(
    tg: anyio.abc.TaskGroup, player: Player, tool: str, arguments: dict[str, Any] | None = None
) -> CallInFlight:
    call = CallInFlight()
    tg.start_soon(call.run, player, tool, arguments)
    return call


# --------------------------------------------------------------------------- a plugin written by the test

InvokeHandler = Callable[[str, str, str], Awaitable[str]]


class TestPlugin:
    """A plugin on the raw gates, written by the test: provides NAME.XivMcp.Invoke and .Cancel.

    By default Invoke answers `{"pending": true}`; each call and each Cancel is put on a stream
    the test awaits (`next_invoke()`, `next_cancel()`).
    """

    __test__ = False

    def __init__(self, pi: broker.PluginInterface, *, cancel_gate: bool = True) -> None:
        self.pi = pi
        self.name = pi.name
        self.handlers: dict[str, InvokeHandler] = {}
        self._invoked, self._invokes = anyio.create_memory_object_stream[tuple[str, str, str]](100)
        self._cancelled, self._cancels = anyio.create_memory_object_stream[str](100)
        pi.get_ipc_provider(f"{self.name}.XivMcp.Invoke", params=(str, str, str), returns=str).register_func(
            self._invoke, callers=("XivMcp",)
        )
        if cancel_gate:
            pi.get_ipc_provider(f"{self.name}.XivMcp.Cancel", params=(str,)).register_action(
                self._cancel, callers=("XivMcp",)
            )

    async def wait_provided(self) -> None:
        """Wait until the broker lists this plugin's Invoke gate (the host can call it)."""
        with anyio.fail_after(WAIT):
            await self.pi.wait_until(lambda: self.pi.get_ipc_subscriber(f"{self.name}.XivMcp.Invoke").has_function())

    async def _invoke(self, call_id: str, tool: str, args_json: str) -> str:
        self._invoked.send_nowait((call_id, tool, args_json))
        handler = self.handlers.get(tool)
        if handler is None:
            return '{"pending": true}'
        return await handler(call_id, tool, args_json)

    def _cancel(self, call_id: str) -> None:
        self._cancelled.send_nowait(call_id)

    async def next_invoke(self) -> tuple[str, str, str]:
        with anyio.fail_after(WAIT):
            return await self._invokes.receive()

    async def next_cancel(self) -> str:
        with anyio.fail_after(WAIT):
            return await self._cancels.receive()

    async def register(self, name: str, **fields: Any) -> dict[str, Any]:
        definition = {"name": name, "description": f"{name} of the test.", **fields}
        if "capabilities" not in fields and "readOnly" not in fields:
            definition["capabilities"] = ["game_ui"]
        return await ok(self.pi, "RegisterTool", self.name, json.dumps(definition))

    def close(self) -> None:
        for stream in (self._invoked, self._invokes, self._cancelled, self._cancels):
            stream.close()


@asynccontextmanager
async def plugin_peer(endpoint: str, name: str, *, cancel_gate: bool = True) -> AsyncIterator[TestPlugin]:
    """A `TestPlugin` connected as `name`, its gates on the bus."""
    async with broker.connect(endpoint, name) as pi:
        plugin = TestPlugin(pi, cancel_gate=cancel_gate)
        try:
            await plugin.wait_provided()
            yield plugin
        finally:
            plugin.close()


@asynccontextmanager
async def background(argv: list[str]) -> AsyncIterator[anyio.abc.Process]:
    """An `xivmcp` command that runs while the test does something else; killed by pid at the end."""
    process = await anyio.open_process(argv, cwd=ROOT, stdin=subprocess.DEVNULL)
    try:
        yield process
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        with anyio.CancelScope(shield=True), anyio.fail_after(WAIT):
            await process.wait()
        await process.aclose()
