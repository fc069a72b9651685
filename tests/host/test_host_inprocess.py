"""The host's logic with the host in this process: suspension, the registry under load, what is
offered, calls whose caller gives up, and calls whose plugin's loop does not pick them up (P7).
The test holds the `Host` object, so it can do what no gate does yet (suspend a plugin, as a
detected side effect will) and look at its state directly.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

import broker
from broker import Broker, BrokerConfig
from gates.host import CallOutcome, HostConfig, host_running
from gates.player import CallReply, PlayerError

from ._system import (
    ROOT,
    WAIT,
    TestPlugin,
    inprocess_host,
    ok,
    player_of,
    plugin_peer,
    read_audit,
    refused,
    start_call,
    xivmcp_argv,
)

pytestmark = pytest.mark.asyncio


def tool(name: str, **fields: object) -> str:
    return json.dumps({"name": name, "description": f"{name} of the test.", **fields})


async def test_t2_a_suspended_plugin_is_refused_with_its_reason_until_the_player_lifts_it(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_buy", capabilities=["game_ui"])
        await player.enable("TestPeer")
        await player.set_modes("TestPeer", game_ui="allow")
        reason = "testpeer_buy spent 1,200 gil without declaring spend_gil"
        host.call_path.suspend("TestPeer", reason)

        status = await ok(plugin.pi, "GetStatus", "TestPeer")
        assert (status["state"], status["canRun"], status["suspendReason"]) == ("suspended", False, reason)
        assert status["tools"] == [{"name": "testpeer_buy", "mode": "deny", "own": False}]
        permission = await ok(plugin.pi, "CheckPermission", "TestPeer", "game_ui")
        assert (permission["mode"], permission["suspended"], permission["state"]) == ("deny", True, "suspended")
        assert await player.error("testpeer_buy") == (
            f"TestPeer is suspended by XIV MCP ({reason}). Only the player can lift that, in /xivmcp → "
            "Third-party plugins."
        )
        suspensions = [e for e in read_audit(tmp_path) if e["kind"] == "suspension"]
        assert [(e["plugin"], e.get("flagged"), e["details"]["reason"]) for e in suspensions] == [
            ("TestPeer", True, reason)
        ]
        assert (await player.plugin("TestPeer")).suspend_reason == reason

        # the player lifts it with `xivmcp lift` (a real subprocess on this in-process host's bus)
        argv = xivmcp_argv("lift", "TestPeer", "--bus", endpoint, "--data-dir", str(tmp_path))
        with anyio.fail_after(WAIT * 2):
            done = await anyio.run_process(argv, cwd=ROOT, check=False)
        assert (done.returncode, done.stdout) == (0, b"TestPeer's suspension is lifted.\n")
        with anyio.fail_after(WAIT * 2):
            done = await anyio.run_process(argv, cwd=ROOT, check=False)
        said = (done.returncode, done.stdout.decode().strip())
        assert said == (0, "TestPeer is not suspended (it is enabled); nothing to do.")  # said the same way

        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_buy")
            call_id, _, _ = await plugin.next_invoke()
            await ok(plugin.pi, "CompleteCall", call_id, '{"bought": 1}')
            assert (await call.outcome()).result == {"bought": 1}


async def test_a2_concurrent_registrations_from_many_plugins_all_land_and_each_change_is_announced(
    tmp_path: Path,
) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host):
        changes: list[int] = []
        host.on_change(lambda _plugin: changes.append(host.registry.version))
        version = host.registry.version

        async def plugin(index: int) -> None:
            name = f"Busy{index}"
            async with broker.connect(endpoint, name) as pi:
                with anyio.fail_after(WAIT):
                    async with anyio.create_task_group() as tg:
                        for n in range(10):
                            definition = tool(f"busy{index}_tool{n}", readOnly=True)
                            tg.start_soon(ok, pi, "RegisterTool", name, definition)
                assert len(host.registry.tools_of(name)) == 10
                await ok(pi, "UnregisterTool", name, f"busy{index}_tool0")

        async with anyio.create_task_group() as tg:
            for index in range(8):
                tg.start_soon(plugin, index)
        with anyio.fail_after(WAIT):
            await host.pi.wait_until(lambda: not any(p.startswith("Busy") for p in host.pi.peers))
        # 80 registrations, 8 removals, and each plugin's other 9 tools went with it when it left
        assert host.registry.version == version + 80 + 8 + 8
        assert [t for t in host.registry.all() if t.owner.startswith("Busy")] == []
        assert len(changes) >= 80 + 8 + 8
        assert changes == sorted(changes)


async def test_a5_f3_third_party_tools_are_offered_only_while_enabled_and_connected_even_when_denied(
    tmp_path: Path,
) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host):

        def offered() -> list[str]:
            return sorted(d.name for owner, d in host.offered.third_party() if owner == "TestPeer")

        changed = 0

        def count(plugin: str | None) -> None:
            nonlocal changed
            assert plugin in (None, "TestPeer")  # the change names the plugin it concerns
            changed += 1

        host.on_change(count)
        async with plugin_peer(endpoint, "TestPeer") as plugin:
            player = player_of(plugin.pi, tmp_path)
            await plugin.register("testpeer_look", readOnly=True)
            await plugin.register("testpeer_act", capabilities=["game_ui"])
            assert offered() == []  # undecided: not offered
            before = changed
            await player.enable("TestPeer")
            assert offered() == ["testpeer_act", "testpeer_look"] and changed > before
            await player.set_modes("TestPeer", testpeer_act="deny")
            assert offered() == ["testpeer_act", "testpeer_look"]  # the real host lists it; the call says why not
            await player.set_modes("TestPeer", testpeer_act="default")
            before = changed
        with anyio.fail_after(WAIT):  # the host forgets its tools as it hears that it left
            await host.pi.wait_until(lambda: "TestPeer" not in host.pi.peers)
        assert offered() == [] and host.registry.tools_of("TestPeer") == ()
        assert changed > before
        assert host.policies.state("TestPeer").value == "enabled"  # its decisions stay for its return


async def test_g8_an_abandoned_call_still_takes_the_plugins_answer_to_invoke(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_quick", readOnly=True)
        await player.enable("TestPeer")
        release = anyio.Event()

        async def quick(call_id: str, *_: str) -> str:
            await release.wait()
            return '{"result": {"answered": true}}'

        plugin.handlers["testpeer_quick"] = quick
        recorded = anyio.Event()
        host.audit.on_record(lambda entry: recorded.set() if entry.kind == "call" else None)
        async with broker.connect(endpoint, "TestApp") as app, anyio.create_task_group() as tg:
            tg.start_soon(player_of(app, tmp_path).call, "testpeer_quick")
            call_id, _, _ = await plugin.next_invoke()
            tg.cancel_scope.cancel()  # the app gives up while Invoke is still running
        assert await plugin.next_cancel() == call_id
        release.set()
        with anyio.fail_after(WAIT):
            await recorded.wait()
        assert host.calls.running == 0
        calls = [e for e in read_audit(tmp_path) if e["kind"] == "call"]
        assert [(c["details"]["callId"], c["details"]["ok"]) for c in calls] == [(call_id, True)]


BLOCKED = (
    "TestPeer did not pick up the call of testpeer_stuck within 30 seconds: its framework loop seems blocked. "
    "Nothing is known to have run; try again later."
)


async def test_p7_a_call_invoke_does_not_reply_to_within_30_seconds_ends_as_a_blocked_loop_and_is_cancelled(
    tmp_path: Path,
) -> None:
    # SPEC: P7 - measured on the host's clock: the test moves it, nobody waits 30 seconds
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_stuck", readOnly=True)
        await player.enable("TestPeer")
        release, replied = anyio.Event(), anyio.Event()

        async def stuck(*_: str) -> str:
            await release.wait()  # the framework loop is busy elsewhere
            replied.set()
            return '{"result": {"ran": "late"}}'

        plugin.handlers["testpeer_stuck"] = stuck
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_stuck")
            call_id, _, _ = await plugin.next_invoke()
            await player.advance_clock(29)
            assert not call.done.is_set()
            await player.advance_clock(2)
            assert await call.outcome() == CallReply(is_error=True, error=BLOCKED)
            assert await plugin.next_cancel() == call_id
            # SPEC: B6 - XIV MCP stopped waiting for that Invoke: the broker holds no call for it
            with anyio.fail_after(WAIT):
                while (await plugin.pi.broker_stats()).pending_calls:
                    await anyio.lowlevel.checkpoint()

            # Invoke's late reply is ignored: the call still waits for CompleteCall / FailCall
            release.set()
            with anyio.fail_after(WAIT):
                await replied.wait()
            await player.plugins()  # a round trip after the reply: the host has taken it by now
            assert host.calls.running == 1
            await player.advance_clock(119)
            await ok(plugin.pi, "CompleteCall", call_id, '{"ran": "after the cancel"}')
        assert host.calls.running == 0
        calls = [e for e in read_audit(tmp_path) if e["kind"] == "call"]
        assert [(c["details"]["callId"], c["details"]["ok"]) for c in calls] == [(call_id, True)]


async def test_p7_a_blocked_call_the_plugin_never_finishes_is_dropped_two_minutes_after_the_cancel(
    tmp_path: Path,
) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_stuck", readOnly=True)
        await player.enable("TestPeer")
        never = anyio.Event()

        async def stuck(*_: str) -> str:
            await never.wait()
            return '{"pending": true}'

        plugin.handlers["testpeer_stuck"] = stuck
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_stuck")
            call_id, _, _ = await plugin.next_invoke()
            await player.advance_clock(31)  # SPEC: P7
            assert (await call.outcome()).error == BLOCKED
            assert await plugin.next_cancel() == call_id
            await player.advance_clock(121)  # SPEC: G8 - two minutes after the Cancel
            error = await refused(plugin.pi, "FailCall", call_id, "Cancelled.")
            assert error == f"No pending call '{call_id}' (finished, cancelled or never pending)."
            assert host.calls.running == 0
            never.set()  # (Invoke's reply, if it ever comes, changes nothing)
        calls = [e for e in read_audit(tmp_path) if e["kind"] == "call"]
        assert [(c["details"]["callId"], c["details"]["error"]) for c in calls] == [(call_id, BLOCKED)]


async def test_p7_g8_a_call_whose_invoke_replied_pending_has_no_time_limit(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_long", readOnly=True)
        await player.enable("TestPeer")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_long")  # Invoke replies {"pending": true} at once
            call_id, _, _ = await plugin.next_invoke()
            await player.advance_clock(200)
            assert not call.done.is_set()
            await ok(plugin.pi, "ReportProgress", call_id, "still farming")
            await ok(plugin.pi, "CompleteCall", call_id, '{"kills": 31}')
            assert (await call.outcome()).result == {"kills": 31}


async def test_a3_an_approval_nobody_waits_for_any_more_is_withdrawn(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_act", capabilities=["game_ui"])
        await player.enable("TestPeer")
        withdrawn = anyio.Event()
        host.audit.on_record(lambda e: withdrawn.set() if e.details.get("reason") == "withdrawn" else None)
        async with broker.connect(endpoint, "TestApp") as app, anyio.create_task_group() as tg:
            tg.start_soon(player_of(app, tmp_path).call, "testpeer_act")
            approval = await player.wait_approval("testpeer_act")
            tg.cancel_scope.cancel()
        with anyio.fail_after(WAIT):
            await withdrawn.wait()
        assert await player.approvals() == []
        with pytest.raises(PlayerError) as refusal:
            await player.approve(approval.approval_id)
        assert refusal.value.message == f"Approval '{approval.approval_id}' was already denied (withdrawn)."
        assert host.calls.running == 0  # nothing ran


async def test_g7_an_invoke_reply_that_is_not_a_json_string_fails_the_call_with_a_message(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "Odd") as pi:
        provider = pi.get_ipc_provider("Odd.XivMcp.Invoke", params=(str, str, str), returns=dict)
        provider.register_func(lambda call_id, tool_name, args: {"result": 1})
        await ok(pi, "RegisterTool", "Odd", tool("odd_tool", readOnly=True))
        player = player_of(pi, tmp_path)
        await player.enable("Odd")
        assert await player.error("odd_tool") == (
            'Odd returned an invalid reply: Invoke returns a JSON string such as {"result": …}, not an object.'
        )
        provider.unregister_func()
        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: not pi.get_ipc_subscriber("Odd.XivMcp.Invoke").has_function())
        assert await player.error("odd_tool") == "Odd registered 'odd_tool' but doesn't provide Odd.XivMcp.Invoke."
        assert await refused(pi, "RequestApproval", "c1", '{"capability": "game_ui", "summary": "x"}') == (
            "No running call 'c1'. Approvals can only be requested during a call."
        )


async def test_a6_deciding_again_while_a_plugin_is_away_keeps_what_it_was_consented_to(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "TestPeer") as admin:
        player = player_of(admin, tmp_path)

        async def visit(enable: bool = False) -> list[str]:
            """Away comes, registers its two tools (as on every start), and leaves as a client does."""
            async with broker.connect(endpoint, "Away") as pi:
                states = [
                    (await ok(pi, "RegisterTool", "Away", tool(name, capabilities=["game_ui"])))["state"]
                    for name in ("away_a", "away_b")
                ]
                if enable:
                    await player.enable("Away")
                await ok(pi, "UnregisterAll", "Away")
            return states

        assert await visit(enable=True) == ["undecided", "undecided"]
        assert await visit() == ["enabled", "enabled"]
        assert (await player.enable("Away")).state == "enabled"  # once more, while away
        assert await visit() == ["enabled", "enabled"]  # not paused for a consent it already has
        assert (await player.keep_disabled("Away")).state == "kept_disabled"
        assert await visit() == ["kept_disabled", "kept_disabled"]
        assert (await player.plugin("Away")).awaits is None  # and not asked again
        assert host.policies.record("Away").consented.keys() == {"away_a", "away_b"}


async def test_g11_going_down_ends_each_running_call_once_with_a_message(tmp_path: Path) -> None:
    bus = Broker(BrokerConfig(endpoint="tcp://127.0.0.1:*")).start_in_thread()
    try:
        config = HostConfig(bus=bus.endpoint, data_dir=tmp_path, test_clock=True)
        async with broker.connect(bus.endpoint, "TestPeer") as pi:
            plugin = TestPlugin(pi)  # it ignores Disposing: the host must end the call itself
            outcomes: list[CallOutcome] = []
            try:
                async with anyio.create_task_group() as tg:
                    async with host_running(config) as host:
                        with anyio.fail_after(WAIT):
                            await pi.get_ipc_subscriber("XivMcp.RegisterTool").wait_ready()
                        await plugin.register("testpeer_farm", readOnly=True)
                        host.player.enable("TestPeer")

                        async def call() -> None:
                            outcomes.append(await host.call_tool("testpeer_farm", {}))

                        tg.start_soon(call)
                        await plugin.next_invoke()
            finally:
                plugin.close()
        assert outcomes == [CallOutcome(error="XIV MCP is unloading.")]
        calls = [e for e in read_audit(tmp_path) if e["kind"] == "call"]
        assert [c["details"]["error"] for c in calls] == ["XIV MCP is unloading."]
    finally:
        bus.close()
