"""XIV MCP's reading tools of what is around the character, against the simulated game, all real
processes (W5): get_party, get_targets, get_nearby_objects and get_weather_forecast.

One system for the module (`xivmcp broker`, `xivmcp host --test-clock --no-mcp`, `xivmcp game
--test-clock` on the default world), each test starting from the world as the game started; one
test runs a world file of its own, set on a known date, to check the forecast against the real
host's own numbers. Each checks that reading recorded no change.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from game import default_world

from ._game_session import start_game_allowing
from ._reading import LOGGED_OUT, session, unchanged
from ._system import XivMcpSystem, host_system, player_of

pytestmark = pytest.mark.asyncio

KOANA = 18014449511260001
TULIYOLLAL_WEATHERS = "Clear Skies, Fair Skies, Clouds, Rain, Fog"


@pytest.fixture(scope="module")
def world(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system)


async def test_w5_get_party_lists_the_character_first_and_who_leads(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        party = await player.result("get_party")
        assert (party["size"], party["isAlliance"], party["leaderIndex"]) == (3, False, 1)
        me, koana, graha = party["members"]
        assert (me["index"], me["name"], me["classJob"], me["distance"]) == (
            0,
            "Wuk Lamat",
            {"id": 21, "name": "Warrior"},
            0.0,
        )
        assert koana == {
            "index": 1,
            "name": "Koana Ruhl",
            "contentId": KOANA,
            "entityId": 0x10000000 | (KOANA & 0xFFFFFF),
            "world": {"id": 74, "name": "Ravana"},
            "classJob": {"id": 24, "name": "White Mage"},
            "level": 100,
            "hp": {"current": 96_300, "max": 96_300},
            "mp": {"current": 10_000, "max": 10_000},
            "territory": {"id": 1185, "name": "Tuliyollal"},
            "position": {"x": -14.0, "y": 0.5, "z": 15.0},
            "distance": 6.71,
            "statuses": [],
        }
        assert graha["territory"] == {"id": 1188, "name": "Kozama'uka"} and graha["distance"] == 492.36


async def test_w5_get_targets_describes_the_target_in_full(world: XivMcpSystem) -> None:
    async with session(world) as (player, game):
        async with unchanged(game):
            assert await player.result("get_targets") == dict.fromkeys(
                ("target", "focusTarget", "softTarget", "mouseOverTarget", "previousTarget")
            )
        await game.set_target("striking dummy")
        async with unchanged(game):
            targets = await player.result("get_targets")
        assert targets["target"] == {
            "name": "Striking Dummy",
            "kind": "BattleNpc",
            "gameObjectId": 1_185_003,
            "entityId": 1_185_003,
            "baseId": 0,
            "distance": 11.67,
            "position": {"x": -26.0, "y": 0.0, "z": 22.0},
            "targetable": True,
            "dead": False,
            "level": 100,
            "classJob": {"id": 0, "name": "Adventurer"},
            "hp": {"current": 44_000, "max": 44_000},
            "mp": {"current": 0, "max": 0},
            "companyTag": None,
            "onlineStatus": None,
            "mount": None,
            "minion": None,
            "statuses": [],
        }
        assert targets["focusTarget"] is None and targets["previousTarget"] is None
        await game.set_target("Nobody Here")
        assert (await player.result("get_targets"))["target"] == {"name": "Nobody Here", "kind": "None"}


async def test_w5_get_nearby_objects_lists_them_nearest_first_and_filters(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        around = await player.result("get_nearby_objects")
        assert around["total"] == 5
        assert [(o["name"], o["kind"], o["distance"]) for o in around["objects"]] == [
            ("Tuliyollal", "Aetheryte", 5.66),
            ("Koana Ruhl", "Pc", 6.71),
            ("Striking Dummy", "BattleNpc", 11.67),
            ("Summoning Bell", "EventObj", 21.64),
            ("Material Supplier", "EventNpc", 38.47),
        ]
        bell = around["objects"][3]
        assert set(bell) == {
            "name",
            "kind",
            "gameObjectId",
            "entityId",
            "baseId",
            "distance",
            "position",
            "targetable",
            "dead",
        }
        koana = around["objects"][1]
        assert koana["homeWorld"] == koana["currentWorld"] == {"id": 74, "name": "Ravana"} and "mp" not in koana

        near = await player.result("get_nearby_objects", {"max_distance": 10, "limit": 1})
        assert (near["total"], [o["name"] for o in near["objects"]]) == (2, ["Tuliyollal"])
        people = await player.result("get_nearby_objects", {"kinds": ["pc", "BattleNpc"], "detailed": True})
        assert [o["name"] for o in people["objects"]] == ["Koana Ruhl", "Striking Dummy"]
        assert (
            people["objects"][0]["mp"] == {"current": 10_000, "max": 10_000} and people["objects"][0]["statuses"] == []
        )
        named = await player.result("get_nearby_objects", {"query": "BELL", "kinds": "EventObj,EventNpc"})
        assert [o["name"] for o in named["objects"]] == ["Summoning Bell"]


async def test_w5_get_weather_forecast_works_the_weather_out_on_the_game_clock(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        now = (await game.time()).time
        here = await player.result("get_weather_forecast", {"count": 30})  # held to 24, as the real host's Int
        assert here["zone"] == {"id": 1185, "name": "Tuliyollal"} and len(here["periods"]) == 24
        assert [c["weather"] for c in here["chances"]] == TULIYOLLAL_WEATHERS.split(", ")
        assert here["onScreen"] == here["periods"][0]["weather"] and here["source"] == "the game's own forecast"
        first, second = here["periods"][:2]
        assert first["inMinutes"] == 0 and second["inMinutes"] == round((now // 1400 + 1) * 1400 / 60 - now / 60)
        assert second["after"] == first["weather"] and second["eorzeaTime"] in ("00:00", "08:00", "16:00")
        assert here["next"] is None

        limsa = await player.result("get_weather_forecast", {"zone": "129", "weather": "fog", "count": 1})
        assert limsa["zone"]["name"] == "Limsa Lominsa Lower Decks" and limsa["onScreen"] is None
        assert [c["percent"] for c in limsa["chances"]] == [20, 30, 30, 10, 10] and len(limsa["periods"]) == 1
        assert 1 <= len(limsa["next"]) <= 3 and {p["weather"] for p in limsa["next"]} == {"Fog"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"weather": "Snow"}, f"Tuliyollal never has 'Snow'. Its weathers: {TULIYOLLAL_WEATHERS}."),
        ({"zone": "Atlantis"}, "No zone called 'Atlantis'."),
        ({"zone": "9999"}, "No zone called '9999'."),
    ],
)
async def test_w5_a_refused_forecast_says_why_in_the_real_words_and_changes_nothing(
    world: XivMcpSystem, arguments: dict[str, Any], message: str
) -> None:
    async with session(world) as (player, game), unchanged(game):
        assert (await player.error("get_weather_forecast", arguments)).startswith(message)


async def test_w5_logged_out_the_surroundings_refuse_and_the_forecast_needs_a_zone(world: XivMcpSystem) -> None:
    async with session(world) as (player, game):
        await game.set("logged_in", False)
        async with unchanged(game):
            for tool in ("get_party", "get_targets", "get_nearby_objects"):
                assert await player.error(tool) == LOGGED_OUT, tool
            assert await player.error("get_nearby_objects", {"kinds": ["Dragon"]}) == LOGGED_OUT  # checked first
            assert await player.error("get_weather_forecast") == "The current zone isn't known."
            away = await player.result("get_weather_forecast", {"zone": "Kozama'uka"})
            assert away["onScreen"] is None and away["source"] == "worked out from the game's data"
        await game.set("logged_in", True)
        async with unchanged(game):
            assert await player.error("get_nearby_objects", {"kinds": ["Dragon"]}) == "Unknown kind 'Dragon'."
            far = await player.error("get_nearby_objects", {"max_distance": "far"})
            assert far == "'max_distance' must be a number, such as 30; got 'far'."


async def test_w5_another_world_solo_on_a_known_date_with_a_zone_without_weather(tmp_path: Path) -> None:
    file = default_world()
    file.time = 1_759_600_100.0  # 2025-10-04 17:48:20 UTC: the real host's tests know its numbers (9, then 97)
    file.party = []
    file.zones[3].weather = []  # Middle La Noscea has no weather of its own here
    path = tmp_path / "solo.json"
    path.write_bytes(msgspec.json.encode(file))
    with host_system(tmp_path / "system") as system:
        system.start_game("--test-clock", "--world", str(path))
        async with system.connect("Tester") as pi:
            player = player_of(pi, system.data_dir)
            assert await player.result("get_party") == {
                "size": 0,
                "isAlliance": False,
                "leaderIndex": None,
                "members": [],
            }
            assert [o["kind"] for o in (await player.result("get_nearby_objects"))["objects"]] == [
                "Aetheryte",
                "BattleNpc",
                "EventObj",
                "EventNpc",
            ]
            forecast = await player.result("get_weather_forecast", {"count": 2})
            assert forecast["eorzeaTime"] == "09:43" and forecast["onScreen"] == "Clear Skies"
            assert forecast["periods"] == [  # the numbers 25, 9 and 97 fall under Fair Skies, Clear Skies, Fog
                {
                    "starts": "2025-10-04 17:43",
                    "inMinutes": 0,
                    "eorzeaTime": "08:00",
                    "weather": "Clear Skies",
                    "after": "Fair Skies",
                },
                {
                    "starts": "2025-10-04 18:06",
                    "inMinutes": 18,
                    "eorzeaTime": "16:00",
                    "weather": "Fog",
                    "after": "Clear Skies",
                },
            ]
            quests = await player.result("get_active_quests")
            assert quests["nextLeveAllowances"] == "2025-10-05T00:00:00Z"
            error = await player.error("get_weather_forecast", {"zone": "Middle La Noscea"})
            assert error == "Middle La Noscea has no weather of its own."
