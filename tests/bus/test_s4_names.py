"""S4: an InternalName stays with the key that first took it, across a broker's restart, and the
harness's plugins each join with a key of their own, so there a name is one plugin's.

The first test runs brokers in a thread of the test on one data dir, one after the other; the
second a CURVE system of the harness (`xivmcp broker --curve`), joined from the test."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import anyio
import pytest

import broker
from gates import testing

pytestmark = pytest.mark.anyio

WAIT = 10.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _broker(data_dir: Path) -> broker.Broker:
    config = broker.BrokerConfig(endpoint="tcp://127.0.0.1:0", curve=broker.CurveServer.in_dir(data_dir))
    return broker.Broker(config).start_in_thread()


async def _join(endpoint: str, name: str, keys: broker.CurveClient) -> str:
    """ "joined", or the refusal's message."""
    with anyio.fail_after(WAIT):
        try:
            async with broker.connect(endpoint, name, curve=keys, connect_timeout=WAIT / 2):
                return "joined"
        except broker.IpcRefusedError as exc:
            return str(exc)


async def test_s4_a_name_stays_bound_to_its_key_when_the_broker_starts_again(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    first = _broker(data_dir)
    mine = broker.CurveClient.load(data_dir)
    assert mine is not None
    laptop = broker.CurveClient.new(mine.server)
    broker.add_client(data_dir / "bus-clients", "laptop", laptop.public)
    try:
        assert await _join(first.endpoint, "Shop", mine) == "joined"
    finally:
        first.close()
    kept = data_dir / "bus-names.jsonl"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert [json.loads(line) for line in kept.read_text().splitlines()] == [{"name": "Shop", "key": mine.public}]
    # The bus was down; another admitted key may not take the name when it is back.
    second = _broker(data_dir)
    try:
        refused = await _join(second.endpoint, "Shop", laptop)
        assert "The name 'Shop' is bound to another key on this bus" in refused, refused
        assert await _join(second.endpoint, "Shop", mine) == "joined"  # its own key takes it back
        assert await _join(second.endpoint, "Laptop", laptop) == "joined"
    finally:
        second.close()
    assert len(kept.read_text().splitlines()) == 2  # Laptop's new binding; Shop's was not written twice


async def test_s4_the_harness_gives_each_plugin_a_key_of_its_own_so_a_name_is_one_plugins(
    tmp_path: Path,
) -> None:
    with testing.XivMcpSystem(tmp_path, curve=True) as system:
        system.start_broker()
        shop_dir, other_dir = system.plugin_data_dir("Shop"), system.plugin_data_dir("Other")
        shop, other = broker.CurveClient.load(shop_dir), broker.CurveClient.load(other_dir)
        assert shop is not None and other is not None and shop.public != other.public
        assert not (shop_dir / "player.key").exists()  # B8: a plugin's data dir is not the player's
        assert await _join(system.endpoint, "Shop", shop) == "joined"
        refused = await _join(system.endpoint, "Shop", other)
        assert "bound to another key" in refused, refused
        # What a plugin process finds by itself in its data dir: this bus, with its key.
        from gates.plugin import bus_keys

        assert bus_keys(system.endpoint, shop_dir) == shop
