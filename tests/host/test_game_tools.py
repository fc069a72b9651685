"""XIV MCP's core game tools against the simulated game, all real processes (W5, W6, W8, A8, J8).

One system for the module: `xivmcp broker`, `xivmcp game --test-clock` and `xivmcp host
--test-clock --no-mcp`, with Game & navigation's changes allowed (they are denied by default, which
one test shows). The test's own peer is the player (calls go through `XivMcp.Player`, as the
assistant's would) and the game's client; vnavmesh and YesAlready are peers of the test
(tests/host/plugins/game_peers.py). Each test first puts the character back at its start, so the tests do
not depend on each other's order. Waits are for progress lines, gate calls or replies, never time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest

import broker
from game import ground_distance

from ._game_session import TULIYOLLAL, Assistant, seq, session, start_game_allowing
from ._system import WAIT, XivMcpSystem, player_of
from .plugins.game_peers import clicker_peer, navmesh_peer

pytestmark = pytest.mark.asyncio

BELL = (-8.0, 30.0)
"""Tuliyollal's Summoning Bell (world x, z): 21.6 yalms from the start, at map (11.1, 11.9)."""
KOZAMAUKA = 1188
DENIED = (
    "Game & navigation is set to Deny for changes, so set_map_flag can't run. The player can change it in "
    "/xivmcp → Modules."
)


@pytest.fixture(scope="module")
def world(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "game_navigation")


# --------------------------------------------------------------------------- reading (W5)


async def test_w5_the_reading_tools_report_the_character_where_it_is_and_what_it_holds(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game):
        status = await assistant.result("get_game_status")
        assert status["loggedIn"] is True and status["character"] == "Wuk Lamat"
        assert status["world"] == {"id": 74, "name": "Ravana"}
        assert status["territory"] == {"id": TULIYOLLAL, "name": "Tuliyollal"}
        assert status["conditions"] == [] and len(status["eorzeaTime"]) == 5

        character = await assistant.result("get_character")
        assert (character["name"], character["classJob"], character["level"]) == ("Wuk Lamat", "Warrior", 100)
        assert character["position"] == {"x": -20.0, "y": 0.5, "z": 12.0}

        position = await assistant.result("get_position")
        assert position["zone"] == {"id": TULIYOLLAL, "name": "Tuliyollal"}
        assert position["world"] == {"x": -20.0, "y": 0.5, "z": 12.0} and position["flag"] is None
        assert position["map"]["coordinates"] == {"x": 10.8, "y": 11.5}

        inventory = await assistant.result("get_inventory")  # the bags as the real host lists them
        bags = inventory["containers"]
        assert [(b["container"], b["slots"]) for b in bags] == [(f"Inventory{n}", 35) for n in range(1, 5)]
        assert inventory["freeBagSlots"] == 140 - sum(b["used"] for b in bags)
        assert {"slot": 0, "itemId": 4554, "name": "Hi-Potion", "quantity": 20} in bags[0]["items"]
        crystals = (await assistant.result("get_inventory", {"containers": "crystals"}))["containers"][0]
        assert [i["name"] for i in crystals["items"]] == ["Fire Shard", "Ice Shard", "Fire Crystal"]

        found = await assistant.result("search_inventory", {"query": "potion"})
        assert [(i["name"], i["totalQuantity"]) for i in found["items"]] == [("Hi-Potion", 20)]
        assert found["items"][0]["locations"] == [{"container": "Inventory1", "slot": 0, "quantity": 20, "hq": False}]
        assert await assistant.error("search_inventory") == "Provide 'query' or 'item_id'."
        assert (await assistant.error("get_inventory", {"containers": ["saddlebag"]})).startswith(
            "Unknown container 'saddlebag'. Groups: bags, crystals, currency."
        )

        money = await assistant.result("get_currencies")
        assert (money["mgp"], money["wolfMarks"]) == (250_000, 12_000)
        assert money["tomestones"] == [{"itemId": 28, "name": "Allagan Tomestone of Poetics", "count": 1_400}]
        assert money["gil"] == (await game.currencies()).gil


async def test_w5_a_logged_out_character_gets_the_real_hosts_refusal(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game):
        await game.set("logged_in", False)
        for tool in ("get_character", "get_position", "get_inventory", "get_currencies", "open_window"):
            arguments = {"window": "Currency"} if tool == "open_window" else {}
            assert await assistant.error(tool, arguments) == "No character is currently logged in."
        status = await assistant.result("get_game_status")
        assert (status["loggedIn"], status["character"], status["territory"]) == (False, None, None)


# --------------------------------------------------------------------------- the map flag (W5)


async def test_w5_set_map_flag_puts_the_flag_and_clear_map_flag_removes_it(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game):
        there = await assistant.result("set_map_flag", {"zone": "kozama'uka", "x": 21.4, "y": 18.2, "name": "Spot"})
        assert there["flag"] == {
            "zone": "Kozama'uka",
            "territoryId": KOZAMAUKA,
            "map": "Kozama'uka",
            "x": 21.4,
            "y": 18.2,
            "name": "Spot",
        }
        assert there["distance"] is None and there["mapOpened"] is True  # another zone: no distance
        flag = await game.flag()
        assert flag is not None and (flag.territory, flag.x, flag.y, flag.name) == (KOZAMAUKA, 21.4, 18.2, "Spot")
        assert "AreaMap" in {w.name for w in await game.windows()}

        here = await assistant.result("set_map_flag", {"x": "11.1", "y": 11.9, "open_map": False})
        assert here["flag"]["zone"] == "Tuliyollal" and here["distance"] == 24.0 and here["mapOpened"] is False
        position = await assistant.result("get_position")
        assert position["flag"]["territoryId"] == TULIYOLLAL and position["flag"]["distance"] == 24.0

        assert await assistant.result("clear_map_flag") == {"cleared": True}
        assert await game.flag() is None
        assert await assistant.result("clear_map_flag") == {"cleared": False}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"x": 0.5, "y": 10}, "(0.5, 10) is off the map: map coordinates run from 1 to 42."),
        ({"x": 10, "y": 43}, "(10, 43) is off the map: map coordinates run from 1 to 42."),
        ({"y": 10}, "'x' (map X coordinate) is required."),
        ({"x": 10}, "'y' (map Y coordinate) is required."),
        ({"x": "ten", "y": 10}, "'x' (map X coordinate) must be a number, such as 21.4; got 'ten'."),
        ({"x": 10, "y": 10, "zone": "Atlantis"}, "No zone called 'Atlantis'. Use one of these names or territory"),
        ({"x": 10, "y": 10, "zone": "9999"}, "No zone called '9999'."),
        (
            {"x": 10, "y": 10, "zone": "la"},
            "'la' matches several zones: Tuliyollal, Middle La Noscea. Use the full name.",
        ),
        ({"x": 10, "y": 10, "colour": "red"}, "set_map_flag has no argument 'colour'"),
    ],
)
async def test_w5_a_refused_flag_leaves_the_world_unchanged(
    world: XivMcpSystem, arguments: dict[str, Any], message: str
) -> None:
    async with session(world) as (assistant, game):
        before = await seq(game)
        assert (await assistant.error("set_map_flag", arguments)).startswith(message)
        assert (await game.changes(before)).changes == [] and await game.flag() is None


async def test_w5_game_navigation_changes_are_denied_until_the_player_allows_them(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game):
        await assistant.player.module("game_navigation", "changes", "default")
        try:
            before = await seq(game)
            assert await assistant.error("set_map_flag", {"x": 10, "y": 10}) == DENIED
            assert (await game.changes(before)).changes == []
            assert (await assistant.result("get_position"))["flag"] is None  # reading is still allowed
        finally:
            await assistant.player.module("game_navigation", "changes", "allow")
        assert (await assistant.result("set_map_flag", {"x": 10, "y": 10}))["flag"]["x"] == 10


# --------------------------------------------------------------------------- windows (W5, W8, A8)


async def test_a8_w8_open_window_pauses_the_clickers_until_close_window(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), clicker_peer(world.endpoint, assistant.pi, "YesAlready") as clicker:
        opened = await assistant.result("open_window", {"window": "achievements"})
        assert opened == {"window": "Achievements", "action": "opened", "open": True, "note": None}
        assert await clicker.next_request() == ("Add", "XivMcp")  # TextAdvance is not on the bus: skipped
        assert clicker.stop_requests == {"XivMcp"}
        windows = {w["name"]: w for w in await assistant.result("list_windows")}
        assert windows["Achievements"] == {"id": 6, "name": "Achievements", "unlocked": True, "open": True}
        assert windows["Titles"]["id"] is None and windows["Currency"]["open"] is False
        again = await assistant.result("open_window", {"window": "6"})
        assert again["action"] == "already open"

        closed = await assistant.result("close_window", {"window": "Achievements"})
        assert closed == {"window": "Achievements", "action": "closed"}
        assert await clicker.next_request() == ("Remove", "XivMcp")
        assert clicker.stop_requests == set() and await game.windows() == []
        assert (await assistant.result("close_window", {"window": "Achievements"}))["action"] == "already closed"


async def test_w8_the_clickers_are_released_when_someone_else_closes_xivmcps_window(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), clicker_peer(world.endpoint, assistant.pi, "YesAlready") as clicker:
        await game.open_window("Shop")  # not XIV MCP's: closing it later releases nothing
        await assistant.result("open_window", {"window": "Chocobo Saddlebag"})
        assert await clicker.next_request() == ("Add", "XivMcp")
        await game.close_window("InventoryBuddy")  # the player closes it in game
        assert await clicker.next_request() == ("Remove", "XivMcp")
        assert clicker.stop_requests == set()
        assert await assistant.result("close_window", {"window": "shop"}) == {"window": "Shop", "action": "closed"}


@pytest.mark.parametrize(
    ("tool", "window", "message"),
    [
        ("open_window", "Nope", "Unknown window 'Nope'. Use list_windows."),
        ("close_window", "Nope", "Unknown window 'Nope'. Use list_windows."),
        ("open_window", "Free Company", "That window is not unlocked for this character."),
        ("open_window", "guide", "'guide' is ambiguous: Mount Guide, Minion Guide."),
        ("open_window", "", "'window' is required."),
    ],
)
async def test_w5_a_refused_window_changes_nothing(world: XivMcpSystem, tool: str, window: str, message: str) -> None:
    async with session(world) as (assistant, game):
        before = await seq(game)
        assert (await assistant.error(tool, {"window": window})).startswith(message)
        assert (await game.changes(before)).changes == []


# --------------------------------------------------------------------------- navigation (W6)


async def test_w6_without_vnavmesh_navigate_to_flags_the_map_and_waits_for_the_player(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), anyio.create_task_group() as tg:
        status = await assistant.result("get_navigation_status")
        assert (status["walking"], status["plugins"], status["navigation"]) == (
            "the player walks to the map flag",
            {},
            "idle",
        )
        assert status["requirements"][0] == {
            "plugin": "vnavmesh",
            "needed": False,
            "loaded": False,
            "purpose": "Walks there for you.",
            "without": "XIV MCP puts a flag on your map and waits while you walk there.",
        }
        going = assistant.start(tg, "navigate_to", {"destination": "summoning_bell"})
        said = await assistant.progress()
        assert said == "Walk to Summoning Bell: XIV MCP put the flag on your map in Tuliyollal at (11.1, 11.9)."
        flag = await game.flag()
        assert flag is not None and (flag.name, round(flag.world.x, 6), round(flag.world.z, 6)) == (
            "Summoning Bell",
            *BELL,
        )
        phase = (await assistant.result("get_navigation_status"))["navigation"]
        assert phase == "waiting for you to walk to Summoning Bell"
        assert await assistant.error("navigate_to", {"destination": "flag"}) == (
            "A navigation is already running; use stop_navigation first."
        )

        await game.set_position(BELL[0] + 1.0, BELL[1] + 1.0)  # the player walks up to the bell
        assert await going.result() == {
            "arrived": True,
            "destination": "summoning_bell",
            "at": {"name": "Summoning Bell", "distance": 1.4, "zone": "Tuliyollal"},
            "steps": [
                "Asked you to walk to Summoning Bell (flag on the map).",
                "You reached Summoning Bell.",
                "At Summoning Bell (1.4 yalms).",
            ],
        }
        assert await game.flag() is None  # XIV MCP's flag is taken off once the player is there


async def test_w6_navigate_to_an_npc_in_another_zone_asks_for_the_teleport_first(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), anyio.create_task_group() as tg:
        going = assistant.start(tg, "navigate_to", {"destination": "npc", "name": "wuk evu"})
        assert await assistant.progress() == "Teleport to Ok'hanu (in Kozama'uka)."
        await game.teleport("Ok'hanu")  # the player teleports (and pays for it)
        said = await assistant.progress()
        assert said.startswith("Walk to Wuk Evu: XIV MCP put the flag on your map in Kozama'uka at (")
        await game.set_position(-150.0, -455.0)
        result = await going.result()
        assert result["arrived"] is True and result["at"] == {"name": "Wuk Evu", "distance": 0.0, "zone": "Kozama'uka"}
        assert result["steps"][:2] == ["Asked you to teleport to Ok'hanu (in Kozama'uka).", "You are in Kozama'uka."]


async def test_w6_with_vnavmesh_navigate_to_walks_with_it(world: XivMcpSystem) -> None:
    async with (
        session(world) as (assistant, game),
        navmesh_peer(world.endpoint, assistant.pi) as navmesh,
        anyio.create_task_group() as tg,
    ):
        status = await assistant.result("get_navigation_status")
        assert status["walking"] == "automatic"
        assert status["plugins"] == {"vnavmesh": {"meshReady": True, "moving": False}}
        going = assistant.start(tg, "navigate_to", {"destination": "object", "name": "Summoning Bell"})
        target, fly, arrive_range = await navmesh.next_path()
        assert (target, fly, arrive_range) == ([BELL[0], 0.0, BELL[1]], False, 2.5)
        assert (await assistant.result("get_navigation_status"))["navigation"] == "walking to Summoning Bell"
        await game.advance_clock(5)  # 21.6 yalms at 6 yalms a second: the game records the arrival
        assert await going.result() == {
            "arrived": True,
            "destination": "object",
            "at": {"name": "Summoning Bell", "distance": 0.0, "zone": "Tuliyollal"},
            "steps": ["vnavmesh: walking to Summoning Bell (21.6 yalms).", "At Summoning Bell (0 yalms)."],
        }
        assert await game.flag() is None  # vnavmesh walked: no flag was needed


async def test_w6_stop_navigation_stops_vnavmesh_and_navigate_to_reports_stopped(world: XivMcpSystem) -> None:
    async with (
        session(world) as (assistant, game),
        navmesh_peer(world.endpoint, assistant.pi) as navmesh,
        anyio.create_task_group() as tg,
    ):
        going = assistant.start(tg, "navigate_to", {"destination": "npc", "name": "Material Supplier"})
        await navmesh.next_path()
        assert (await game.player()).moving is True
        assert await assistant.result("stop_navigation") == {"stopped": True}
        assert await navmesh.next_stop() == "stop"
        result = await going.result()
        assert (result["arrived"], result["reason"]) == (False, "stopped")
        assert result["steps"] == ["vnavmesh: walking to Material Supplier (38.5 yalms)."]
        assert (await game.player()).moving is False


async def test_w6_a_path_vnavmesh_cannot_start_is_the_reason_navigate_to_returns(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), navmesh_peer(world.endpoint, assistant.pi) as navmesh:
        navmesh.start_paths = False
        result = await assistant.result("navigate_to", {"destination": "summoning_bell"})
        assert result == {
            "arrived": False,
            "destination": "summoning_bell",
            "reason": "vnavmesh could not start a path to Summoning Bell.",
            "steps": [],
        }


async def test_w6_navigate_to_times_out_on_the_hosts_clock(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), anyio.create_task_group() as tg:
        going = assistant.start(tg, "navigate_to", {"destination": "summoning_bell", "timeout_seconds": 1})
        await assistant.progress()  # asked to walk: the deadline (clamped to 10 s) is set
        await assistant.player.advance_clock(10)
        result = await going.result()
        assert (result["arrived"], result["reason"]) == (False, "timed out")


async def test_j4_j8_a_job_navigating_blocks_changes_not_waits_and_pausing_it_stops_vnavmesh(
    world: XivMcpSystem,
) -> None:
    async with session(world) as (assistant, game), navmesh_peer(world.endpoint, assistant.pi) as navmesh:
        step = {"tool": "navigate_to", "args": {"destination": "summoning_bell"}}
        started = await assistant.result("start_job", {"name": "To the bell", "steps": [step]})
        job = started["started"]["id"]
        await navmesh.next_path()
        refused = await assistant.error("set_map_flag", {"x": 10, "y": 10})
        assert (
            refused
            == "The background job 'To the bell' is running a step; pause_job it first (reading tools still work)."
        )
        here = await assistant.result("wait_until_arrived", {"x": 10.8, "y": 11.5, "radius": 500})  # a waiting step
        assert here["arrived"] is True and here["at"] == "Tuliyollal (10.8, 11.5)"
        await assistant.result("pause_job", {"id": job})
        assert await navmesh.next_stop() == "stop"  # the cancelled step stopped vnavmesh on its way out
        await assistant.result("cancel_job", {"id": job})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "'destination' is required."),
        ({"destination": "moon"}, "Unknown destination 'moon'. Use one of: summoning_bell, company_chest, workshop,"),
        ({"destination": "npc"}, "destination=npc needs 'name'."),
    ],
)
async def test_w6_a_refused_navigation_changes_nothing(
    world: XivMcpSystem, arguments: dict[str, Any], message: str
) -> None:
    async with session(world) as (assistant, game):
        before = await seq(game)
        assert (await assistant.error("navigate_to", arguments)).startswith(message)
        assert (await game.changes(before)).changes == []


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"destination": "object", "name": "Wuk Evu"}, "No object named 'Wuk Evu' in this zone. Tuliyollal has:"),
        ({"destination": "npc", "name": "Masked Rose"}, "No NPC named 'Masked Rose' has a place in the game data."),
        ({"destination": "flag"}, "There is no flag on the map. Set one with set_map_flag first."),
    ],
)
async def test_w6_a_destination_not_found_is_the_reason_navigate_to_answers_and_changes_nothing(
    world: XivMcpSystem, arguments: dict[str, Any], reason: str
) -> None:
    async with session(world) as (assistant, game):
        before = await seq(game)
        result = await assistant.result("navigate_to", arguments)
        assert (result["arrived"], result["destination"], result["steps"]) == (False, arguments["destination"], [])
        assert result["reason"].startswith(reason)
        assert (await game.changes(before)).changes == []


async def test_w6_w8_the_sample_vnavmesh_and_yesalready_work_with_navigate_to_and_open_window(
    world: XivMcpSystem,
) -> None:
    async with session(world) as (assistant, game):
        samples = [world.start_plugin("plugins_sample.vnavmesh"), world.start_plugin("plugins_sample.yesalready")]
        navmesh, yes = samples
        try:
            await navmesh.expect("vnavmesh: ready")
            await yes.expect("YesAlready: ready")
            async with anyio.create_task_group() as tg:
                going = assistant.start(tg, "navigate_to", {"destination": "summoning_bell"})
                await navmesh.expect("vnavmesh: walking to")
                await game.advance_clock(5)
                result = await going.result()
            assert result["arrived"] is True and result["steps"] == [
                "vnavmesh: walking to Summoning Bell (21.6 yalms).",
                "At Summoning Bell (2.5 yalms).",  # vnavmesh stops within the 2.5 yalms it was asked for
            ]
            await assistant.result("open_window", {"window": "Currency"})
            await yes.expect("YesAlready: paused by XivMcp")
            await game.close_window("Currency")
            await yes.expect("YesAlready: released by XivMcp")
        finally:
            for sample in samples:
                await anyio.to_thread.run_sync(sample.stop)
            with anyio.fail_after(WAIT):
                await assistant.pi.wait_peer_gone("vnavmesh")
                await assistant.pi.wait_peer_gone("YesAlready")


# --------------------------------------------------------------------------- waiting (W6, J8)


async def test_w6_wait_until_arrived_returns_once_the_player_reaches_the_flag(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), anyio.create_task_group() as tg:
        await assistant.result("set_map_flag", {"x": 11.1, "y": 11.9, "name": "Bell"})
        flag = await game.flag()
        assert flag is not None
        waiting = assistant.start(tg, "wait_until_arrived", {"radius": 0.2})  # clamped to 1 yalm
        assert await assistant.progress() == "Waiting until you reach the flag in Tuliyollal (at most 60 minutes)."
        await game.set_position(flag.world.x + 3.0, flag.world.z)  # 3 yalms off: not there yet
        await game.set_position(flag.world.x + 0.5, flag.world.z)
        result = await waiting.result()
        assert (result["arrived"], result["at"], result["seconds"]) == (True, "the flag in Tuliyollal", 0)
        assert result["world"]["x"] == round(flag.world.x + 0.5, 2)


async def test_w6_wait_until_arrived_times_out_on_the_hosts_clock_with_the_real_message(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), anyio.create_task_group() as tg:
        waiting = assistant.start(
            tg, "wait_until_arrived", {"zone": "Tuliyollal", "x": 30, "y": 30, "timeout_minutes": 1}
        )
        await assistant.progress()  # it waits: its deadline is set
        await assistant.player.advance_clock(60)
        assert await waiting.error() == (
            "Didn't reach Tuliyollal (30.0, 30.0) within 1 minutes. The flag is still set; retry the step to keep "
            "waiting."
        )


async def test_w6_wait_until_arrived_without_coordinates_or_a_flag_is_refused(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, _):
        assert await assistant.error("wait_until_arrived") == (
            "No coordinates given and no flag on the map. Pass x and y, or set a flag first."
        )


# --------------------------------------------------------------------------- no game


async def test_w5_without_a_game_the_tools_say_how_to_start_one(fresh_system: XivMcpSystem) -> None:
    async with broker.connect(fresh_system.endpoint, "Tester") as pi:
        player = player_of(pi, fresh_system.data_dir)
        await player.module("game_navigation", "changes", "allow")
        for tool, arguments in (
            ("get_game_status", {}),
            ("get_position", {}),
            ("set_map_flag", {"x": 10, "y": 10}),
            ("navigate_to", {"destination": "summoning_bell"}),
            ("list_windows", {}),
        ):
            reply = await player.call(tool, arguments)
            assert reply.error == "The game is not running: start it with `xivmcp game` (or `xivmcp up`).", tool


async def job_done(assistant: Assistant, job_id: str) -> dict[str, Any]:
    """The job once it completed (each look is a round trip to the host: a state, looked at until it holds)."""
    with anyio.fail_after(WAIT * 2):
        while (job := (await assistant.result("get_job", {"id": job_id}))["job"])["state"] != "completed":
            assert job["state"] in ("queued", "running"), job
    found: dict[str, Any] = job
    return found


ROUTE = [
    {"id": "flag", "tool": "set_map_flag", "args": {"x": 11.1, "y": 11.9, "name": "the bell"}},
    {"id": "go", "tool": "navigate_to", "args": {"destination": "flag"}},
    {"id": "there", "tool": "wait_until_arrived", "args": {"radius": 5}},
]
"""A job as the assistant would start it: flag the bell on the map, go there, wait until there."""


async def test_w6_j2_a_job_navigates_with_vnavmesh_then_waits_until_arrived(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game), navmesh_peer(world.endpoint, assistant.pi) as navmesh:
        started = await assistant.result("start_job", {"name": "To the bell", "steps": ROUTE})
        target, _, _ = await navmesh.next_path()  # the navigate_to step asked vnavmesh to walk
        assert ground_distance(target[0], target[2], *BELL) < 3  # the flag, at map precision, by the bell
        await game.advance_clock(10)  # the walk ends on the game's clock
        job = await job_done(assistant, started["started"]["id"])
        going, there = job["steps"][1]["result"], job["steps"][2]["result"]
        assert going["arrived"] is True and going["steps"][0].startswith("vnavmesh: walking to the bell")
        assert there["arrived"] is True and there["at"] == "the flag in Tuliyollal"


async def test_w6_j2_a_job_without_vnavmesh_waits_for_the_player_to_walk_to_the_flag(world: XivMcpSystem) -> None:
    async with session(world) as (assistant, game):
        flagged = anyio.Event()
        game.on_change(lambda change: flagged.set() if change.kind == "flag" else None)
        await assistant.pi.flush()  # the subscription is at the broker before the job starts
        started = await assistant.result("start_job", {"name": "To the bell on foot", "steps": ROUTE})
        with anyio.fail_after(WAIT):
            await flagged.wait()  # the first step puts the flag on the map
        await game.set_position(*BELL)  # the player walks there
        job = await job_done(assistant, started["started"]["id"])
        going, there = job["steps"][1]["result"], job["steps"][2]["result"]
        assert going["arrived"] is True and there["arrived"] is True
        assert (await game.position()).territory == TULIYOLLAL
