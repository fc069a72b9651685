"""S4 across the socket: a CURVE bus admits the data dir's client key and refuses every other.

The broker runs in a thread of the test on a real loopback socket; each client is a process of
its own (`python -c`), which joins with the key it is given and prints what it learned, or the
test's own peer when what matters is how soon it is told (a refused handshake: at once)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

import broker
from broker import _transport
from broker._transport import new_keypair

WAIT = 20.0
"""A backstop for a client process; each one ends by itself (joined, or refused)."""
PATIENT = 30.0
"""The connect_timeout of a client the broker refuses in its handshake: it must not wait it out."""
BACKSTOP = 10.0
"""How long such a client may take to be refused before the test fails (it takes milliseconds)."""

_CLIENT = """
import sys, anyio, broker
from pathlib import Path
endpoint, name, mode, arg = sys.argv[1:5]
if mode == "datadir":
    curve = broker.CurveClient.load(Path(arg))
elif mode == "pair":
    server, public, secret = arg.split(",")
    curve = broker.CurveClient(server=server, public=public, secret=secret)
else:
    curve = None
async def main() -> None:
    try:
        async with broker.connect(endpoint, name, connect_timeout=2.0, curve=curve) as pi:
            print("joined", sorted(pi.peers), flush=True)
    except broker.IpcError as exc:
        print("refused", exc, flush=True)
anyio.run(main)
"""


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def curve_bus(data_dir: Path) -> Iterator[broker.Broker]:
    config = broker.BrokerConfig(endpoint="tcp://127.0.0.1:0", curve=broker.CurveServer.in_dir(data_dir))
    bus = broker.Broker(config).start_in_thread()
    try:
        yield bus
    finally:
        bus.close()


@pytest.fixture
def plain_bus() -> Iterator[broker.Broker]:
    bus = broker.Broker(broker.BrokerConfig(endpoint="tcp://127.0.0.1:0")).start_in_thread()
    try:
        yield bus
    finally:
        bus.close()


async def _refused(endpoint: str, curve: broker.CurveClient | None) -> str:
    """What `connect` raises for a client the broker refuses in its handshake, long before the
    connect_timeout would end (a refusal is told at once, not as "no broker answered")."""
    with anyio.fail_after(BACKSTOP), pytest.raises(broker.IpcRefusedError) as refused:
        async with broker.connect(endpoint, "Knocker", connect_timeout=PATIENT, curve=curve):
            pass
    return str(refused.value)


def _client(endpoint: str, name: str, mode: str, arg: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-c", _CLIENT, endpoint, name, mode, arg],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=os.environ,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_s4_this_users_processes_join_with_the_data_dirs_key(curve_bus: broker.Broker, data_dir: Path) -> None:
    assert _client(curve_bus.endpoint, "Mine", "datadir", str(data_dir)).startswith("joined")
    for name in ("bus-server.key", "bus-client.key"):
        assert stat.S_IMODE((data_dir / name).stat().st_mode) == 0o600, name


def test_s4_a_key_not_allowed_is_refused_and_learns_nothing(curve_bus: broker.Broker, data_dir: Path) -> None:
    server = broker.CurveServer.in_dir(data_dir).public
    public, secret = new_keypair()
    stranger = _client(curve_bus.endpoint, "Evil", "pair", f"{server},{public},{secret}")
    plain = _client(curve_bus.endpoint, "Plain", "plain")
    # No Welcome: not even the peers; only why.
    assert stranger.startswith(f"refused The bus at {curve_bus.endpoint} did not admit"), stranger
    assert plain.startswith(f"refused The bus at {curve_bus.endpoint} admits only processes holding"), plain
    assert "Evil" not in curve_bus.router.peers and "Plain" not in curve_bus.router.peers
    # The player admits the key (as `xivmcp keys import` will): the same process now joins.
    broker.add_client(data_dir / "bus-clients", "laptop", public)
    assert _client(curve_bus.endpoint, "Evil", "pair", f"{server},{public},{secret}").startswith("joined")


def test_s4_a_curve_bus_may_bind_beyond_loopback_and_a_plain_one_may_not(data_dir: Path) -> None:
    with pytest.raises(broker.IpcRefusedError):
        broker.Broker(broker.BrokerConfig(endpoint="tcp://0.0.0.0:0"))
    config = broker.BrokerConfig(endpoint="tcp://0.0.0.0:0", curve=broker.CurveServer.in_dir(data_dir))
    bus = broker.Broker(config).start_in_thread()
    try:
        port = bus.endpoint.rsplit(":", 1)[1]
        # 127.0.0.2 is another address of this machine, as a remote plugin's route would be.
        assert _client(f"tcp://127.0.0.2:{port}", "Remote", "datadir", str(data_dir)).startswith("joined")
    finally:
        bus.close()


def test_s4_a_name_bound_to_one_key_is_refused_to_another(curve_bus: broker.Broker, data_dir: Path) -> None:
    server = broker.CurveServer.in_dir(data_dir).public
    public, secret = new_keypair()
    broker.add_client(data_dir / "bus-clients", "laptop", public)
    assert _client(curve_bus.endpoint, "Shop", "datadir", str(data_dir)).startswith("joined")
    # Shop left; another admitted key may not take its name, even while nobody holds it.
    taken = _client(curve_bus.endpoint, "Shop", "pair", f"{server},{public},{secret}")
    assert taken.startswith("refused") and "bound to another key" in taken, taken
    # B4 still holds: the first key takes its name back, and the other key joins under its own.
    assert _client(curve_bus.endpoint, "Shop", "datadir", str(data_dir)).startswith("joined")
    assert _client(curve_bus.endpoint, "Laptop", "pair", f"{server},{public},{secret}").startswith("joined")


@pytest.mark.asyncio
async def test_s4_a_process_without_a_key_is_told_at_once_that_the_bus_wants_one(curve_bus: broker.Broker) -> None:
    said = await _refused(curve_bus.endpoint, None)
    assert said.startswith(
        f"The bus at {curve_bus.endpoint} admits only processes holding its CURVE key (S4), and this process "
        "joined without one: pass curve=gates.plugin.bus_keys(bus) to broker.connect"
    ), said


@pytest.mark.asyncio
async def test_s4_a_key_the_bus_does_not_admit_is_told_at_once_and_named(
    curve_bus: broker.Broker, data_dir: Path
) -> None:
    stranger = broker.CurveClient.new(broker.CurveServer.in_dir(data_dir).public)
    said = await _refused(curve_bus.endpoint, stranger)
    assert said.startswith(
        f"The bus at {curve_bus.endpoint} did not admit this process's CURVE key {stranger.public}: it admits "
        "this user's key (the data dir's bus-client.key) and the keys `xivmcp keys allow NAME -- KEY` added"
    ), said
    assert "Knocker" not in curve_bus.router.peers


@pytest.mark.asyncio
async def test_s4_a_key_for_a_plain_bus_is_told_at_once_to_join_without(plain_bus: broker.Broker) -> None:
    keys = broker.CurveClient.new(new_keypair()[0])
    said = await _refused(plain_bus.endpoint, keys)
    assert said.startswith(
        f"The bus at {plain_bus.endpoint} does not use CURVE, and this process joined with a key: "
        "join without one (curve=None"
    ), said


@pytest.mark.asyncio
async def test_s4_a_key_made_for_another_bus_is_told_at_once(curve_bus: broker.Broker) -> None:
    elsewhere = broker.CurveClient.new(new_keypair()[0])  # a pair for another broker's public key
    said = await _refused(curve_bus.endpoint, elsewhere)
    assert said.startswith(
        f"The bus at {curve_bus.endpoint} uses CURVE with another key than {elsewhere.server}, the one this "
        "process was given"
    ), said


@pytest.mark.asyncio
async def test_s4_a_process_that_joined_watches_its_handshake_no_more(curve_bus: broker.Broker, data_dir: Path) -> None:
    """The handshake's monitor lives until the Welcome: nothing of it is left on the hot path."""
    with anyio.fail_after(BACKSTOP):
        async with broker.connect(curve_bus.endpoint, "Mine", curve=broker.CurveClient.load(data_dir)) as pi:
            transport = pi._link.transport
            assert isinstance(transport, _transport.DealerTransport)
            assert transport._monitor is None and transport._probe is None
