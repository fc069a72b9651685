"""XIV MCP's tools of gearsets, duties, characters and worlds against the simulated game, all real
processes (W5): switch_gearset, leave_duty, list_characters, switch_character and visit_world.

One system for the module (broker, `xivmcp game --test-clock`, host), with the changes of Game &
navigation allowed (denied by default, as in the real host). Each test puts the world back as the
game started (`Game.Reset`). Each tool's effect on the world is read from the game, and each change
it made from the game's change log: who made it, with the capability the real host gives the tool.
A refusal changes nothing and says what to do, in the real host's words.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

import broker
from gates.contract import DependencyState
from gates.host.policy._dependencies import Dependency, PluginWorld, check_dependency
from gates.host.tools._gear_duty_tools import LEAVE_SECONDS, WAITING_FOR_CALM

from ._game_session import fresh, made_since, refusals, snapshot, start_game_allowing
from ._system import WAIT, XivMcpSystem

pytestmark = pytest.mark.asyncio

SKYDEEP = 1194
"""The Skydeep Cenote, the default world's duty."""


@pytest.fixture(scope="module")
def worlds(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "game_navigation")


# --- switch_gearset ---------------------------------------------------------------------------


async def test_w5_switch_gearset_equips_the_set_and_changes_the_job_recorded_as_game_ui(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        _, seq = await snapshot(game)
        switched = await assistant.result("switch_gearset", {"gearset": "Paladin"})
        assert switched == {"equipped": 2, "name": "Paladin", "job": "PLD", "itemLevel": 650, "warning": None}
        assert await made_since(game, seq) == [("XivMcp", "game_ui", "equipped gearset 2 (Paladin): Warrior → Paladin")]
        character = await assistant.result("get_character")
        assert (character["classJob"], character["level"]) == ("Paladin", 92)
        gear = await assistant.result("get_equipment")
        assert [s["name"] for s in gear["slots"] if not s.get("empty")][:2] == ["Ceremonial Sword", "Ceremonial Shield"]
        assert (await assistant.result("list_gearsets"))["current"] == 2

        _, seq = await snapshot(game)  # by job: the White Mage set, which misses an item
        assert await assistant.result("switch_gearset", {"gearset": "whm"}) == {
            "equipped": 3,
            "name": "White Mage",
            "job": "WHM",
            "itemLevel": 640,
            "warning": "1 item(s) of this set are not in your inventory.",
        }
        _, seq = await snapshot(game)
        assert (await assistant.result("switch_gearset", {"gearset": "3"}))["equipped"] == 3
        assert await made_since(game, seq) == []  # worn already, on its job: nothing to do


async def test_w5_switch_gearset_refusals_change_nothing_and_say_what_to_do(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        assert await refusals(
            assistant,
            game,
            "switch_gearset",
            {},
            {"gearset": "9"},
            {"gearset": "Ninja"},
            {"gearset": "a"},
        ) == [
            "Give 'gearset'.",
            "There is no gearset 9.",
            "No gearset matches 'Ninja' (by number, name or job). Saved: 1 Warrior (WAR), 2 Paladin (PLD), "
            "3 White Mage (WHM), 4 Carpenter (CRP).",
            "'a' matches several gearsets: 1 Warrior, 2 Paladin, 3 White Mage, 4 Carpenter.",
        ]
        await game.start_combat()
        assert await refusals(assistant, game, "switch_gearset", {"gearset": "2"}) == ["Can't change gear in combat."]


# --- leave_duty -------------------------------------------------------------------------------


async def test_w5_leave_duty_takes_the_character_out_recorded_as_combat(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        assert await refusals(assistant, game, "leave_duty", {}) == ["You are not in a duty."]
        start = (await game.player()).player
        await game.enter_duty(SKYDEEP)
        _, seq = await snapshot(game)
        assert await assistant.result("leave_duty") == "Left the duty."
        assert await made_since(game, seq) == [
            ("XivMcp", "combat", "left the duty The Skydeep Cenote, back in Tuliyollal")
        ]
        here = (await game.player()).player
        assert (here.territory, here.position) == (start.territory, start.position)
        assert (await game.state()).duty is None


async def test_w5_leave_duty_never_leaves_mid_fight(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        await game.enter_duty(SKYDEEP)
        await game.start_combat()
        _, seq = await snapshot(game)
        async with anyio.create_task_group() as tg:
            leaving = assistant.start(tg, "leave_duty")
            assert await assistant.progress() == WAITING_FOR_CALM
            assert await made_since(game, seq) == []  # still in the duty while the fight goes on
            await game.end_combat()
            assert await leaving.result() == "Left the duty."
        assert [c[2] for c in await made_since(game, seq)] == [
            "left combat",
            "left the duty The Skydeep Cenote, back in Tuliyollal",
        ]


async def test_w5_leave_duty_gives_up_after_three_minutes_of_fighting(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        await game.enter_duty(SKYDEEP)
        await game.start_combat()
        _, seq = await snapshot(game)
        async with anyio.create_task_group() as tg:
            leaving = assistant.start(tg, "leave_duty")
            assert await assistant.progress() == WAITING_FOR_CALM
            await assistant.player.advance_clock(LEAVE_SECONDS)
            assert await leaving.error() == "Could not leave the duty: still in combat."
        assert await made_since(game, seq) == []


# --- list_characters and switch_character ---------------------------------------------------


async def test_w5_list_characters_lists_the_accounts_characters_with_their_worlds(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        listed = await assistant.result("list_characters")
        assert listed["loggedIn"] == {"name": "Wuk Lamat", "world": "Ravana"}
        wuk, erenville = listed["characters"]
        assert {k: v for k, v in wuk.items() if k != "seen"} == {
            "name": "Wuk Lamat",
            "homeWorld": "Ravana",
            "currentWorld": "Ravana",
            "visiting": None,
            "dataCenter": "Materia",
            "serviceAccount": 1,
            "account": "this account",
            "loggedIn": True,
        }
        assert (erenville["name"], erenville["loggedIn"], wuk["seen"]) == ("Erenville", None, "1970-01-01T00:00:00Z")
        await game.travel_to_world("Shiva")
        visiting = (await assistant.result("list_characters"))["characters"]
        assert [(c["name"], c["currentWorld"], c["dataCenter"], c["visiting"]) for c in visiting] == [
            ("Wuk Lamat", "Shiva", "Light", True),  # Light before Materia
            ("Erenville", "Ravana", "Materia", None),
        ]


async def test_w5_switch_character_logs_into_another_character_recorded_as_login(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        _, seq = await snapshot(game)
        switched = await assistant.result("switch_character", {"name": "erenville"})
        assert switched == {
            "loggedIn": "Erenville",
            "world": "Ravana",
            "steps": ["Logged out of Wuk Lamat.", "Logged in as Erenville (Ravana)."],
        }
        assert await made_since(game, seq) == [("XivMcp", "login", "switched from Wuk Lamat to Erenville (Ravana)")]
        assert (await assistant.result("get_character"))["name"] == "Erenville"
        _, seq = await snapshot(game)
        already = await assistant.result("switch_character", {"name": "Erenville"})
        assert already == {"loggedIn": "Erenville", "note": "Already logged in on this character."}
        assert await made_since(game, seq) == []


async def test_w5_switch_character_refusals_change_nothing_and_name_the_steps(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        assert await refusals(
            assistant,
            game,
            "switch_character",
            {},
            {"name": "Alisaie"},
            {"name": "Alisaie", "world": "Atlantis"},
            {"name": "Alisaie", "world": "Shiva"},
        ) == [
            "'name' is required.",
            "XIV MCP hasn't seen 'Alisaie' in a character list yet; give its home 'world' (and 'service_account' if "
            "your account has several). Steps: none",
            "'Atlantis' is not a public world. Steps: none",
            "Alisaie is not in this account's character list on Shiva. Steps: none",
        ]
        await game.start_combat()
        assert await refusals(assistant, game, "switch_character", {"name": "Erenville"}) == [
            "Can't log out in combat. Steps: none"
        ]
        await game.end_combat()
        await game.enter_duty(SKYDEEP)
        assert await refusals(assistant, game, "switch_character", {"name": "Erenville"}) == [
            "Can't log out while in a duty. Steps: none"
        ]


# --- visit_world ------------------------------------------------------------------------------


async def test_w5_visit_world_travels_with_lifestream_over_its_ipc(worlds: XivMcpSystem) -> None:
    lifestream = worlds.start_plugin("plugins_sample.lifestream")
    try:
        await lifestream.expect("Lifestream: ready")
        async with fresh(worlds) as (assistant, game):
            _, seq = await snapshot(game)
            visited = await assistant.result("visit_world", {"world": "shiva"})
            assert visited == {"arrived": "Shiva", "dataCenter": "Light", "travelledBy": "plugin"}
            assert await made_since(game, seq) == [
                ("Lifestream", "move_character", "travelled from Ravana to Shiva (Light)")
            ]
            assert (await game.snapshot()).snapshot.world == 85
            character = await assistant.result("get_character")
            assert (character["homeWorld"], character["currentWorld"]) == (
                {"id": 74, "name": "Ravana"},
                {"id": 85, "name": "Shiva"},
            )
            assert (await assistant.result("get_game_status"))["world"] == {"id": 85, "name": "Shiva"}
            await lifestream.expect("Lifestream: arrived on Shiva")
    finally:
        await anyio.to_thread.run_sync(lifestream.stop)  # SIGINT: it leaves the bus at once
        # The tests after this one share the system and must not find Lifestream still on the bus
        # (visit_world would travel with it): wait until the broker no longer lists it.
        async with broker.connect(worlds.endpoint, "TestWatch") as pi:
            with anyio.fail_after(WAIT):
                await pi.wait_until(lambda: "Lifestream" not in pi.peers)


async def test_w5_visit_world_without_lifestream_asks_the_player_and_waits(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        async with anyio.create_task_group() as tg:
            visiting = assistant.start(tg, "visit_world", {"world": "Bismarck"})
            assert await assistant.progress() == (
                "Travel to Bismarck (Materia) with World Visit; XIV MCP waits until you arrive."
            )
            await game.travel_to_world("Bismarck")  # the player travels
            assert await visiting.result() == {"arrived": "Bismarck", "dataCenter": "Materia", "travelledBy": "player"}
        async with anyio.create_task_group() as tg:
            visiting = assistant.start(tg, "visit_world", {"world": "Shiva", "timeout_seconds": 30})
            assert await assistant.progress() == (
                "Travel to Shiva (Light) with Data Center Travel; XIV MCP waits until you arrive."
            )
            await assistant.player.advance_clock(30)
            assert await visiting.error() == (
                "Not on Shiva after the timeout. Ask the player whether they are still travelling, then try again."
            )


async def test_w5_visit_world_refusals_change_nothing_and_say_what_to_do(worlds: XivMcpSystem) -> None:
    async with fresh(worlds) as (assistant, game):
        assert await refusals(assistant, game, "visit_world", {}, {"world": "Atlantis"}, {"world": "ravana"}) == [
            "'world' is required.",
            "'Atlantis' is not a public world.",
            "Already on Ravana.",
        ]
        await game.enter_duty(SKYDEEP)
        assert await refusals(assistant, game, "visit_world", {"world": "Shiva"}) == ["Can't log out while in a duty."]


async def test_g6_visit_world_is_ready_without_lifestream_and_says_what_it_does_without() -> None:
    # SPEC: G6
    entry = check_dependency(Dependency("visit_world"), PluginWorld(), owner_of=lambda _: None, enabled=lambda _: False)
    assert (entry.state, entry.message) == (
        DependencyState.OK,
        "Ready. Without Lifestream: XIV MCP asks you to travel there with World Visit or Data Center Travel, and "
        "waits until you arrive.",
    )
    [install] = entry.install
    assert (install.plugin, install.needed, install.reason) == (
        "Lifestream",
        False,
        "Travels to the world or data center for you.",
    )
    assert install.repo == "https://raw.githubusercontent.com/NightmareXIV/MyDalamudPlugins/main/pluginmaster.json"
