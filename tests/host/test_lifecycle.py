"""Life cycles across real processes: consent, keep-disabled, kill -9 and restarts of host and plugins.

Each test has a system of its own (`xivmcp broker` and `xivmcp host --test-clock` as separate
processes), because it kills or restarts them. The player's decisions live in SQLite in the data
dir and must survive a host killed with SIGKILL; a plugin re-registers by itself on `Ready`.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

import broker
from gates.player import Awaits, PlayerError
from gates.testing import Player

from ._system import WAIT, XivMcpSystem, player_of, read_audit, start_call

pytestmark = pytest.mark.asyncio


@asynccontextmanager
async def player_on(
    system: XivMcpSystem, name: str = "TestPeer"
) -> AsyncIterator[tuple[Player, broker.PluginInterface]]:
    """The player on a peer of the test's own, and that peer."""
    async with broker.connect(system.endpoint, name) as pi:
        yield player_of(pi, system.data_dir), pi


async def kill_host_and_restart(system: XivMcpSystem, pi: broker.PluginInterface) -> None:
    """kill -9 the host, wait until the bus (seen from `pi`) has noticed, start it again and wait for its gates."""
    assert system.host is not None
    system.host.kill()
    with anyio.fail_after(WAIT):
        await pi.wait_peer_gone("XivMcp")
    await anyio.to_thread.run_sync(system.start_host)


def registrations(system: XivMcpSystem, plugin: str) -> list[dict[str, Any]]:
    """The audit lines where the player was asked about the plugin's registration."""
    return [e for e in read_audit(system.data_dir) if e["kind"] == "registration" and e.get("plugin") == plugin]


async def test_g5_registration_and_consent_life_cycle_undecided_then_enabled(fresh_system: XivMcpSystem) -> None:
    raw = fresh_system.start_plugin("plugins_sample.raw_gates")
    await raw.expect("RawPlugin: registered 3 tools")
    async with player_on(fresh_system) as (player, pi):
        card = await player.plugin("RawPlugin")
        assert (card.state, card.connected) == ("undecided", True)
        assert card.awaits == Awaits(
            new_tools=["rawplugin_echo", "rawplugin_slow", "rawplugin_inline"], new_capabilities=["game_ui"]
        )
        assert [(t.name, t.mode) for t in card.tools] == [
            ("rawplugin_echo", "deny"),
            ("rawplugin_slow", "deny"),
            ("rawplugin_inline", "deny"),
        ]
        # calls are refused before the player enables it, with a message naming the setting
        assert await player.error("rawplugin_echo", {"a": 1}) == (
            "RawPlugin's tools aren't allowed yet. The player can allow the plugin in /xivmcp → Third-party plugins."
        )
        assert [e["details"]["review"] for e in registrations(fresh_system, "RawPlugin")] == ["new_plugin"] * 3

        enabled = await player.enable("RawPlugin")
        assert (enabled.plugin, enabled.state, enabled.changed) == ("RawPlugin", "enabled", True)
        card = await player.plugin("RawPlugin")
        assert (card.state, card.awaits) == ("enabled", None)
        assert await player.result("rawplugin_echo", {"a": 1}) == {"echo": {"a": 1}}
        consents = [e for e in read_audit(fresh_system.data_dir) if e["kind"] == "consent"]
        assert consents[-1]["plugin"] == "RawPlugin"


async def test_a6_keep_disabled_is_remembered_while_the_registration_stays_the_same_also_across_a_host_restart(
    fresh_system: XivMcpSystem,
) -> None:
    system = fresh_system
    myplugin = system.start_plugin("plugins_sample.myplugin")
    await myplugin.expect("MyPlugin: registered myplugin_restock (undecided)")
    async with player_on(system) as (player, pi):
        assert (await player.keep_disabled("MyPlugin")).state == "kept_disabled"
        asked = len(registrations(system, "MyPlugin"))
        assert await player.error("myplugin_status") == (
            "My Plugin's tools aren't allowed yet. The player can allow the plugin in /xivmcp → Third-party plugins."
        )

        # the plugin reloads (Ctrl-C: it unregisters and leaves): the same registration asks nothing
        assert myplugin.terminate(sig=signal.SIGINT) in (0, -signal.SIGINT)
        with anyio.fail_after(WAIT):
            await pi.wait_peer_gone("MyPlugin")
        myplugin = system.start_plugin("plugins_sample.myplugin")
        await myplugin.expect("MyPlugin: registered myplugin_restock (kept_disabled)")
        assert (await player.plugin("MyPlugin")).awaits is None

        # the host restarts: the decision is in its data dir, and MyPlugin registers again by itself
        assert system.host is not None and system.host.terminate() == 0
        await anyio.to_thread.run_sync(system.start_host)
        await myplugin.expect("MyPlugin: registered myplugin_restock (kept_disabled)")
        card = await player.plugin("MyPlugin")
        assert (card.state, card.awaits, len(card.tools)) == ("kept_disabled", None, 6)
        assert len(registrations(system, "MyPlugin")) == asked  # not asked again
        assert "My Plugin's tools aren't allowed yet" in await player.error("myplugin_status")


async def test_g11_a5_after_a_host_restart_plugins_register_again_by_themselves_and_decisions_are_kept(
    fresh_system: XivMcpSystem,
) -> None:
    system = fresh_system
    system.start_game("--test-clock")  # what MyPlugin's tools act on
    myplugin = system.start_plugin("plugins_sample.myplugin")
    await myplugin.expect("MyPlugin: registered myplugin_restock (undecided)")
    async with player_on(system) as (player, pi), anyio.create_task_group() as tg:
        await player.enable("MyPlugin")
        await player.set_modes("MyPlugin", spend_gil="deny", game_ui="ask", move_character="ask")
        call = start_call(tg, player, "myplugin_stop")
        await player.approve((await player.wait_approval("myplugin_stop")).approval_id, always=True)
        await call.outcome()
        call = start_call(tg, player, "myplugin_set_flag", {"x": 2, "y": 2})
        await player.approve((await player.wait_approval("myplugin_set_flag")).approval_id, session=True)
        await call.outcome()
        assert not (await player.call("myplugin_set_flag", {"x": 3, "y": 3})).is_error  # the session grant

        await kill_host_and_restart(system, pi)
        await myplugin.expect("MyPlugin: registered myplugin_restock (enabled)")
        card = await player.plugin("MyPlugin")
        assert card.state == "enabled"
        capabilities = {c.id: c.mode for c in card.capabilities}
        assert (capabilities["spend_gil"], capabilities["game_ui"]) == ("deny", "ask")
        assert {t.name: t.mode for t in card.tools}["myplugin_stop"] == "allow"
        assert not (await player.call("myplugin_stop")).is_error  # always allow was kept
        assert '"Spend gil" is blocked for My Plugin' in await player.error("myplugin_restock")
        # "for this session" ended with the host: asked again
        call = start_call(tg, player, "myplugin_set_flag", {"x": 4, "y": 4})
        await player.decline((await player.wait_approval("myplugin_set_flag")).approval_id)
        assert (await call.outcome()).error == "The player declined myplugin_set_flag (Use game windows)."


async def test_g11_ready_and_disposing_are_broadcast_and_plugins_stop_running_calls_on_disposing(
    fresh_system: XivMcpSystem,
) -> None:
    system = fresh_system
    system.start_game("--test-clock")  # what MyPlugin's farm fights in
    myplugin = system.start_plugin("plugins_sample.myplugin", "--seconds-per-kill", "1000")
    await myplugin.expect("MyPlugin: registered myplugin_restock (undecided)")
    async with player_on(system) as (player, pi), anyio.create_task_group() as tg:
        await player.enable("MyPlugin")
        await player.set_modes("MyPlugin", myplugin_farm="allow")
        heard: dict[str, anyio.Event] = {"XivMcp.Ready": anyio.Event(), "XivMcp.Disposing": anyio.Event()}
        for message, event in heard.items():
            pi.get_ipc_subscriber(message).subscribe(lambda *_, event=event: event.set())
        with anyio.fail_after(WAIT):
            await pi.wait_until(
                lambda: all((g := pi.gate(m)) is not None and "TestPeer" in g.subscribers for m in heard)
            )
        call = start_call(tg, player, "myplugin_farm", {"kills": 100_000})
        await myplugin.expect("MyPlugin: farming (")

        assert system.host is not None
        assert system.host.terminate() == 0  # SIGTERM: the host goes down cleanly
        with anyio.fail_after(WAIT):
            await heard["XivMcp.Disposing"].wait()
        await myplugin.expect("MyPlugin: stopped farming safely")
        assert not heard["XivMcp.Ready"].is_set()
        # The call went with the host: stopped by MyPlugin ("Cancelled.") or by the host closing,
        # or its answer did not get out before the host was gone.
        await call.ended()
        stopped = ("Cancelled.", "XIV MCP is unloading.")
        assert call.lost is not None or (call.reply is not None and call.reply.error in stopped), call.reply

    async with player_on(system, "TestPeer2") as (player, pi):
        ready = anyio.Event()
        pi.get_ipc_subscriber("XivMcp.Ready").subscribe(lambda *_: ready.set())
        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: (g := pi.gate("XivMcp.Ready")) is not None and bool(g.subscribers))
        await anyio.to_thread.run_sync(system.start_host)
        with anyio.fail_after(WAIT):
            await ready.wait()
        await myplugin.expect("MyPlugin: registered myplugin_restock (enabled)")


async def test_a5_a_plugin_killed_mid_call_fails_the_call_and_its_tools_are_offered_only_while_connected(
    fresh_system: XivMcpSystem,
) -> None:
    system = fresh_system
    system.start_game("--test-clock")  # what MyPlugin's farm fights in
    myplugin = system.start_plugin("plugins_sample.myplugin", "--seconds-per-kill", "1000")
    await myplugin.expect("MyPlugin: registered myplugin_restock (undecided)")
    async with player_on(system) as (player, pi), anyio.create_task_group() as tg:
        await player.enable("MyPlugin")
        await player.set_modes("MyPlugin", myplugin_farm="allow")
        call = start_call(tg, player, "myplugin_farm", {"kills": 100_000})
        await myplugin.expect("MyPlugin: farming (")
        myplugin.kill()  # kill -9 mid-call
        outcome = await call.outcome()
        assert outcome.error == "The My Plugin plugin was unloaded during the call."

        card = await player.plugin("MyPlugin")
        assert (card.connected, card.tools, card.state) == (False, [], "enabled")
        with pytest.raises(PlayerError) as refused:
            await player.call("myplugin_status")
        assert refused.value.message == (
            "'myplugin_status' is a tool of MyPlugin, which is not connected right now; start it, then call again "
            "(`xivmcp plugins` shows who is connected)."
        )
        calls = [e for e in read_audit(system.data_dir) if e["kind"] == "call" and e.get("tool") == "myplugin_farm"]
        assert calls[-1]["details"]["error"] == "The My Plugin plugin was unloaded during the call."

        myplugin = system.start_plugin("plugins_sample.myplugin")
        await myplugin.expect("MyPlugin: registered myplugin_restock (enabled)")
        card = await player.plugin("MyPlugin")
        assert (card.connected, len(card.tools)) == (True, 6)
        assert (await player.result("myplugin_status"))["kills"] == 0
