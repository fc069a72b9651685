"""A plugin's life on the bus as in the game (B1, B2, B4, B6), with real processes.

A busy process keeps its name (B1), a killed one is noticed at once and a frozen one past the
liveness window (B2), a restarted process gets the name of the one that died (B4), and calls a
caller gave up on are freed at the broker (B6). The provider process "Prov"
(tests/bus/_peer_proc.py) blocks its event loop in `Prov.Block`, never answers `Prov.Hang`, and
prints "lost" / "reconnected" when its connection changes; a watcher process prints the peer
changes it sees.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

import anyio
import pytest

import broker

if TYPE_CHECKING:
    from tests.conftest import BrokerProcess, PeerProcess, Spawn

pytestmark = pytest.mark.asyncio

WAIT = 5.0
START = 10.0
"""Seconds a new Python process may take to start and print "ready" on a loaded 2-core machine."""


async def started_watcher(spawn_peer: Spawn) -> PeerProcess:
    watcher = await spawn_peer("watcher", "Watcher")
    await watcher.expect("ready")
    return watcher


async def test_b1_a_provider_blocked_5_s_in_a_sync_handler_answers_and_keeps_its_name_and_gates(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    watcher = await started_watcher(spawn_peer)
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        changes: list[tuple[str, bool, str]] = []
        pi.on_peer_change(lambda name, joined, reason: changes.append((name, joined, reason)))
        echo = pi.get_ipc_subscriber("Prov.Echo")
        with anyio.fail_after(15.0):
            # Longer than the liveness window (2 s): only the beacon thread speaks for Prov.
            assert await pi.get_ipc_subscriber("Prov.Block").invoke_func(5.0) == "woke"
        assert ready_provider.lines.count("block-started") == 1
        assert "Prov" in pi.peers and echo.has_function()
        with anyio.fail_after(WAIT):
            assert await echo.invoke_func("still here") == "still here"
        assert [c for c in changes if c[0] == "Prov"] == []
    # Tst's leaving is an event the watcher gets after any it would have had about Prov.
    await watcher.expect("left Tst", WAIT)
    assert not [line for line in watcher.lines if line.startswith(("left Prov", "joined Prov"))]
    assert "lost" not in ready_provider.lines


async def test_b2_a_killed_provider_is_noticed_by_a_watcher_within_1_5_s(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    watcher = await started_watcher(spawn_peer)
    ready_provider.kill()  # kill -9: the OS closes its connections
    with anyio.fail_after(1.5):
        line = await watcher.expect("left Prov", 1.5)
    assert line == "left Prov Prov's connection closed (its process exited or was killed)"


async def test_b2_a_frozen_provider_leaves_past_the_window_and_comes_back_whole_on_sigcont(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    watcher = await started_watcher(spawn_peer)
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        echo = pi.get_ipc_subscriber("Prov.Echo")
        ready_provider.send_signal(signal.SIGSTOP)
        try:
            left = await watcher.expect("left Prov", WAIT)
            assert left.startswith("left Prov Prov stopped answering (no heartbeat for ")
            with anyio.fail_after(WAIT):
                await pi.wait_until(lambda: not echo.has_function())
        finally:
            ready_provider.send_signal(signal.SIGCONT)
        with anyio.fail_after(5.0):
            await ready_provider.expect("reconnected", 5.0)
            await echo.wait_ready()
            assert await echo.invoke_func("back") == "back"
    assert (await watcher.expect("joined Prov", WAIT)) == "joined Prov"


async def test_b4_a_provider_restarted_at_once_after_kill_9_gets_its_name(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    ready_provider.kill()
    again = await spawn_peer("provider", "Prov")
    await again.expect("ready", START)
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("new") == "new"
    assert again.log is not None and "already connected" not in again.log.read_text()


async def test_b4_a_newcomer_gets_the_name_of_a_frozen_holder_after_the_window(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    watcher = await started_watcher(spawn_peer)
    ready_provider.send_signal(signal.SIGSTOP)
    try:
        newcomer = await spawn_peer("provider", "Prov")
        await newcomer.expect("ready", START)
        left = await watcher.expect("left Prov", WAIT)
        assert left.startswith("left Prov Prov stopped answering")
    finally:
        ready_provider.send_signal(signal.SIGCONT)
    # The old holder wakes to find its name taken by a live process: it is refused, not merged.
    await ready_provider.expect("lost", WAIT)
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("mine") == "mine"
    assert "reconnected" not in ready_provider.lines


async def test_b4_a_second_live_process_with_the_same_name_is_refused_and_exits(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    twin = await spawn_peer("provider", "Prov")
    assert await twin.wait(START) != 0
    assert twin.log is not None
    stderr = twin.log.read_text()
    assert "IpcRefusedError: The InternalName 'Prov' is already connected from another process, which is alive" in (
        stderr
    )
    assert stderr.count("waiting for the InternalName 'Prov'") == 1
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("unharmed") == "unharmed"


async def test_b6_5000_abandoned_calls_to_a_hung_provider_are_freed_at_the_broker(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        hang = pi.get_ipc_subscriber("Prov.Hang")
        with anyio.fail_after(60.0):
            for _ in range(5000):
                with anyio.move_on_after(0):  # cancelled at its first wait, just after sending
                    await hang.invoke_func()
            # More than the per-provider limit (1024) were sent: without Abandon this is refused.
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("through") == "through"
            stats = await pi.broker_stats()
        assert stats.pending_calls == 0
        assert stats.in_flight == {}
