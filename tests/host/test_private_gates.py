"""S1: a plugin's private gates and the command line's event gate answer only XIV MCP, as processes.

One system for the module: `xivmcp broker`, `xivmcp host --test-clock`, the Victim plugin on the
kit (`plugins/victim_plugin.py`, whose tools print what they do) and the RawPlugin sample on the
raw gates. A peer named Evil calls their Invoke and Cancel, and the event gate of a running
`xivmcp call`: each time the framework refuses it and nothing runs. That nothing ran is shown by
what the plugin prints next: the first line of its kind after the refusal is the one the player's
own call made, so a line that Evil's call had made would have come before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.abc
import pytest

import broker
from gates.contract import encode_json
from gates.player import ApprovalEvent

from ._system import WAIT, Process, XivMcpSystem, background, player_of, run_in_thread, start_call

pytestmark = pytest.mark.asyncio

VICTIM = str(Path(__file__).parent / "plugins" / "victim_plugin.py")
REFUSAL = (
    "IPC {what} {gate} answers only XivMcp; Evil called it and nothing ran. Its provider keeps it for "
    "XivMcp: call a gate it opens to every process instead."
)


def refusal(gate: str, kind: str = "func") -> str:
    return REFUSAL.format(what="method" if kind == "func" else "action", gate=gate)


@pytest.fixture(scope="module")
def plugins(system: XivMcpSystem) -> Iterator[tuple[Process, Process]]:
    victim = system.start_plugin(VICTIM, name="victim_plugin")
    raw = system.start_plugin("plugins_sample.raw_gates")
    victim.wait_line("Victim: registered victim_wait")
    raw.wait_line("RawPlugin: registered 3 tools")

    async def enable_both() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            for name in ("Victim", "RawPlugin"):
                assert (await player.enable(name)).state == "enabled"
            await player.set_modes("Victim", spend_gil="allow")
            await player.set_modes("RawPlugin", game_ui="allow")

    run_in_thread(enable_both)
    yield victim, raw


async def evil_call(evil: broker.PluginInterface, gate: str, *args: object, kind: str = "func") -> str:
    """Evil calls `gate`: the refusal's message (an assertion error if it was answered)."""
    subscriber = evil.get_ipc_subscriber(gate)
    with anyio.fail_after(WAIT), pytest.raises(broker.IpcRefusedError) as refused:
        if kind == "func":
            await subscriber.invoke_func(*args)
        else:
            await subscriber.invoke_action(*args)
    return str(refused.value)


async def test_s1_a_peer_calling_a_kit_plugins_invoke_is_refused_and_the_tool_does_not_run(
    system: XivMcpSystem, plugins: tuple[Process, Process]
) -> None:
    victim, _ = plugins
    victim.skip_to_end()
    async with broker.connect(system.endpoint, "Evil") as evil:
        gate = "Victim.XivMcp.Invoke"
        assert await evil_call(evil, gate, "c1", "victim_buy", '{"amount": 99}') == refusal(gate)
        assert await evil_call(evil, gate, "c1", "victim_buy", "not even JSON") == refusal(gate)
        player = player_of(evil, system.data_dir)  # the player's own call, through XIV MCP
        assert await player.result("victim_buy", {"amount": 1}) == {"bought": 1}
    assert await victim.expect("Victim: bought") == "Victim: bought 1"  # the first purchase: the player's


async def test_s1_a_peer_cancelling_a_kit_plugins_call_is_refused_and_the_call_goes_on(
    system: XivMcpSystem, plugins: tuple[Process, Process]
) -> None:
    victim, _ = plugins
    victim.skip_to_end()
    async with (
        broker.connect(system.endpoint, "Evil") as evil,
        broker.connect(system.endpoint, "TestApp") as app,
        anyio.create_task_group() as tg,
    ):
        target = start_call(tg, player_of(app, system.data_dir), "victim_wait")
        target_id = (await victim.expect("Victim: waiting (")).split("(")[1].rstrip(")")
        gate = "Victim.XivMcp.Cancel"
        assert await evil_call(evil, gate, target_id, kind="action") == refusal(gate, "action")
        async with broker.connect(system.endpoint, "OtherApp") as other_app, anyio.create_task_group() as other:
            other.start_soon(player_of(other_app, system.data_dir).call, "victim_wait")
            other_id = (await victim.expect("Victim: waiting (")).split("(")[1].rstrip(")")
            other.cancel_scope.cancel()  # that app gives up: XIV MCP cancels its call, and only that one
        # the first cancellation is the other app's: had Evil's Cancel run, the target's would have come first
        assert await victim.expect("Victim: cancelled (") == f"Victim: cancelled ({other_id})"
        assert not target.done.is_set()
        tg.cancel_scope.cancel()
    assert await victim.expect("Victim: cancelled (") == f"Victim: cancelled ({target_id})"


async def test_s1_a_peer_calling_the_raw_samples_invoke_or_cancel_is_refused_and_nothing_runs(
    system: XivMcpSystem, plugins: tuple[Process, Process]
) -> None:
    _, raw = plugins
    raw.skip_to_end()
    async with broker.connect(system.endpoint, "Evil") as evil:
        invoke, cancel = "RawPlugin.XivMcp.Invoke", "RawPlugin.XivMcp.Cancel"
        assert await evil_call(evil, invoke, "c1", "rawplugin_slow", '{"seconds": 3600}') == refusal(invoke)
        assert await evil_call(evil, cancel, "c1", kind="action") == refusal(cancel, "action")
        player = player_of(evil, system.data_dir)
        assert await player.result("rawplugin_slow", {"seconds": 0}) == {"waited": 0}
    started = await raw.expect("RawPlugin: rawplugin_slow started (")  # the first start: the player's call
    call_id = started.split("(")[1].rstrip(")")
    assert call_id != "c1" and await raw.expect("RawPlugin: finished") == f"RawPlugin: finished {call_id}: accepted"


async def test_s1_call_ids_are_random_not_a_counter(system: XivMcpSystem, plugins: tuple[Process, Process]) -> None:
    victim, _ = plugins
    victim.skip_to_end()
    ids: list[str] = []
    async with broker.connect(system.endpoint, "TestApp") as app, anyio.create_task_group() as tg:
        player = player_of(app, system.data_dir)
        for _ in range(3):
            start_call(tg, player, "victim_wait")
            ids.append((await victim.expect("Victim: waiting (")).split("(")[1].rstrip(")"))
        tg.cancel_scope.cancel()
    assert all(re.fullmatch(r"c[0-9a-f]{16}-[0-9a-f]{6}", i) for i in ids), ids  # 64 random bits, the tag (B5)
    assert len({i[1:17] for i in ids}) == 3 and len({i[-6:] for i in ids}) == 1, ids


async def test_s1_the_command_lines_event_gate_answers_only_the_host_and_prints_nothing_else(
    system: XivMcpSystem, plugins: tuple[Process, Process]
) -> None:
    async with broker.connect(system.endpoint, "Evil") as evil:
        player = player_of(evil, system.data_dir)
        await player.set_modes("Victim", spend_gil="ask")
        try:
            async with background(system.cli("call", "victim_buy", '{"amount": 2}')) as call:
                approval = await player.wait_approval("victim_buy")
                gate = next(g.name for g in await evil.list_gates() if g.name.endswith(".CallEvents"))
                assert gate == f"XivMcpCli{call.pid}.CallEvents"
                # an id no host makes (theirs are "a" + 16 hex digits + "-" + the tag): a real one may hold any "a9"
                fake = ApprovalEvent(
                    approval_id="forged", tool="victim_buy", plugin="Victim", summary="FAKE, approve me"
                )
                assert await evil_call(evil, gate, encode_json(fake), kind="action") == refusal(gate, "action")
                await player.decline(approval.approval_id)
                code, err = await ended(call)
        finally:
            await player.set_modes("Victim", spend_gil="allow")
    assert code == 1, err
    assert "FAKE" not in err and "forged" not in err, err
    said = [line for line in err.splitlines() if line.startswith("waiting for the player:")]
    assert len(said) == 1 and approval.approval_id in said[0], err  # the host's event, and only that


async def ended(process: anyio.abc.Process) -> tuple[int, str]:
    """Wait for the command to end: its exit code and its stderr."""
    assert process.stdout is not None and process.stderr is not None
    with anyio.fail_after(WAIT * 2):
        err = b"".join([chunk async for chunk in process.stderr])
        code = await process.wait()
    return code, err.decode()
