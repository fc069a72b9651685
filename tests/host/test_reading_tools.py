"""XIV MCP's reading tools of the character and of the installed plugins, against the simulated game,
all real processes (W5, F1, F2): get_class_jobs, get_equipment, list_gearsets, get_active_quests,
get_aetherytes and list_plugins.

One system for the module: `xivmcp broker`, `xivmcp host --test-clock --no-mcp` and `xivmcp game
--test-clock` on the default world. The test's own peer is the player (calls go through the player's
`call`, as `xivmcp call` sends them, and reach the gate as the assistant's) and the game's client
with the player key. Each test first puts the world back as the game started (`Game.Reset`), so the
tests do not depend on each other's order; each checks that reading recorded no change.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from gates.contract import BUILTIN_TOOLS

from ._game_session import start_game_allowing
from ._reading import LOGGED_OUT, session, unchanged
from ._system import ROOT, WAIT, XivMcpSystem

pytestmark = pytest.mark.asyncio

CHARACTER_TOOLS = ("get_class_jobs", "get_equipment", "list_gearsets", "get_active_quests", "get_aetherytes")
READING_TOOLS = (
    *CHARACTER_TOOLS,
    "get_party",
    "get_targets",
    "get_nearby_objects",
    "get_weather_forecast",
    "list_plugins",
)


@pytest.fixture(scope="module")
def world(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system)


async def test_w5_get_class_jobs_lists_every_class_and_job_with_the_real_fields(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        every = await player.result("get_class_jobs")
        assert every["currentClassJob"] == {"id": 21, "name": "Warrior"}
        rows = {row["abbreviation"]: row for row in every["classJobs"]}
        assert len(rows) == 42 and [row["id"] for row in every["classJobs"]] == list(range(1, 43))
        assert rows["WAR"] == {
            "id": 21,
            "name": "Warrior",
            "abbreviation": "WAR",
            "role": 1,
            "isJob": True,
            "parentClass": "Marauder",
            "unlocked": True,
            "level": 100,
            "exp": 0,
            "expToNextLevel": 0,
            "desynthesisLevel": None,
        }
        assert (rows["MRD"]["level"], rows["MRD"]["unlocked"], rows["MRD"]["parentClass"]) == (100, True, None)
        assert (rows["GLA"]["level"], rows["PLD"]["exp"]) == (92, 1_203_400)  # a job and its class share one level
        assert rows["CRP"]["desynthesisLevel"] == 31.4 and rows["WHM"]["name"] == "White Mage"
        assert (rows["DRK"]["level"], rows["DRK"]["unlocked"], rows["DRK"]["expToNextLevel"]) == (0, False, 0)

        unlocked = await player.result("get_class_jobs", {"include_locked": False})
        assert {row["abbreviation"] for row in unlocked["classJobs"]} == {
            *("GLA", "MRD", "CNJ", "CRP", "CUL", "MIN", "FSH", "PLD", "WAR", "WHM", "SAM"),
        }


async def test_w5_get_equipment_shows_each_slot_and_the_average_item_level(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        gear = await player.result("get_equipment")
        slots = {slot["slot"]: slot for slot in gear["slots"]}
        assert [slot["slot"] for slot in gear["slots"]][:3] == ["MainHand", "OffHand", "Head"] and len(slots) == 14
        assert slots["OffHand"] == {"slot": "OffHand", "empty": True} and slots["Waist"] == {
            "slot": "Waist",
            "empty": True,
        }
        assert slots["MainHand"] == {
            "slot": "MainHand",
            "itemId": 44_001,
            "name": "Tuliyollan Battleaxe",
            "quantity": 1,
            "spiritbondPercent": 42.5,
            "conditionPercent": 87.3,
            "materia": ["Savage Aim Materia XII", "Savage Aim Materia XII"],
            "dyes": [{"id": 36, "name": "Soot Black"}],
            "glamour": {"itemId": 44_090, "name": "Yok Huy Greataxe"},
            "itemLevel": 710,
            "equipLevel": 100,
        }
        assert slots["Head"]["hq"] is True and "hq" not in slots["Hands"]  # hq only when it is
        assert slots["SoulCrystal"]["itemLevel"] == 30  # left out of the average, as the waist
        assert gear["averageItemLevel"] == 705.5  # six pieces at 710, five at 700


async def test_w5_list_gearsets_numbers_them_and_says_which_is_worn(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        sets = await player.result("list_gearsets")
        assert sets["current"] == 1
        assert sets["gearsets"][0] == {
            "number": 1,
            "name": "Warrior",
            "job": "WAR",
            "jobName": "warrior",
            "itemLevel": 706,
            "kind": "combat",
            "current": True,
            "missingItems": None,
        }
        assert [(s["number"], s["kind"], s["missingItems"]) for s in sets["gearsets"][1:]] == [
            (2, "combat", None),
            (3, "combat", 1),
            (4, "crafter/gatherer", None),
        ]


async def test_w5_get_active_quests_lists_the_journal_and_the_allowances(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        now = (await game.time()).time
        quests = await player.result("get_active_quests")
        assert quests["acceptedQuests"][1] == {
            "questId": 70_412,
            "name": "Flavors of the Peaks",
            "sequence": 255,
            "readyToTurnIn": True,
            "journalGenre": "Side Quests",
            "classJobLevel": 91,
            "hidden": False,
            "priority": False,
        }
        assert [q["questId"] for q in quests["acceptedQuests"]] == [70_301, 70_412, 70_455]
        assert (quests["dailyQuests"], quests["levequests"], quests["beastTribes"]) == ([], [], [])
        assert (quests["dailyAllowancesRemaining"], quests["leveAllowances"]) == (12, 98)
        next_allowances = datetime.datetime.fromisoformat(quests["nextLeveAllowances"])
        assert next_allowances.hour in (0, 12) and 0 < next_allowances.timestamp() - now <= 12 * 3600


async def test_w5_get_aetherytes_lists_them_with_cost_zone_and_favourites(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        listed = await player.result("get_aetherytes")
        assert listed[1] == {
            "aetheryteId": 200,
            "name": "Ok'hanu",
            "territory": {"id": 1188, "name": "Kozama'uka"},
            "gilCost": 312,
            "favourite": True,
            "housing": None,
        }
        assert [(a["aetheryteId"], a["gilCost"], a["favourite"]) for a in listed] == [
            (216, 0, False),
            (200, 312, True),
            (201, 356, False),
            (8, 999, False),
            (52, 871, False),
        ]


async def test_w5_another_character_reads_its_own_sheet(world: XivMcpSystem) -> None:
    async with session(world) as (player, game):
        await game.login("Erenville")
        async with unchanged(game):
            jobs = await player.result("get_class_jobs", {"include_locked": False})
            assert jobs["currentClassJob"] == {"id": 23, "name": "Bard"}
            assert [(r["abbreviation"], r["level"]) for r in jobs["classJobs"]] == [
                ("ARC", 92),
                ("BTN", 100),
                ("BRD", 92),
            ]
            assert [s["slot"] for s in (await player.result("get_equipment"))["slots"] if "empty" not in s] == []
            assert (await player.result("get_equipment"))["averageItemLevel"] == 0
            assert (await player.result("list_gearsets"))["gearsets"][0]["job"] == "BRD"
            assert (await player.result("get_active_quests"))["acceptedQuests"] == []


@pytest.mark.parametrize("tool", CHARACTER_TOOLS)
async def test_w5_the_characters_tools_refuse_while_logged_out_and_change_nothing(
    world: XivMcpSystem, tool: str
) -> None:
    async with session(world) as (player, game):
        await game.set("logged_in", False)
        async with unchanged(game):
            assert await player.error(tool) == LOGGED_OUT


async def test_f2_list_plugins_lists_the_installed_plugins_and_xiv_mcp_itself(world: XivMcpSystem) -> None:
    async with session(world) as (player, game):
        await player.install("Waymarks", name="Waymark Presets", version="1.4.2", repo="official")
        try:
            await game.set("logged_in", False)  # it reads Dalamud, not the game
            async with unchanged(game):
                listed = await player.result("list_plugins")
                plugins = {p["internalName"]: p for p in listed["plugins"]}
                assert listed["managementEnabled"] is False and listed["count"] == len(listed["plugins"]) == 3
                assert [p["name"] for p in listed["plugins"]] == ["Tester", "Waymark Presets", "XIV MCP"]
                assert plugins["Waymarks"] == {
                    "name": "Waymark Presets",
                    "internalName": "Waymarks",
                    "version": "1.4.2",
                    "state": "Unloaded",
                    "loaded": False,
                    "dev": False,
                    "thirdParty": False,
                    "testing": False,
                    "outdated": False,
                    "banned": False,
                    "orphaned": False,
                    "decommissioned": False,
                    "inDefaultCollection": True,
                    "wantedByAnyCollection": False,
                }
                assert (plugins["XivMcp"]["state"], plugins["XivMcp"]["thirdParty"]) == ("Loaded", True)
                assert (plugins["Tester"]["loaded"], plugins["Tester"]["dev"]) == (True, True)  # on the bus, no repo
                loaded = await player.result("list_plugins", {"loaded_only": True})
                assert [p["internalName"] for p in loaded["plugins"]] == ["Tester", "XivMcp"]
                found = await player.result("list_plugins", {"query": "waymark"})
                assert (found["count"], found["plugins"][0]["internalName"]) == (1, "Waymarks")
        finally:
            await player.uninstall("Waymarks")


async def test_f1_w5_the_reading_tools_are_simulated_read_only_tools_of_game_data(world: XivMcpSystem) -> None:
    async with session(world) as (player, _):
        [game_data] = [module for module in await player.modules() if module.id == "game_data"]
        in_module = {tool.name: tool for tool in game_data.tools}
        for tool in READING_TOOLS:
            assert BUILTIN_TOOLS[tool].module == "game_data" and BUILTIN_TOOLS[tool].read_only, tool
            assert in_module[tool].setting == "group" and in_module[tool].mode is not None, tool
            found = await player.result("search_tools", {"query": tool})
            [item] = [item for item in found["items"] if item["name"] == tool]
            assert "simulated" not in item, item  # offered, no longer "not simulated here"
        started = await player.result("start_job", {"name": "Look", "steps": [{"tool": "list_gearsets"}]})
        with anyio.fail_after(WAIT):  # each look is a round trip to the host: a state, looked at until it holds
            while (job := (await player.result("get_job", {"id": started["started"]["id"]}))["job"])["state"] in (
                "queued",
                "running",
            ):
                pass
        assert job["state"] == "completed" and job["steps"][0]["result"]["current"] == 1, job  # not "not simulated"


async def test_w5_xivmcp_call_reaches_a_reading_tool_as_the_assistant(world: XivMcpSystem) -> None:
    with anyio.fail_after(WAIT * 2):
        done = await anyio.run_process(world.cli("call", "list_gearsets", "--quiet"), cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["current"] == 1 and result["gearsets"][0]["job"] == "WAR"
