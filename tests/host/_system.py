"""Helpers of the host tests: the system as real processes, the test's own peer, the player.

    system = HostSystem(tmp_path)        # broker + host (`--test-clock`) on a free loopback port
    system.start()                       # returns once the host's gates are on the bus
    plugin = system.start_sample("myplugin")
    await plugin.expect("MyPlugin: registered myplugin_restock")
    async with broker.connect(system.endpoint, "TestPeer") as pi:
        player = Player(pi, system.data_dir)
        await player.ok("enable", plugin="MyPlugin")

Every process is started here with `subprocess.Popen`, remembered, and killed by pid (SIGKILL)
and reaped in `close()`, which the fixtures call in their teardown whatever the test did. A
process's stdout is read line by line by a thread; `expect()` waits for a line (an event), never
for time to pass. Readiness of the host is a state of the bus seen by a peer of the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.abc
import anyio.to_thread

import broker
from broker import Broker, BrokerConfig
from gates import HostConfig, read_player_key
from gates._host import Host
from gates._host_gates import host_running

ROOT = Path(__file__).resolve().parents[2]
WAIT = 10.0
"""Seconds any one awaited event may take (a loaded 2-core CI machine starts processes slowly)."""
HOST_FLAGS = ("--test-clock", "--no-mcp")
"""How the tests run `xivmcp host`: on the manual clock, and without the MCP endpoint (not theirs to test)."""


def free_endpoint() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def xivmcp(*args: str) -> list[str]:
    return [sys.executable, "-m", "xivmcp", *args]


# --------------------------------------------------------------------------- child processes


class Proc:
    """A child process; its stdout is collected line by line by a thread."""

    def __init__(self, argv: list[str], log: Path, *, new_session: bool = False) -> None:
        self.argv = argv
        self.new_session = new_session
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as err:
            self.popen = subprocess.Popen(
                argv,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=new_session,
            )
        self.log = log
        self.lines: list[str] = []
        self._seen = 0
        self._changed = threading.Condition()
        self._eof = False
        assert self.popen.stdout is not None
        threading.Thread(target=self._read, args=(self.popen.stdout,), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def _read(self, stream: IO[bytes]) -> None:
        for raw in stream:
            with self._changed:
                self.lines.append(raw.decode(errors="replace").rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def wait_line(self, prefix: str, timeout: float = WAIT) -> str:
        """The next line (after those already taken) that starts with `prefix`; blocks up to `timeout`."""
        with self._changed:
            while True:
                while self._seen < len(self.lines):
                    line = self.lines[self._seen]
                    self._seen += 1
                    if line.startswith(prefix):
                        return line
                if self._eof:
                    raise AssertionError(
                        f"{self.argv[2:]} ended before printing {prefix!r}: {self.lines}; {self._err()}"
                    )
                if not self._changed.wait(timeout):
                    raise AssertionError(f"{self.argv[2:]} did not print {prefix!r} within {timeout} s: {self.lines}")

    async def expect(self, prefix: str, within: float = WAIT) -> str:
        """`wait_line` without blocking the event loop."""
        return await anyio.to_thread.run_sync(self.wait_line, prefix, within, abandon_on_cancel=True)

    def skip_to_end(self) -> None:
        """Forget the lines printed so far: `expect` then waits for new ones."""
        with self._changed:
            self._seen = len(self.lines)

    def _err(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def kill(self) -> None:
        """kill -9 by pid (the whole session for a process started in its own), and reap."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                if self.new_session:
                    os.killpg(self.popen.pid, signal.SIGKILL)
                else:
                    os.kill(self.popen.pid, signal.SIGKILL)
        elif self.new_session:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)  # children it left behind
        self.popen.wait(10)
        if self.popen.stdout is not None:
            self.popen.stdout.close()

    def terminate(self, timeout: float = WAIT, sig: int = signal.SIGTERM) -> int:
        """SIGTERM (or `sig`) by pid and wait for the exit code (SIGKILL if it does not end)."""
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.argv[2:]} did not stop on SIGTERM within {timeout} s") from None


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


class HostSystem:
    """`xivmcp broker` and `xivmcp host --test-clock` as separate processes, plus sample plugins."""

    def __init__(self, root: Path, *host_flags: str) -> None:
        self.root = root
        self.data_dir = root / "data"
        self.logs = root / "logs"
        self.endpoint = free_endpoint()
        self.host_flags = host_flags or HOST_FLAGS
        self.broker: Proc | None = None
        self.host: Proc | None = None
        self.procs: list[Proc] = []

    def spawn(self, argv: list[str], name: str, *, new_session: bool = False) -> Proc:
        proc = Proc(argv, self.logs / f"{name}.log", new_session=new_session)
        self.procs.append(proc)
        return proc

    def start(self) -> HostSystem:
        self.start_broker()
        self.start_host()
        return self

    def start_broker(self) -> None:
        for attempt in range(3):
            self.broker = self.spawn(xivmcp("broker", "--bus", self.endpoint), "broker")
            try:
                self.broker.wait_line("xivmcp broker: listening")
                return
            except AssertionError:
                self.broker.kill()
                if attempt == 2:
                    raise
                self.endpoint = free_endpoint()  # the port was taken meanwhile

    def start_host(self, *extra: str) -> Proc:
        argv = xivmcp("host", "--bus", self.endpoint, "--data-dir", str(self.data_dir), *self.host_flags, *extra)
        self.host = self.spawn(argv, "host")
        run_in_thread(self.wait_host_ready)
        return self.host

    async def wait_host_ready(self) -> None:
        """Wait on the bus until the host's gates are there (its IsReady answers)."""
        async with broker.connect(self.endpoint, f"Waiter{os.getpid()}") as pi:
            with anyio.fail_after(WAIT):
                await pi.get_ipc_subscriber("XivMcp.IsReady").wait_ready()
                assert await pi.get_ipc_subscriber("XivMcp.IsReady").invoke_func() is True

    def start_sample(self, module: str, *args: str) -> Proc:
        argv = [sys.executable, "-m", f"plugins_sample.{module}", "--bus", self.endpoint, *args]
        return self.spawn(argv, module)

    def cli(self, *args: str) -> list[str]:
        """argv of an `xivmcp` command on this system."""
        return xivmcp(*args, "--bus", self.endpoint, "--data-dir", str(self.data_dir))

    @property
    def player_key(self) -> str:
        return read_player_key(self.data_dir)

    def audit(self) -> list[dict[str, Any]]:
        return read_audit(self.data_dir)

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.kill()


def read_audit(data_dir: Path) -> list[dict[str, Any]]:
    """DATA_DIR/audit.jsonl, one JSON object a line (each line must be one)."""
    text = (data_dir / "audit.jsonl").read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines() if line]
    assert all(isinstance(e, dict) for e in entries)
    return entries


@contextlib.contextmanager
def host_system(root: Path, *host_flags: str) -> Iterator[HostSystem]:
    system = HostSystem(root, *host_flags)
    try:
        yield system.start()
    finally:
        system.close()


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


async def gate(pi: broker.PluginInterface, name: str, *args: object) -> Any:
    """Call host gate `XivMcp.<name>` and decode its JSON reply (ApiVersion and IsReady as they are)."""
    with anyio.fail_after(WAIT):
        reply = await pi.get_ipc_subscriber(f"XivMcp.{name}").invoke_func(*args)
    if isinstance(reply, str):
        decoded = json.loads(reply)
        assert isinstance(decoded, dict), reply
        return decoded
    return reply


async def ok(pi: broker.PluginInterface, name: str, *args: object) -> dict[str, Any]:
    reply = await gate(pi, name, *args)
    assert reply.get("ok") is True, reply
    assert isinstance(reply, dict)
    return reply


async def refused(pi: broker.PluginInterface, name: str, *args: object) -> str:
    """The error of a host gate that must refuse: `{"ok": false, "error": "…"}` and nothing else."""
    reply = await gate(pi, name, *args)
    assert reply.get("ok") is False and set(reply) == {"ok", "error"}, reply
    assert isinstance(reply["error"], str) and reply["error"], reply
    return str(reply["error"])


class Player:
    """The player at the /xivmcp window: commands on `XivMcp.Player` with the key from the data dir."""

    def __init__(self, pi: broker.PluginInterface, data_dir: Path) -> None:
        self.pi = pi
        self.key = read_player_key(data_dir)

    async def __call__(self, cmd: str, *, within: float = WAIT, **fields: Any) -> dict[str, Any]:
        with anyio.fail_after(within):
            text = await self.pi.get_ipc_subscriber("XivMcp.Player").invoke_func(
                self.key, json.dumps({"cmd": cmd, **fields})
            )
        reply: dict[str, Any] = json.loads(text)
        return reply

    async def ok(self, cmd: str, *, within: float = WAIT, **fields: Any) -> dict[str, Any]:
        reply = await self(cmd, within=within, **fields)
        assert reply.get("ok") is True, reply
        return reply

    async def plugin(self, name: str) -> dict[str, Any]:
        """The plugin's card in `plugins`."""
        plugins = (await self.ok("plugins"))["plugins"]
        cards = [p for p in plugins if p["name"] == name]
        assert cards, f"{name} is not among {[p['name'] for p in plugins]}"
        card: dict[str, Any] = cards[0]
        return card

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> dict[str, Any]:
        """`call` as the assistant would: {"ok": true, "result": …} or {"ok": true, "isError": true, "error": …}."""
        return await self.ok("call", tool=tool, arguments=arguments or {}, within=within)

    async def result(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        reply = await self.call(tool, arguments)
        assert "isError" not in reply, reply
        return reply["result"]

    async def error(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        reply = await self.call(tool, arguments)
        assert reply.get("isError") is True, reply
        return str(reply["error"])

    async def approval(self, tool: str) -> dict[str, Any]:
        """Wait until an approval for `tool` waits for the player; return it."""
        approvals = (await self.ok("approvals", wait=WAIT, within=WAIT + 5))["approvals"]
        mine = [a for a in approvals if a["tool"] == tool]
        assert mine, f"no approval for {tool} waits: {approvals}"
        found: dict[str, Any] = mine[0]
        return found

    async def answer(self, approval_id: str, answer: str) -> dict[str, Any]:
        return await self.ok("answer", approvalId=approval_id, answer=answer)

    async def set_modes(self, plugin: str, **modes: str) -> None:
        for target, mode in modes.items():
            await self.ok("mode", plugin=plugin, target=target, mode=mode)


class CallInFlight:
    """A tool call made in the background by the test (the assistant waiting for its answer)."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.reply: dict[str, Any] = {}

    async def run(self, player: Player, tool: str, arguments: dict[str, Any] | None) -> None:
        try:
            self.reply = await player.ok("call", tool=tool, arguments=arguments or {}, within=WAIT * 3)
        except broker.IpcError as exc:  # the host went away during the call
            self.reply = {"ipcError": f"{type(exc).__name__}: {exc}"}
        self.done.set()

    async def outcome(self) -> dict[str, Any]:
        with anyio.fail_after(WAIT):
            await self.done.wait()
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
            self._invoke
        )
        if cancel_gate:
            pi.get_ipc_provider(f"{self.name}.XivMcp.Cancel", params=(str,)).register_action(self._cancel)

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
