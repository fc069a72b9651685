"""navigate_to's places against the simulated game, all real processes (W6).

The real host's destinations beyond an object or an NPC: the inn, the character's housing (home,
fc_house, apartment, and the Company Chest and Voyage Control Panel in them), a summoning bell
found at the inn when the zone has none, and fishing spots. No Lifestream is on the bus, so the
player is asked to go in and XIV MCP waits until they stand in that kind of place; the player goes
in with `Game.SetPosition` and the zone's territory. A destination that cannot be reached is an
answer `{arrived: false, reason, steps}`, as the real host's, that changed nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from ._game_session import fresh, made_since, seq, snapshot, start_game_allowing
from ._system import XivMcpSystem
from .plugins.game_peers import navmesh_peer

pytestmark = pytest.mark.asyncio

INN, FC_HOUSE, WORKSHOP, MIDDLE_LA_NOSCEA = 177, 283, 423, 134
CHEST = (6.0, -9.0)
"""The Company Chest in the FC house (world x, z)."""
INN_BELL = (-1.5, 4.0)
GO_TO_INN = "Go to your inn room: talk to an innkeeper in any city and enter your room."


@pytest.fixture(scope="module")
def places(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "game_navigation")


async def test_w6_navigate_to_inn_asks_the_player_in_and_waits_until_they_are_in_an_inn_room(
    places: XivMcpSystem,
) -> None:
    async with fresh(places) as (assistant, game), anyio.create_task_group() as tg:
        start = await seq(game)
        going = assistant.start(tg, "navigate_to", {"destination": "inn"})
        assert await assistant.progress() == GO_TO_INN
        status = await assistant.result("get_navigation_status")
        assert (status["navigation"], status["travel"], status["preferredBellLocation"]) == (
            "waiting for you to go to inn",
            "the player teleports or enters the place",
            "inn",
        )
        await game.set_position(0.0, 0.0, territory=FC_HOUSE)  # a house is not an inn room: still waiting
        await game.set_position(0.0, 0.0, territory=INN)  # the player talks to the innkeeper
        assert await going.result() == {
            "arrived": True,
            "destination": "inn",
            "at": {"zone": "Mizzenmast Inn"},
            "steps": ["Asked you to go to an inn room.", "You arrived in Mizzenmast Inn."],
        }
        moves = await made_since(game, start)
        assert {by for by, _, _ in moves} == {"Tester"}  # only the player moved: XIV MCP asked


async def test_w6_navigate_to_home_without_a_house_answers_why_and_changes_nothing(places: XivMcpSystem) -> None:
    async with fresh(places) as (assistant, game):
        before = await snapshot(game)
        assert await assistant.result("navigate_to", {"destination": "home"}) == {
            "arrived": False,
            "destination": "home",
            "reason": "This character doesn't have a private house.",
            "steps": [],
        }
        assert await snapshot(game) == before
        assert (await assistant.result("get_navigation_status"))["navigation"] == "idle"


async def test_w6_navigate_to_apartment_and_fc_house_accept_any_housing_interior(places: XivMcpSystem) -> None:
    async with fresh(places) as (assistant, game), anyio.create_task_group() as tg:
        going = assistant.start(tg, "navigate_to", {"destination": "fc_house"})
        assert await assistant.progress() == "Go into your free company house."
        await game.set_position(0.0, 0.0, territory=FC_HOUSE)
        result = await going.result()
        assert (result["arrived"], result["at"], result["steps"][0]) == (
            True,
            {"zone": "Private House - Mist"},
            "Asked you to go to your free company house.",
        )
        going = assistant.start(tg, "navigate_to", {"destination": "apartment"})
        assert await assistant.progress() == "Go into your apartment."
        result = await going.result()  # already in a housing interior, as the real host tells them apart
        assert result["steps"] == ["Asked you to go to your apartment.", "You arrived in Private House - Mist."]


async def test_w6_navigate_to_company_chest_goes_into_the_fc_house_then_flags_the_chest(
    places: XivMcpSystem,
) -> None:
    async with fresh(places) as (assistant, game), anyio.create_task_group() as tg:
        start = await seq(game)
        going = assistant.start(tg, "navigate_to", {"destination": "company_chest"})
        assert await assistant.progress() == "Go into your free company house."
        await game.set_position(-4.0, 8.0, territory=FC_HOUSE)
        said = await assistant.progress()
        assert said.startswith("Walk to Company Chest: XIV MCP put the flag on your map in Private House - Mist at (")
        await game.set_position(CHEST[0] - 1.0, CHEST[1])
        assert await going.result() == {
            "arrived": True,
            "destination": "company_chest",
            "at": {"name": "Company Chest", "distance": 1.0, "zone": "Private House - Mist"},
            "steps": [
                "Asked you to go to your free company house.",
                "You arrived in Private House - Mist.",
                "Asked you to walk to Company Chest (flag on the map).",
                "You reached Company Chest.",
                "At Company Chest (1 yalms).",
            ],
        }
        ours = [(capability, summary) for by, capability, summary in await made_since(game, start) if by == "XivMcp"]
        assert [capability for capability, _ in ours] == ["game_ui", "game_ui"]  # the flag put, and taken off
        assert ours[1][1] == "cleared the map flag" and await game.flag() is None


async def test_w6_navigate_to_workshop_walks_to_the_voyage_control_panel_with_vnavmesh(places: XivMcpSystem) -> None:
    async with (
        fresh(places) as (assistant, game),
        navmesh_peer(places.endpoint, assistant.pi) as navmesh,
        anyio.create_task_group() as tg,
    ):
        await game.set_position(5.0, 5.0, territory=WORKSHOP)
        start = await seq(game)
        going = assistant.start(tg, "navigate_to", {"destination": "workshop"})
        target, _, arrive_range = await navmesh.next_path()
        assert (target, arrive_range) == ([-5.0, 0.0, -12.0], 2.5)
        await game.advance_clock(5)  # 19.7 yalms at 6 yalms a second
        result = await going.result()
        assert result["at"] == {"name": "Voyage Control Panel", "distance": 0.0, "zone": "Company Workshop - Mist"}
        assert result["steps"][0] == "vnavmesh: walking to Voyage Control Panel (19.7 yalms)."
        walked = [(by, capability) for by, capability, _ in await made_since(game, start)]
        assert set(walked) == {("vnavmesh", "move_character")}  # vnavmesh walked; XIV MCP changed nothing


async def test_w6_navigate_to_summoning_bell_goes_to_the_inn_when_the_zone_has_none(places: XivMcpSystem) -> None:
    async with fresh(places) as (assistant, game), anyio.create_task_group() as tg:
        await game.set_position(200.0, -250.0, territory=MIDDLE_LA_NOSCEA)
        going = assistant.start(tg, "navigate_to", {"destination": "summoning_bell"})
        assert await assistant.progress() == GO_TO_INN
        await game.set_position(INN_BELL[0] + 1.0, INN_BELL[1], territory=INN)  # in, next to the bell
        assert await going.result() == {
            "arrived": True,
            "destination": "summoning_bell",
            "at": {"name": "Summoning Bell", "distance": 1.0, "zone": "Mizzenmast Inn"},
            "steps": [
                "Asked you to go to an inn room.",
                "You arrived in Mizzenmast Inn.",
                "At Summoning Bell (1 yalms).",
            ],
        }


async def test_w6_navigate_to_fishing_spot_by_id_teleports_then_walks_to_its_water(places: XivMcpSystem) -> None:
    async with fresh(places) as (assistant, game), anyio.create_task_group() as tg:
        going = assistant.start(tg, "navigate_to", {"destination": "fishing_spot", "name": "16"})
        assert await assistant.progress() == "Teleport to Summerford Farms (in Middle La Noscea)."
        await game.teleport("Summerford Farms")
        said = await assistant.progress()
        assert said.startswith("Walk to Zephyr Drift: XIV MCP put the flag on your map in Middle La Noscea at (")
        await game.set_position(-18.0, -15.0)  # 25 yalms from the spot's centre: at its water
        result = await going.result()
        assert result["at"] == {
            "spot": {"id": 16, "name": "Zephyr Drift"},
            "zone": "Middle La Noscea",
            "canCast": False,
            "hint": "Switch to Fisher (switch_gearset) to fish here.",
        }
        assert result["steps"][-1] == "You reached Zephyr Drift."


async def test_w6_navigate_to_what_is_not_there_answers_why_and_changes_nothing(places: XivMcpSystem) -> None:
    async with fresh(places) as (assistant, game):
        before = await snapshot(game)
        for destination, name, reason in [
            ("fishing_spot", "Nowhere", "Fishing spot 'Nowhere' has no place in the game data."),
            ("object", "Company Chest", "No object named 'Company Chest' in this zone. Tuliyollal has: "),
            ("npc", "Nobody", "No NPC named 'Nobody' has a place in the game data."),
        ]:
            result = await assistant.result("navigate_to", {"destination": destination, "name": name})
            assert (result["arrived"], result["steps"]) == (False, [])
            assert result["reason"].startswith(reason)
        assert await assistant.error("navigate_to", {"destination": "fishing_spot"}) == (
            "destination=fishing_spot needs 'name'."
        )
        assert await snapshot(game) == before


async def test_w6_get_navigation_status_names_lifestream_as_the_travel_plugin(places: XivMcpSystem) -> None:
    async with fresh(places) as (assistant, _):
        requirements = (await assistant.result("get_navigation_status"))["requirements"]
        assert requirements[1] == {
            "plugin": "Lifestream",
            "needed": False,
            "loaded": False,
            "purpose": "Teleports you, and enters your house, apartment, inn room or workshop.",
            "without": "XIV MCP tells you where to teleport or which place to enter, and waits until you are there.",
        }
