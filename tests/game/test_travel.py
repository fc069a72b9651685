"""Gearsets, duties, the account's characters and the worlds they visit, across processes (W1, W2):
each gate's effect on the world, the change it records with the capability it needs, and refusals
that change nothing."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from game import GameClient, SnapshotDelta, default_world
from game._world_file import check_world
from gates.testing import XivMcpSystem

from ._system import TESTER, fresh, game_system, refusal

SKYDEEP = 1194


@pytest.fixture(scope="module")
def travel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with game_system(tmp_path_factory.mktemp("travel")) as system:
        yield system


async def unchanged_by(game: GameClient, *calls: object) -> list[str]:
    """The refusals of `calls`, each checked to have changed nothing."""
    before = await game.snapshot()
    messages = [await refusal(call) for call in calls]
    assert (await game.changes(before.seq)).changes == [] and await game.snapshot() == before
    return messages


@pytest.mark.asyncio
async def test_w2_equipping_a_gearset_changes_the_job_and_the_gear_recorded_as_game_ui(travel: XivMcpSystem) -> None:
    async with fresh(travel) as (_, game):
        sheet = (await game.character_sheet()).sheet
        assert sheet.gearset == 1 and len(sheet.equipment) == 12
        [change] = (await game.equip_gearset(2)).changes
        assert (change.by, change.capability, change.summary) == (
            TESTER,
            "game_ui",
            "equipped gearset 2 (Paladin): Warrior → Paladin",
        )
        assert change.delta == SnapshotDelta()  # nothing XIV MCP's snapshot reads
        reply = await game.character_sheet()
        assert (reply.job, reply.level, reply.sheet.gearset) == ("Paladin", 92, 2)
        assert [i.name for i in reply.sheet.equipment][:2] == ["Ceremonial Sword", "Ceremonial Shield"]
        assert check_world(await game.state()) is None  # the sheet still agrees with the character
        assert (await game.equip_gearset(2)).changes == []  # worn already: nothing to change
        await game.equip_gearset(1)
        reply = await game.character_sheet()
        assert (reply.job, reply.level, len(reply.sheet.equipment)) == ("Warrior", 100, 12)


@pytest.mark.asyncio
async def test_w1_equipping_is_refused_in_combat_or_for_a_set_that_is_not_there(travel: XivMcpSystem) -> None:
    async with fresh(travel) as (_, game):
        await game.start_combat()
        assert await unchanged_by(game, game.equip_gearset(2), game.equip_gearset(9)) == [
            "Game.EquipGearset: the character is in combat and cannot change gear; end the fight first "
            "(Game.EndCombat)",
            "Game.EquipGearset: the character is in combat and cannot change gear; end the fight first "
            "(Game.EndCombat)",
        ]
        await game.end_combat()
        [message] = await unchanged_by(game, game.equip_gearset(9))
        assert message == (
            "Game.EquipGearset: the character has no gearset 9; its gearsets are 1 Warrior, 2 Paladin, "
            "3 White Mage, 4 Carpenter (Game.GetCharacterSheet)"
        )


@pytest.mark.asyncio
async def test_w2_a_duty_is_entered_and_left_as_a_change_of_zone_recorded_as_combat(travel: XivMcpSystem) -> None:
    async with fresh(travel) as (_, game):
        [message] = await unchanged_by(game, game.leave_duty())
        assert message == "Game.LeaveDuty: the character is not in a duty"
        start = (await game.player()).player
        [entered] = (await game.enter_duty(SKYDEEP)).changes
        assert (entered.capability, entered.delta.territory) == ("combat", SKYDEEP)
        assert (await game.state()).duty is not None
        await game.start_combat()
        [message] = await unchanged_by(game, game.leave_duty())
        assert message.endswith("cannot leave the duty until the fight is over (Game.EndCombat)")
        await game.end_combat()
        [left] = (await game.leave_duty()).changes
        assert (left.by, left.capability, left.summary) == (
            TESTER,
            "combat",
            "left the duty The Skydeep Cenote, back in Tuliyollal",
        )
        here = (await game.player()).player
        assert (here.territory, here.position) == (start.territory, start.position)
        assert (await game.state()).duty is None


@pytest.mark.asyncio
async def test_w2_a_world_visit_changes_the_current_world_recorded_as_move_character(travel: XivMcpSystem) -> None:
    async with fresh(travel) as (_, game):
        account = await game.characters()
        assert [c.name for c in account.characters] == ["Wuk Lamat", "Erenville"]
        assert {w.data_center for w in account.worlds} == {"Materia", "Light"}
        [visit] = (await game.travel_to_world("shiva")).changes
        assert (visit.capability, visit.summary, visit.delta.world) == (
            "move_character",
            "travelled from Ravana to Shiva (Light)",
            85,
        )
        player = (await game.player()).player
        assert (player.world, player.current_world, (await game.snapshot()).snapshot.world) == ("Ravana", "Shiva", 85)
        assert (await game.travel_to_world("Shiva")).changes == []
        [home] = (await game.travel_to_world("Ravana")).changes
        assert home.summary == "travelled from Shiva to Ravana (Materia), home" and home.delta.world == 74
        [message] = await unchanged_by(game, game.travel_to_world("Atlantis"))
        assert message.startswith("Game.TravelToWorld: there is no public world named 'Atlantis'; this game's worlds")
        await game.enter_duty(SKYDEEP)
        [message] = await unchanged_by(game, game.travel_to_world("Shiva"))
        assert message == (
            "Game.TravelToWorld: the character is in the duty The Skydeep Cenote and cannot travel; leave it first"
        )


def test_w1_a_world_file_names_its_worlds_and_duty_consistently() -> None:
    world = default_world()
    world.player = msgspec.structs.replace(world.player, current_world="Shiva")
    assert (
        check_world(world) == "`$.player.currentWorld` and `$.player.currentWorldId` go together: give both, or neither"
    )
    world = default_world()
    world.player = msgspec.structs.replace(world.player, current_world="Nowhere", current_world_id=999)
    assert check_world(world) == "`$.player.currentWorldId` is 999, not one of `$.worlds`"
