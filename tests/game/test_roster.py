"""The reading gates of the character's sheet, its party and the objects around it, across processes (W1):
what each answers on the default world, that they answer a plugin too, and that reading records nothing."""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import pytest

from game import GameGate, default_world, player_entity_id

from ._system import WAIT, call, game_peer, game_system

pytestmark = pytest.mark.asyncio

WUK_LAMAT, ERENVILLE = 18014449511251234, 18014449511259876


async def test_w1_the_sheet_party_and_objects_of_the_default_world_and_nothing_is_recorded(tmp_path: Path) -> None:
    world = default_world()
    with game_system(tmp_path) as system:
        async with game_peer(system, player=False) as (pi, game):  # a plugin reads them as the host does
            with anyio.fail_after(WAIT):
                before = await game.snapshot()
                sheet = await game.character_sheet()
                assert (sheet.job, sheet.level, sheet.sheet.content_id) == ("Warrior", 100, WUK_LAMAT)
                assert sheet.sheet == world.sheets[0] and sheet.sheet.gearset == 1
                assert [g.job for g in sheet.sheet.gearsets] == ["WAR", "PLD", "WHM", "CRP"]

                party = await game.party()
                assert [(m.name, m.job, m.territory, m.leader) for m in party] == [
                    ("Koana Ruhl", "WHM", 1185, True),
                    ("G'raha Tia", "BLM", 1188, False),
                ]

                table = await game.objects()
                assert (table.territory, table.position, table.target) == (1185, world.player.position, None)
                kinds = {o.name: o.kind for o in table.objects}
                assert kinds == {
                    "Summoning Bell": "EventObj",
                    "Material Supplier": "EventNpc",
                    "Striking Dummy": "BattleNpc",
                    "Tuliyollal": "Aetheryte",
                    "Koana Ruhl": "Pc",  # G'raha Tia is in Kozama'uka: not in this zone's table
                }
                koana = next(o for o in table.objects if o.kind == "Pc")
                assert koana.game_object_id == koana.entity_id == player_entity_id(party[0].content_id)
                assert (koana.class_job, koana.level, koana.home_world) == ("WHM", 100, "Ravana")
                dummy = next(o for o in table.objects if o.kind == "BattleNpc")
                assert (dummy.level, dummy.hp, dummy.max_hp) == (100, 44_000, 44_000)

                after = await game.snapshot()
                assert after == before and (await game.changes(before.seq)).changes == []
            raw = await call(pi, GameGate.GET_OBJECTS, "")
            assert raw["ok"] is True and {"gameObjectId", "entityId", "baseId", "kind"} <= raw["objects"][0].keys()


async def test_w1_the_sheet_follows_the_character_and_the_table_its_zone(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.login("Erenville")  # in Kozama'uka, a level 92 Bard
                sheet = await game.character_sheet()
                assert (sheet.job, sheet.level, sheet.sheet.content_id) == ("Bard", 92, ERENVILLE)
                assert [(c.job, c.level) for c in sheet.sheet.class_jobs] == [("BRD", 92), ("BTN", 100)]
                table = await game.objects()
                assert table.territory == 1188
                assert {o.name for o in table.objects} == {"Wuk Evu", "Ok'hanu", "Many Fires", "G'raha Tia"}
                await game.set_target("G'raha Tia")
                assert (await game.objects()).target == "G'raha Tia"


async def test_w1_a_character_with_no_sheet_reads_an_empty_one(tmp_path: Path) -> None:
    world = default_world()
    world.sheets = []
    world.party = []
    path = tmp_path / "bare.json"
    path.write_bytes(msgspec.json.encode(world))
    with game_system(tmp_path, "--world", str(path)) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                sheet = await game.character_sheet()
                assert sheet.sheet.content_id == WUK_LAMAT and sheet.sheet.class_jobs == []
                assert sheet.sheet.equipment == [] and sheet.sheet.gearset == 0
                assert await game.party() == []
