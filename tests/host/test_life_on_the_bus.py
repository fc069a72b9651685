"""A plugin's life on the bus as in the game, across real processes (B1-B4).

Busy is not dead (a loop blocked for seconds keeps its tools), gone is noticed (kill -9 within
3 s), back is whole (a frozen plugin that thaws is registered again by itself), and a restarted
process gets the name of one that just died. Each test has a system of its own.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

import broker
from gates.player import CallReply
from gates.testing import Player

from ._system import WAIT, XivMcpSystem, player_of, read_audit, start_call

pytestmark = pytest.mark.asyncio

SLOW_PLUGIN = str(Path(__file__).parent / "plugins" / "slow_plugin.py")
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP and SIGCONT are POSIX signals")


@asynccontextmanager
async def watching(system: XivMcpSystem) -> AsyncIterator[tuple[Player, list[str], broker.PluginInterface]]:
    """A player on the bus, the peer changes it sees ("joined NAME" / "left NAME"), and its peer."""
    async with broker.connect(system.endpoint, "TestPeer") as pi:
        changes: list[str] = []
        pi.on_peer_change(lambda name, joined, reason: changes.append(f"{'joined' if joined else 'left'} {name}"))
        yield player_of(pi, system.data_dir), changes, pi


async def test_b1_a_quick_tool_that_blocks_its_loop_for_5_s_answers_and_its_plugin_keeps_its_tools(
    fresh_system: XivMcpSystem,
) -> None:
    # SPEC: B1
    slow = fresh_system.start_plugin(SLOW_PLUGIN, name="slow_plugin")
    await slow.expect("Slowpoke: registered slowpoke_hello")
    async with watching(fresh_system) as (player, changes, _):
        await player.enable("Slowpoke")
        reply = await player.call("slowpoke_nap", {"seconds": 5}, within=WAIT + 5)
        assert reply == CallReply(result={"slept": 5.0})
        assert await player.result("slowpoke_hello") == "hello"  # still registered, still enabled
        card = await player.plugin("Slowpoke")
        assert card.connected and card.state == "enabled"
        assert {t.name for t in card.tools} == {"slowpoke_nap", "slowpoke_hello"}
        assert "left Slowpoke" not in changes
    assert not any("unloaded" in str(e.get("details")) for e in read_audit(fresh_system.data_dir))


@POSIX_ONLY
async def test_b3_a_plugin_frozen_past_the_liveness_window_is_gone_then_back_whole_when_it_thaws(
    fresh_system: XivMcpSystem,
) -> None:
    # SPEC: B2, B3
    raw = fresh_system.start_plugin("plugins_sample.raw_gates")
    await raw.expect("RawPlugin: registered 3 tools")
    async with watching(fresh_system) as (player, changes, pi):
        await player.enable("RawPlugin")
        assert await player.result("rawplugin_echo", {"text": "before"}) == {"echo": {"text": "before"}}
        raw.send_signal(signal.SIGSTOP)
        try:
            with anyio.fail_after(WAIT):
                await pi.wait_peer_gone("RawPlugin")  # frozen past the window: gone
            assert (await player.plugin("RawPlugin")).tools == []
        finally:
            raw.send_signal(signal.SIGCONT)
        # a raw plugin registers on Ready: XIV MCP says it when the plugin comes back
        await raw.expect("RawPlugin: registered 3 tools", within=5)
        assert await player.result("rawplugin_echo", {"text": "after"}) == {"echo": {"text": "after"}}
        assert (await player.plugin("RawPlugin")).state == "enabled"  # the player's decision stays
        assert "left RawPlugin" in changes


async def test_b2_a_plugin_killed_mid_call_answers_the_caller_within_3_s_naming_it(
    fresh_system: XivMcpSystem,
) -> None:
    # SPEC: B2
    raw = fresh_system.start_plugin("plugins_sample.raw_gates")
    await raw.expect("RawPlugin: registered 3 tools")
    async with watching(fresh_system) as (player, _, _), anyio.create_task_group() as tg:
        await player.enable("RawPlugin")
        await player.set_modes("RawPlugin", game_ui="allow")
        call = start_call(tg, player, "rawplugin_slow", {"seconds": 60})
        await raw.expect("RawPlugin: rawplugin_slow started")
        raw.kill()
        with anyio.fail_after(3):
            reply = await call.outcome()
        assert reply.error == "The RawPlugin plugin was unloaded during the call."


async def test_b4_a_host_restarted_at_once_after_kill_9_comes_up(fresh_system: XivMcpSystem) -> None:
    # SPEC: B4
    assert fresh_system.host is not None
    fresh_system.host.kill()
    await anyio.to_thread.run_sync(fresh_system.start_host)  # at once: the old XivMcp may not be gone yet
    async with watching(fresh_system) as (player, _, _):
        assert (await player.plugins()).plugins == []
