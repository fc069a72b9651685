"""The reading gates across processes (W1): what each answers, and that reading records nothing."""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import pytest

from game import GameGate, default_world, to_map

from ._system import WAIT, call, game_peer, game_system

pytestmark = pytest.mark.asyncio


async def test_w1_every_reading_gate_answers_the_default_world_and_records_nothing(tmp_path: Path) -> None:
    world = default_world()
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                player = await game.player()
                assert (player.player.name, player.zone, player.moving) == ("Wuk Lamat", "Tuliyollal", False)
                where = await game.position()
                tuliyollal = world.zones[0]
                expected = to_map(tuliyollal.map, world.player.position.x, world.player.position.z)
                assert (where.territory, where.zone, where.position) == (1185, "Tuliyollal", world.player.position)
                assert (where.map_x, where.map_y) == pytest.approx(expected)
                bags = await game.inventory()
                assert bags.total == sum(i.count for i in world.inventory) and bags.items == world.inventory
                money = await game.currencies()
                assert money.gil == 100_000 and {c.id for c in money.currencies} == {25, 28, 29}
                assert await game.windows() == [] and await game.flag() is None and await game.chat() == []
                zones = await game.zones()
                assert {z.territory: z.name for z in zones} == {
                    1185: "Tuliyollal",
                    1188: "Kozama'uka",
                    129: "Limsa Lominsa Lower Decks",
                    134: "Middle La Noscea",
                    177: "Mizzenmast Inn",
                    283: "Private House - Mist",
                    423: "Company Workshop - Mist",
                    608: "Topmast Apartment",
                    1194: "The Skydeep Cenote",  # a duty's zone (`_default_worlds`)
                }
                potion = next(i for i in await game.items() if i.item_id == 4554)
                assert (potion.name, potion.price, potion.sell_price) == ("Hi-Potion", 320, 12)
                clock = await game.time()
                assert (clock.time, clock.test_clock) == (0.0, True)
                assert await game.state() == world
                snapshot = await game.snapshot()
                assert snapshot.seq == 0 and snapshot.snapshot.item_total == bags.total
                changes = await game.changes(0)
                assert changes.changes == [] and changes.complete and changes.seq == 0
            # the raw reply: {"ok": true, ...} with the wire's camelCase names
            raw = await call(pi, GameGate.GET_POSITION, "")
            assert raw["ok"] is True and {"mapX", "mapY", "territory", "moving"} <= raw.keys()
            raw = await call(pi, GameGate.TIME, None)
            assert raw == {"ok": True, "time": 0.0, "testClock": True}


async def test_w1_get_chat_takes_a_limit_and_lists_the_newest_last(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                for n in range(3):
                    await game.send_chat(f"line {n}")
                assert [line.text for line in await game.chat(limit=2)] == ["line 1", "line 2"]
                assert [line.by for line in await game.chat()] == ["Tester"] * 3


async def test_w1_the_seed_is_recorded_and_the_default_world_is_the_same_for_every_seed(tmp_path: Path) -> None:
    with game_system(tmp_path, "--seed", "7") as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                world = await game.state()
    assert world.seed == 7 and world == default_world(7) == msgspec.structs.replace(default_world(3), seed=7)
