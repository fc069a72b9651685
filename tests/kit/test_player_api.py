"""The player's decisions from Python (K3): the command line's commands, names and results, on the kit.

These tests use the kit's fixtures as a plugin author does (`player`, `assistant`, `game`,
`plugin_process`, and `async_player`), so they also show that a shared system is reset between
tests: each starts from no plugin, default settings and the world as it started.
"""

from __future__ import annotations

import argparse
import inspect

import pytest

from gates.contract import JobState, PluginState
from gates.testing import (
    Player,
    PlayerError,
    PluginProcesses,
    PrivateSystem,
    SyncAssistant,
    SyncGame,
    SyncPlayer,
)
from plugins_sample import decorated
from xivmcp import _player_cli

HOUR = {"name": "Wait an hour", "steps": [{"tool": "wait", "args": {"seconds": 3600}}]}
JOB_ACTIONS = {"pause_job", "resume_job", "cancel_job"}
"""`xivmcp job pause|resume|cancel ID`: one method each."""


def cli_commands() -> set[str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    _player_cli.add_parsers(sub, argparse.ArgumentParser(add_help=False))
    return set(sub.choices)


def public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(f) for name, f in vars(cls).items() if callable(f) and not name.startswith("_")}


def start_decorated(plugin_process: PluginProcesses) -> None:
    plugin_process.start(decorated.plugin).wait_registered()


def test_k3_every_player_command_of_the_cli_is_a_method_of_the_same_name() -> None:
    methods = public_methods(Player)
    missing = {cmd for cmd in cli_commands() if cmd.replace("-", "_") not in methods}
    assert missing == set()
    assert JOB_ACTIONS <= set(methods)


def test_k3_the_blocking_player_has_every_method_of_the_player_with_the_same_arguments() -> None:
    mine, theirs = public_methods(SyncPlayer), public_methods(Player)
    assert set(theirs) - {"over"} <= set(mine)
    for name, signature in theirs.items():
        if name != "over":
            assert list(mine[name].parameters) == list(signature.parameters), name


def test_k3_enable_keep_disabled_and_lift_say_where_the_plugin_stands(
    player: SyncPlayer, plugin_process: PluginProcesses
) -> None:
    start_decorated(plugin_process)
    assert player.plugin("Decorated").state is PluginState.UNDECIDED

    kept = player.keep_disabled("Decorated")
    assert (kept.state, kept.changed) == (PluginState.KEPT_DISABLED, True)
    enabled = player.enable("Decorated")
    assert enabled.state is PluginState.ENABLED and "is enabled" in enabled.message
    again = player.enable("Decorated")
    assert again.changed is False and "already enabled" in again.message
    lifted = player.lift("Decorated")
    assert lifted.changed is False and "is not suspended" in lifted.message


def test_k3_a_refusal_raises_player_error_with_the_hosts_message(
    player: SyncPlayer, plugin_process: PluginProcesses
) -> None:
    start_decorated(plugin_process)
    with pytest.raises(PlayerError) as refused:
        player.enable("Decorated", digest="0123456789ab")  # not the registration shown now
    assert refused.value.command == "enable"
    assert "registration changed since you looked" in refused.value.message
    with pytest.raises(PlayerError, match="Decoratd.*Did you mean 'Decorated'"):
        player.mode("Decoratd", "game_ui", "allow")
    with pytest.raises(PlayerError, match="knows no plugin named 'Nobody'"):
        player.plugin("Nobody")


def test_k3_modes_and_a_call_through_the_gate(player: SyncPlayer, plugin_process: PluginProcesses) -> None:
    start_decorated(plugin_process)
    player.enable("Decorated")
    assert player.mode("Decorated", "game_ui", "allow").message == "Decorated: game_ui is now allow."
    placed = player.call("decorated_set_flag", {"x": "21.4", "y": 9.8})
    assert placed.is_error is False and placed.result["x"] == 21.4

    player.mode("Decorated", "decorated_set_flag", "deny")
    denied = player.call("decorated_set_flag", {"x": 21.4, "y": 9.8})
    assert denied.is_error and denied.error is not None and "set to Deny" in denied.error


def test_k3_approvals_before_and_during_a_call_are_answered_from_the_test(
    player: SyncPlayer, plugin_process: PluginProcesses
) -> None:
    start_decorated(plugin_process)
    player.enable("Decorated")
    for capability in ("move_character", "game_ui"):
        player.mode("Decorated", capability, "allow")
    call = player.start_call("decorated_restock", {"count": 2})  # spend_gil is still "ask"
    before = player.wait_approval("decorated_restock")
    assert (before.kind, before.capabilities) == ("before_call", ["move_character", "game_ui", "spend_gil"])
    player.approve(before.approval_id)
    during = player.wait_approval("decorated_restock")
    assert (during.kind, during.summary) == ("during_call", "Buy 2 Hi-Potion for 640 gil")

    answered = player.approve(during.approval_id, session=True)

    assert answered.state == "approved" and "for this session" in answered.message
    assert call.result().result == {"bought": 2, "item": "Hi-Potion", "gil": 640, "gilLeft": 100_000 - 640}
    kinds = [entry.kind for entry in player.audit(plugin="Decorated")]
    assert kinds[-3:] == ["approval", "approval", "call"]


def test_k3_jobs_are_listed_shown_paused_and_cancelled(player: SyncPlayer, assistant: SyncAssistant) -> None:
    started = assistant.call_tool("start_job", HOUR)
    assert not started.is_error, started.text
    [job] = player.jobs()
    assert (job.name, job.state, job.steps) == ("Wait an hour", JobState.RUNNING, 1)
    assert player.job(job.id).steps[0].tool == "wait"

    assert player.pause_job(job.id).job.id == job.id
    assert player.job(job.id).state is JobState.PAUSED
    player.cancel_job(job.id)
    assert player.job(job.id).state is JobState.CANCELLED
    with pytest.raises(PlayerError, match="has finished"):
        player.resume_job(job.id)


def test_k3_modules_tools_and_the_clock(player: SyncPlayer, game: SyncGame) -> None:
    navigation = next(m for m in player.modules() if m.id == "game_navigation")
    assert navigation.changes == "deny"
    assert "changes is now ask" in player.module("game_navigation", "changes", "ask")
    assert "on its own" in player.tool("set_map_flag", "deny")
    before = game.state().time

    moved = player.advance_clock(90)

    assert moved.game_time == before + 90 and moved.host_time >= 90


@pytest.mark.asyncio
async def test_k3_the_same_player_awaited_from_an_async_test(
    async_player: Player, plugin_process: PluginProcesses
) -> None:
    await plugin_process.start(decorated.plugin).wait_registered_async()
    assert (await async_player.enable("Decorated")).state is PluginState.ENABLED
    assert [card.name for card in (await async_player.plugins()).plugins] == ["Decorated"]


@pytest.mark.xivmcp(test_clock=False)
def test_k2_a_real_clock_system_is_a_test_s_own_and_its_clock_is_not_the_tests(
    xivmcp_system: PrivateSystem, player: SyncPlayer
) -> None:
    assert xivmcp_system.options.shared is False
    with pytest.raises(PlayerError, match="real clock"):
        player.advance_clock(5)
    with pytest.raises(PlayerError, match="reset is for tests: start the host with --test-clock"):
        player.reset()
