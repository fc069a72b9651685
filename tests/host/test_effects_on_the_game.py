"""Side effects of third-party calls against the simulated game, all real processes (T2, A4, W2-W4).

One system for the module: `xivmcp broker`, `xivmcp game --test-clock`, `xivmcp host --test-clock`
and the Effects plugin (tests/host/plugins/effects_plugin.py), enabled with every capability allowed.
Each test first puts the plugin back to enabled (lifting a suspension an earlier test caused)
and the character back in the world, so the tests do not depend on each other's order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

import broker
from game import GameClient
from gates.testing import Player

from ._system import ROOT, XivMcpSystem, player_of, read_audit, run_in_thread, start_call

pytestmark = pytest.mark.asyncio

PLUGIN = "Effects"
HI_POTION_PRICE = 320
DECLARED = ("game_ui", "spend_gil", "move_items", "chat_send")
"""Every capability the Effects plugin's tools declare: all allowed, so no call waits for the player."""


@pytest.fixture(scope="module")
def effects(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    system.start_game("--test-clock")
    plugin = system.start_plugin(
        str(ROOT / "tests" / "host" / "plugins" / "effects_plugin.py"), "--data-dir", str(system.data_dir)
    )
    plugin.wait_line("Effects: registered effects_wait_then_buy")

    async def enable() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            await player.enable(PLUGIN)
            await player.set_modes(PLUGIN, **dict.fromkeys(DECLARED, "allow"))

    run_in_thread(enable)
    yield system


@asynccontextmanager
async def session(system: XivMcpSystem) -> AsyncIterator[tuple[Player, GameClient, broker.PluginInterface]]:
    """The test's peer as the player, with the game and the peer itself: the plugin enabled, the
    character logged in."""
    async with broker.connect(system.endpoint, "Tester") as pi:
        player, game = player_of(pi, system.data_dir), GameClient.as_player(pi, system.data_dir)
        if (await player.plugin(PLUGIN)).state == "suspended":
            await player.lift(PLUGIN)
        if not (await game.player()).player.logged_in:
            await game.set("logged_in", True)
        yield player, game, pi


def calls_of(data_dir: Path, tool: str) -> list[dict[str, Any]]:
    return [e for e in read_audit(data_dir) if e["kind"] == "call" and e.get("tool") == tool]


async def gil(game: GameClient) -> int:
    return (await game.currencies()).gil


async def test_an_undeclared_effect_suspends_the_plugin_until_the_player_lifts_it(effects: XivMcpSystem) -> None:
    # SPEC: T2, W4, A4
    async with session(effects) as (player, game, _):
        before = await gil(game)
        reply = await player.call("effects_buy_undeclared", {"count": 2})
        assert reply.result == {"bought": 2}
        assert await gil(game) == before - 2 * HI_POTION_PRICE

        card = await player.plugin(PLUGIN)
        reason = "effects_buy_undeclared: 640 gil spent. (not declared)"
        assert (card.state, card.suspend_reason) == ("suspended", reason)
        assert (reply.suspended_plugin, reply.suspend_reason) == (PLUGIN, reason)  # the player is told at once
        [call] = calls_of(effects.data_dir, "effects_buy_undeclared")[-1:]
        assert call["flagged"] is True and call["details"]["verdict"] == "suspended"
        assert call["details"]["effects"] == [
            {
                "effect": "spent_gil",
                "detail": "640 gil spent.",
                "coveredBy": ["spend_gil"],
                "undeclared": True,
                "by": ["Effects"],
            }
        ]
        suspensions = [e for e in read_audit(effects.data_dir) if e["kind"] == "suspension"]
        assert suspensions[-1]["details"]["reason"] == reason

        error = await player.error("effects_buy_declared", {"count": 1})
        assert error == (
            f"{PLUGIN} is suspended by XIV MCP ({reason}). Only the player can lift that, in /xivmcp → "
            "Third-party plugins."
        )
        assert await gil(game) == before - 640  # the refused call did nothing

        await player.lift(PLUGIN)
        assert (await player.plugin(PLUGIN)).state == "enabled"
        assert await player.result("effects_buy_declared", {"count": 1}) == {"bought": 1}


async def test_the_same_effect_declared_is_not_held_against_the_plugin(effects: XivMcpSystem) -> None:
    # SPEC: W3
    async with session(effects) as (player, game, _):
        before = await gil(game)
        await player.result("effects_buy_declared", {"count": 3})
        assert await gil(game) == before - 3 * HI_POTION_PRICE
        assert (await player.plugin(PLUGIN)).state == "enabled"
        [call] = calls_of(effects.data_dir, "effects_buy_declared")[-1:]
        assert not call.get("flagged")
        assert [(e["effect"], e["undeclared"]) for e in call["details"]["effects"]] == [("spent_gil", False)]


async def test_gains_are_never_effects(effects: XivMcpSystem) -> None:
    # SPEC: W3
    async with session(effects) as (player, game, _):
        before = await gil(game)
        await player.result("effects_gain", {"gil": 5000})
        assert await gil(game) == before + 5000
        assert (await player.plugin(PLUGIN)).state == "enabled"
        [call] = calls_of(effects.data_dir, "effects_gain")[-1:]
        assert call["details"]["effects"] == [] and not call.get("flagged")


async def test_a_refused_call_changes_nothing_and_one_that_changed_the_game_is_recorded(
    effects: XivMcpSystem,
) -> None:
    # SPEC: T3, A4
    async with session(effects) as (player, game, _):
        seq = (await game.snapshot()).seq
        assert await player.error("effects_refuse") == "Not today."
        assert (await game.changes(seq)).changes == []
        [refused] = calls_of(effects.data_dir, "effects_refuse")[-1:]
        assert refused["details"]["effects"] == [] and "changedOnError" not in refused["details"]

        assert await player.error("effects_chat_then_refuse") == "Changed my mind."
        [changed] = calls_of(effects.data_dir, "effects_chat_then_refuse")[-1:]
        assert changed["details"]["changedOnError"] is True
        assert [e["effect"] for e in changed["details"]["effects"]] == ["chat_sent"]
        assert (await player.plugin(PLUGIN)).state == "enabled"  # chat_send was declared


async def test_f4_an_effect_another_process_made_during_the_call_suspends_the_plugin_and_the_audit_names_it(
    effects: XivMcpSystem,
) -> None:
    """The real host sees only the difference: the helper's purchase is judged as the call's."""
    # SPEC: W2, W3
    async with session(effects) as (player, game, pi), anyio.create_task_group() as tg:
        call = start_call(tg, player, "effects_wait_then_buy", {"buy": False})
        await effects.procs[-1].expect("Effects: waiting")
        await game.buy(4554, 1)  # the test's own peer ("Tester") spends gil meanwhile
        await pi.get_ipc_subscriber("Effects.Go").invoke_action()
        assert (await call.outcome()).result == {"done": True}
        card = await player.plugin(PLUGIN)
        assert card.state == "suspended"
        assert card.suspend_reason == f"effects_wait_then_buy: {HI_POTION_PRICE} gil spent. (not declared)"
        [entry] = calls_of(effects.data_dir, "effects_wait_then_buy")[-1:]
        [effect] = entry["details"]["effects"]
        assert (effect["effect"], effect["undeclared"], effect["by"]) == ("spent_gil", True, ["Tester"])
        assert entry["details"]["explanation"] == [
            f"{HI_POTION_PRICE} gil spent, by Tester during the call: XIV MCP cannot tell who did it and judges "
            "Effects's call by the whole difference."
        ]


async def test_a_call_of_two_minutes_or_more_is_only_flagged(effects: XivMcpSystem) -> None:
    # SPEC: W4
    async with session(effects) as (player, game, pi), anyio.create_task_group() as tg:
        call = start_call(tg, player, "effects_wait_then_buy", {"buy": True})
        await effects.procs[-1].expect("Effects: waiting")
        await player.advance_clock(180)
        await pi.get_ipc_subscriber("Effects.Go").invoke_action()
        assert (await call.outcome()).result == {"done": True}
        assert (await player.plugin(PLUGIN)).state == "enabled"
        [entry] = calls_of(effects.data_dir, "effects_wait_then_buy")[-1:]
        assert entry["flagged"] is True
        assert entry["details"]["verdict"] == "flagged (the call took two minutes or more)"


async def test_nothing_is_checked_while_the_player_is_logged_out(effects: XivMcpSystem) -> None:
    # SPEC: W3
    async with session(effects) as (player, game, _):
        await game.set("logged_in", False)
        assert await player.result("effects_log_in") == {"loggedIn": True}
        assert (await player.plugin(PLUGIN)).state == "enabled"
        [entry] = calls_of(effects.data_dir, "effects_log_in")[-1:]
        assert entry["details"]["effectsChecked"] is False
        assert entry["details"]["uncheckedReason"] == "The player was not logged in when the call started."
