"""The resets a shared test system runs between tests: the host's `reset` and the game's `Game.Reset`.

On the bare harness, with the kit's `Player` on the test's own bus connection and event loop
(`Player.over`), so what is checked is the processes' behaviour, not the fixtures'. A reset is
for a test system only: on the real clock both refuse, saying how to start them instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

import broker
from game import GameClient, GameError
from gates.contract import PluginState
from gates.testing import Player, PlayerError, XivMcpSystem

pytestmark = pytest.mark.asyncio

WAIT = 10.0


@pytest.fixture
def test_clock_system(tmp_path: Path) -> Iterator[XivMcpSystem]:
    with XivMcpSystem(tmp_path, "--test-clock", "--no-mcp") as system:
        system.start()
        system.start_game("--test-clock")
        yield system


@pytest.fixture
def real_clock_system(tmp_path: Path) -> Iterator[XivMcpSystem]:
    with XivMcpSystem(tmp_path, "--no-mcp") as system:
        system.start()
        system.start_game()
        yield system


@asynccontextmanager
async def peer(system: XivMcpSystem) -> AsyncIterator[tuple[broker.PluginInterface, Player, GameClient]]:
    async with broker.connect(system.endpoint, "ResetTest") as pi:
        yield pi, Player.over(pi, system.data_dir), GameClient.as_player(pi, system.data_dir)


async def test_a_host_and_a_game_on_the_real_clock_refuse_to_be_reset(real_clock_system: XivMcpSystem) -> None:
    async with peer(real_clock_system) as (_, player, game):
        with pytest.raises(PlayerError, match=r"reset is for tests: start the host with --test-clock"):
            await player.reset()
        with anyio.fail_after(WAIT), pytest.raises(GameError, match="Game.Reset: .*start the game with --test-clock"):
            await game.reset()


async def test_reset_forgets_the_plugins_that_left_and_keeps_the_connected_ones_decisions(
    test_clock_system: XivMcpSystem,
) -> None:
    leaving = test_clock_system.start_plugin("plugins_sample.raw_gates")
    staying = test_clock_system.start_plugin("plugins_sample.growing")
    await leaving.expect("RawPlugin: registered 3 tools")
    await staying.expect("GrowingPlugin: registered growing_look")
    async with peer(test_clock_system) as (pi, player, _):
        await player.enable("RawPlugin")
        await player.enable("GrowingPlugin")
        await player.mode("GrowingPlugin", "game_ui", "deny")
        await anyio.to_thread.run_sync(leaving.stop)
        with anyio.fail_after(WAIT):
            await pi.wait_peer_gone("RawPlugin")

        done = await player.reset()

        assert done.plugins == ["RawPlugin"]
        assert [card.name for card in (await player.plugins()).plugins] == ["GrowingPlugin"]
        growing = await player.plugin("GrowingPlugin")
        assert growing.state is PluginState.ENABLED and growing.connected
        assert (await player.mode("GrowingPlugin", "game_ui", "deny")).changed is False  # still set
        assert (await player.reset()).plugins == []


async def test_reset_cancels_and_forgets_every_job_and_puts_the_module_settings_back(
    test_clock_system: XivMcpSystem,
) -> None:
    async with peer(test_clock_system) as (_, player, _):
        started = await player.call("start_job", {"name": "Wait", "steps": [{"tool": "wait", "args": {"seconds": 60}}]})
        assert not started.is_error, started.error
        await player.module("game_data", "off")
        await player.tool("set_map_flag", "allow")

        done = await player.reset()

        assert (done.jobs, done.settings) == (1, 2)
        assert await player.jobs() == []
        assert all(module.on for module in await player.modules())
        assert await player.audit() == []  # every line of the test is before the reset's
        assert (await player.reset()).settings == 0  # nothing left to put back: nothing written


async def test_game_reset_puts_the_world_back_and_the_change_log_goes_on(test_clock_system: XivMcpSystem) -> None:
    async with peer(test_clock_system) as (pi, _, game):
        with anyio.fail_after(WAIT):
            start = await game.state()
            await game.set("gil", 5)
            await game.set_flag(11.2, 10.8)
            await game.advance_clock(30)
            seq = (await game.snapshot()).seq
            told: list[int] = []
            game.on_reset(told.append)
            await pi.flush()  # the subscription is at the broker before the reset

            reset = await game.reset()

            assert (reset.seq, reset.time) == (seq, start.time + 30)  # neither the log nor the clock goes back
            assert told == [seq]  # Game.WorldReset came before the reply (the bus keeps one sender's order)
            now = await game.state()
            assert (now.player.gil, now.flag) == (start.player.gil, None)
            assert (await game.changes(seq)).changes == []  # a reset is not a change a process made
            await game.set("gil", 6)
            assert [c.seq for c in (await game.changes(seq)).changes] == [seq + 1]


async def test_f4_the_harness_resets_the_world_and_moves_the_clocks_and_a_plugin_can_do_neither(
    test_clock_system: XivMcpSystem,
) -> None:
    """The kit proves the player key (`Player.over`, `GameClient.as_player`); a plugin's client has none."""
    async with (
        peer(test_clock_system) as (_, player, game),
        broker.connect(test_clock_system.endpoint, "Sneaky") as plugin,
    ):
        with anyio.fail_after(WAIT):
            start = await game.state()
            await game.set("gil", 7)
            moved = await player.advance_clock(30)
            assert (moved.host_time, moved.game_time) == (30.0, start.time + 30)
            sneaky = GameClient(plugin)
            for refused in (lambda: sneaky.reset(), lambda: sneaky.advance_clock(5), lambda: sneaky.set("gil", 1)):
                with pytest.raises(GameError, match="only the player rewrites the world this way"):
                    await refused()
            assert ((await game.state()).player.gil, (await game.time()).time) == (7, start.time + 30)
            await game.reset()
            assert (await game.state()).player.gil == start.player.gil
