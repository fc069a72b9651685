"""Shared fixtures, on the shipped harness (`gates.testing`): a broker subprocess, peer subprocesses.

Every process a test starts is killed by pid (SIGKILL) and reaped in teardown, whether the
test passed or not. Readiness is always an event: a line on the process's stdout, or a state
of the bus seen by the test's own peer, waited for under a timeout.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from gates import testing
from gates.testing import Process, XivMcpSystem
from tests._blocks import System

ROOT = Path(__file__).resolve().parent.parent

# Each test starts several Python processes (broker, host, game, plugins). Where the environment
# forbids bytecode (PYTHONDONTWRITEBYTECODE, as on the machine this was written on), each of
# them would compile the project's modules from source again: about a tenth of the suite's
# time. Its processes may write it (into the gitignored __pycache__ folders), as Python does
# by default.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
PEER_SCRIPT = Path(__file__).resolve().parent / "bus" / "_peer_proc.py"
START_TIMEOUT = 10.0
"""Seconds a process may take to start (a loaded CI machine imports slowly)."""

BrokerProcess = XivMcpSystem
"""The bus tests' system: a broker alone (`start_broker`), its endpoint, its process."""
PeerProcess = Process
Spawn = Callable[..., Awaitable[Process]]


@pytest.fixture
def free_endpoint() -> str:
    return testing.free_endpoint()


@pytest.fixture
def broker_proc(tmp_path: Path) -> Iterator[XivMcpSystem]:
    """A running broker subprocess on a free loopback port (`xivmcp broker`)."""
    with XivMcpSystem(tmp_path, cwd=ROOT) as system:
        system.start_broker()
        yield system


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    """`await spawn(argv...)` starts a child process; each is killed by pid and reaped in teardown."""
    started: list[Process] = []

    async def _spawn(*argv: str) -> Process:
        proc = Process(argv, cwd=ROOT, log=tmp_path / "logs" / f"spawn-{len(started)}.log")
        started.append(proc)
        return proc

    try:
        yield _spawn
    finally:
        for proc in started:
            proc.kill()


@pytest.fixture
def spawn_peer(spawn: Spawn, broker_proc: XivMcpSystem) -> Spawn:
    """`await spawn_peer(ROLE, NAME, *args)`: start tests/bus/_peer_proc.py on the test's broker."""

    async def _spawn_peer(role: str, name: str, *args: str) -> Process:
        return await spawn(sys.executable, str(PEER_SCRIPT), broker_proc.endpoint, role, name, *args)

    return _spawn_peer


@pytest_asyncio.fixture
async def ready_provider(spawn_peer: Spawn) -> Process:
    """A provider process named "Prov", registered (its "ready" line seen)."""
    proc = await spawn_peer("provider", "Prov")
    await proc.expect("ready")
    return proc


@pytest.fixture(scope="module")
def docs_system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    """The private system the docs pages of one test file share (`tests/_blocks.py`)."""
    system = System(tmp_path_factory.mktemp("docs-system"))
    try:
        yield system
    finally:
        system.close()
