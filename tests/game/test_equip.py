"""Putting on gear across processes (W1, W2): `Game.Equip`, the change it records with the capability
it needs, its refusals (which change nothing), and a world file's `gear` checked by field."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from game import GameError, GearInfo, SnapshotDelta, default_world
from game._world_file import check_world
from gates.testing import XivMcpSystem

from ._system import TESTER, WAIT, game_peer, game_system

CAP, RING, BRACELET = 44_033, 44_031, 44_032


@pytest.fixture(scope="module")
def wardrobe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with game_system(tmp_path_factory.mktemp("wardrobe")) as system:
        yield system


@pytest.mark.asyncio
async def test_w2_equip_moves_the_piece_from_the_bags_into_its_slot(wardrobe: XivMcpSystem) -> None:
    async with game_peer(wardrobe) as (_, game):
        with anyio.fail_after(WAIT):
            await game.reset()
            for item in (CAP, RING, BRACELET):
                await game.set(f"inventory.{item}", 1)
            seq = (await game.snapshot()).seq
            for item, message in [
                (4554, "Game.Equip: Hi-Potion (4554) is not gear: the world's `gear` gives it no slot"),
                (BRACELET, "Game.Equip: Ceremonial Bracelet of Healing cannot be worn as Warrior; it is for CNJ, "),
            ]:
                with pytest.raises(GameError) as refused:
                    await game.equip(item)
                assert refused.value.message.startswith(message)
            assert (await game.snapshot()).seq == seq  # refused: nothing recorded

            put_on = await game.equip(CAP)
            assert put_on.slot == "Head" and not put_on.already
            assert [(c.by, c.capability, c.delta) for c in put_on.changes] == [
                (TESTER, "move_items", SnapshotDelta())  # the helm it replaced went back into the bags
            ]
            ring = await game.equip(RING)
            assert ring.slot == "RightRing"
            again = await game.equip(RING)
            assert again.already and again.changes == []
            sheet = (await game.character_sheet()).sheet
            assert {e.slot: e.item_id for e in sheet.equipment}["Head"] == CAP


def test_w1_a_world_file_with_wrong_gear_names_the_field() -> None:
    world = default_world()
    world.gear.append(GearInfo(item_id=4554, slot="Tail"))
    assert check_world(world) is not None and "`$.gear[3].slot` is 'Tail'" in (check_world(world) or "")
    world = default_world()
    world.gear[0].jobs.append("XYZ")
    assert "`$.gear[0].jobs` names 'XYZ'" in (check_world(world) or "")
    world = default_world()
    world.gear.append(GearInfo(item_id=999_999, slot="Head"))
    assert "`$.gear[3].itemId` is 999999" in (check_world(world) or "")
