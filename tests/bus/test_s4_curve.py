"""S4 across the socket: a CURVE bus admits the data dir's client key and refuses every other.

The broker runs in a thread of the test on a real loopback socket; each client is a process of
its own (`python -c`), which joins with the key it is given and prints what it learned."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import broker
from broker._transport import new_keypair

WAIT = 20.0
"""A backstop for a client process; each one ends by itself (joined, or refused after 2 s)."""

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
    for said in (stranger, plain):
        assert said.startswith("refused No broker answered"), said  # no Welcome: not even the peers
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
