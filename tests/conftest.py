"""Shared fixtures: free loopback endpoints, a broker subprocess, peer subprocesses.

Every process a test starts is killed by pid (SIGKILL) and reaped in teardown, whether the
test passed or not. Readiness is always an event: a line on the process's stdout, or a state
of the bus seen by the test's own peer, waited for under `anyio.fail_after`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO

import anyio
import anyio.abc
import pytest
import pytest_asyncio
from anyio.streams.buffered import BufferedByteReceiveStream

ROOT = Path(__file__).resolve().parent.parent
PEER_SCRIPT = Path(__file__).resolve().parent / "bus" / "_peer_proc.py"
START_TIMEOUT = 10.0
"""Seconds a process may take to start (a loaded CI machine imports slowly)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def free_endpoint() -> str:
    return f"tcp://127.0.0.1:{free_port()}"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)


class BrokerProcess:
    """`xivmcp broker --bus ENDPOINT` as a subprocess; `start()` returns once it is bound."""

    def __init__(self, endpoint: str, *extra: str) -> None:
        self.endpoint = endpoint
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        """Start the broker and wait for its "listening" line (printed after it bound)."""
        assert self.proc is None or self.proc.poll() is not None, "the broker is already running"
        argv = [sys.executable, "-m", "xivmcp", "broker", "--bus", self.endpoint, *self.extra]
        self.proc = proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        line = _readline_within(proc.stdout, START_TIMEOUT)
        if "listening on" not in line:
            _kill(proc)
            proc.stdout.close()
            raise RuntimeError(f"the broker did not start on {self.endpoint} (exit {proc.returncode}): {line!r}")
        # It is bound; make sure it also accepts a connection.
        host, port = self.endpoint.removeprefix("tcp://").rsplit(":", 1)
        socket.create_connection((host, int(port)), timeout=START_TIMEOUT).close()

    def kill(self) -> None:
        """kill -9 by pid, and reap."""
        if self.proc is not None:
            _kill(self.proc)
            if self.proc.stdout is not None:
                self.proc.stdout.close()


def _readline_within(stream: IO[bytes], timeout: float) -> str:
    """One line from a pipe, or "" if none came within `timeout` seconds (or the pipe closed)."""
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        if not sel.select(timeout):
            return ""
    return stream.readline().decode(errors="replace")


@pytest.fixture
def broker_proc(free_endpoint: str) -> Iterator[BrokerProcess]:
    """A running broker subprocess on a free loopback port (retried if the port got taken)."""
    endpoint = free_endpoint
    for attempt in range(3):
        proc = BrokerProcess(endpoint)
        try:
            proc.start()
            break
        except RuntimeError:
            if attempt == 2:
                raise
            endpoint = f"tcp://127.0.0.1:{free_port()}"
    try:
        yield proc
    finally:
        proc.kill()


class PeerProcess:
    """A child process whose stdout the test reads line by line."""

    def __init__(self, process: anyio.abc.Process, argv: list[str]) -> None:
        self.process = process
        self.argv = argv
        assert process.stdout is not None
        self._out = BufferedByteReceiveStream(process.stdout)
        self.lines: list[str] = []

    @property
    def pid(self) -> int:
        return self.process.pid

    async def readline(self) -> str:
        """The next stdout line; fails if the process ends first."""
        try:
            raw = await self._out.receive_until(b"\n", 1 << 20)
        except (anyio.EndOfStream, anyio.IncompleteRead):
            raise AssertionError(f"{self.argv} ended (exit {self.process.returncode}) before printing a line") from None
        line = raw.decode()
        self.lines.append(line)
        return line

    async def expect(self, prefix: str, within: float = START_TIMEOUT) -> str:
        """Read lines until one starts with `prefix`, within `within` seconds; return it."""
        with anyio.fail_after(within):
            while True:
                line = await self.readline()
                if line.startswith(prefix):
                    return line

    def kill(self) -> None:
        """kill -9 by pid."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    async def aclose(self) -> None:
        self.kill()
        with anyio.CancelScope(shield=True), anyio.fail_after(10):
            await self.process.wait()
            await self.process.aclose()


Spawn = Callable[..., Awaitable[PeerProcess]]


@pytest_asyncio.fixture
async def spawn() -> AsyncIterator[Spawn]:
    """`await spawn(argv...)` starts a child process; `await spawn_peer(...)` a peer script.

    Each is killed by pid and reaped in teardown.
    """
    started: list[PeerProcess] = []

    async def _spawn(*argv: str) -> PeerProcess:
        process = await anyio.open_process(list(argv), cwd=ROOT, stdin=subprocess.DEVNULL, stderr=None)
        peer = PeerProcess(process, list(argv))
        started.append(peer)
        return peer

    try:
        yield _spawn
    finally:
        for peer in started:
            await peer.aclose()


@pytest_asyncio.fixture
async def spawn_peer(spawn: Spawn, broker_proc: BrokerProcess) -> Spawn:
    """`await spawn_peer(ROLE, NAME, *args)`: start tests/bus/_peer_proc.py on the test's broker."""

    async def _spawn_peer(role: str, name: str, *args: str) -> PeerProcess:
        return await spawn(sys.executable, str(PEER_SCRIPT), broker_proc.endpoint, role, name, *args)

    return _spawn_peer


@pytest_asyncio.fixture
async def ready_provider(spawn_peer: Spawn) -> PeerProcess:
    """A provider process named "Prov", registered (its "ready" line seen)."""
    proc = await spawn_peer("provider", "Prov")
    await proc.expect("ready")
    return proc
