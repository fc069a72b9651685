"""The sample plugins as real processes on a real host process: calls, decisions, approvals, Cancel.

One system for the module: `xivmcp broker`, `xivmcp game --test-clock` (what MyPlugin acts on),
`xivmcp host --test-clock`, and the samples MyPlugin, RawPlugin and GrowingPlugin, all enabled
once. Each test sets the modes it relies on first, so the tests do not depend on each other's
order. The test's own peer is the player (the key from the data dir) and, where a test needs
one, a plugin of its own.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

import broker
from game import GameClient
from gates.player import AuditLine, Awaits, CallReply, PendingApproval
from gates.plugin import McpToolError, ToolDefinition, XivMcpClient
from gates.testing import Player

from ._system import (
    WAIT,
    Process,
    XivMcpSystem,
    ok,
    player_of,
    plugin_peer,
    read_audit,
    refused,
    run_in_thread,
    start_call,
)

pytestmark = pytest.mark.asyncio


@dataclass
class Samples:
    system: XivMcpSystem
    myplugin: Process
    raw: Process
    growing: Process


@pytest.fixture(scope="module")
def samples(system: XivMcpSystem) -> Iterator[Samples]:
    system.start_game("--test-clock")
    myplugin = system.start_plugin("plugins_sample.myplugin", "--seconds-per-kill", "1000")
    raw = system.start_plugin("plugins_sample.raw_gates")
    growing = system.start_plugin("plugins_sample.growing")
    myplugin.wait_line("MyPlugin: registered myplugin_restock (undecided)")
    raw.wait_line("RawPlugin: registered 3 tools")
    growing.wait_line("GrowingPlugin: registered growing_look (undecided)")

    async def enable_all() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            for name in ("MyPlugin", "RawPlugin", "GrowingPlugin"):
                assert (await player.enable(name)).state == "enabled"

    run_in_thread(enable_all)
    yield Samples(system, myplugin, raw, growing)


class Desk:
    """The test's own peer as the player, for one test."""

    def __init__(self, pi: broker.PluginInterface, samples: Samples) -> None:
        self.pi = pi
        self.samples = samples
        self.player = player_of(pi, samples.system.data_dir)
        self.game = GameClient(pi)

    async def target_the_aetheryte(self) -> None:
        """Give myplugin_follow someone to follow: Tuliyollal's aetheryte, near where the character stands."""
        await self.game.set_position(x=-20.0, z=12.0, territory=1185)
        await self.game.set_target("Tuliyollal")

    async def status(self) -> dict[str, Any]:
        result: dict[str, Any] = await self.player.result("myplugin_status")
        return result


async def audited_calls(player: Player, plugin: str, *call_ids: str) -> list[AuditLine]:
    """The audit log's lines for these calls of `plugin`, once every one is written.

    The host writes a call's line after reading what it did to the game; for a call whose caller
    gave up, that is after the plugin had its answer to FailCall / CompleteCall. Each look is a
    round trip to the host (the player's `audit`), repeated until the lines are there."""
    with anyio.fail_after(WAIT):
        while True:
            entries = await player.audit(plugin=plugin, limit=200)
            calls = [e for e in entries if e.kind == "call" and e.details.get("callId") in call_ids]
            if {c.details["callId"] for c in calls} == set(call_ids):
                return calls


@asynccontextmanager
async def desk(samples: Samples, name: str = "TestPeer") -> AsyncIterator[Desk]:
    """The test's own peer on the module's bus, as the player."""
    async with broker.connect(samples.system.endpoint, name) as pi:
        yield Desk(pi, samples)


# --------------------------------------------------------------------------- T3: arguments as sent


async def test_t3_arguments_reach_the_handler_as_sent_without_a_schema_check(samples: Samples) -> None:
    async with desk(samples) as d:
        sent = {"seconds": "not a number", "extra": [1, None, {"deep": True}], "x": 1e300}
        assert await d.player.result("rawplugin_echo", sent) == {"echo": sent}


async def test_t3_the_handler_refuses_off_map_coordinates_and_a_refused_call_changes_nothing(
    samples: Samples,
) -> None:
    async with desk(samples) as d:
        await d.player.set_modes("MyPlugin", myplugin_set_flag="default", game_ui="allow")
        before = (await d.status())["flag"]
        error = await d.player.error("myplugin_set_flag", {"x": 50, "y": 2, "zone": "Kozama'uka"})
        assert error == "(50, 2) is off the map: map coordinates run from 1 to 42."
        assert await d.player.error("myplugin_set_flag", {"y": 2}) == (
            "myplugin_set_flag needs 'x', a number. Its arguments are x, y (required) and zone, open_map, name "
            "(optional)."
        )
        assert (await d.status())["flag"] == before
        placed = await d.player.result("myplugin_set_flag", {"x": 21.4, "y": 18.2, "zone": "Kozama'uka"})
        assert placed == {"zone": "Kozama'uka", "x": 21.4, "y": 18.2, "mapOpened": True}
        assert (await d.status())["flag"] == {"zone": "Kozama'uka", "x": 21.4, "y": 18.2, "name": None}


# --------------------------------------------------------------------------- A3: allow, ask, deny


async def test_a3_t1_deny_refuses_the_call_before_the_plugin_runs(samples: Samples) -> None:
    async with desk(samples) as d:
        await d.player.set_modes("MyPlugin", myplugin_follow="default", myplugin_stop="default")
        await d.player.set_modes("MyPlugin", move_character="allow")
        await d.player.result("myplugin_stop")
        await d.target_the_aetheryte()
        await d.player.set_modes("MyPlugin", move_character="deny")
        error = await d.player.error("myplugin_follow")
        assert error == '"Move the character" is blocked for My Plugin in /xivmcp, so myplugin_follow can\'t run.'
        assert (await d.status())["following"] is None  # the handler never ran
        await d.player.set_modes("MyPlugin", move_character="allow")
        followed = await d.player.result("myplugin_follow")
        assert (followed["following"], followed["to"]) == ("Tuliyollal", {"x": -24.0, "z": 8.0})
        assert (await d.status())["following"] == "Tuliyollal"
        walk = await d.game.state()
        assert walk.movement is not None and walk.movement.by == "MyPlugin"  # the game's walk, as MyPlugin's
        assert await d.player.result("myplugin_stop") == {"stopped": True}
        assert not (await d.game.position()).moving


async def test_a3_ask_then_approve_decline_or_let_the_window_time_out(samples: Samples) -> None:
    async with desk(samples) as d, anyio.create_task_group() as tg:
        player = d.player
        await player.set_modes("MyPlugin", myplugin_follow="default", myplugin_stop="allow", move_character="ask")
        await player.result("myplugin_stop")
        await d.target_the_aetheryte()

        call = start_call(tg, player, "myplugin_follow")
        approval = await player.wait_approval("myplugin_follow")
        assert approval.plugin == "MyPlugin" and approval.capabilities == ["move_character"]
        assert approval.summary == "MyPlugin wants to run myplugin_follow (Move the character)"
        assert approval.seconds_left == 120
        await player.approve(approval.approval_id)
        assert (await call.outcome()).result["following"] == "Tuliyollal"
        await player.result("myplugin_stop")

        call = start_call(tg, player, "myplugin_follow")
        approval = await player.wait_approval("myplugin_follow")  # approve once: asked again
        await player.decline(approval.approval_id)
        assert (await call.outcome()).error == "The player declined myplugin_follow (Move the character)."
        assert (await d.status())["following"] is None

        call = start_call(tg, player, "myplugin_follow")
        approval = await player.wait_approval("myplugin_follow")
        await player.advance_clock(121)  # SPEC: G8 - the window declines after two minutes
        outcome = await call.outcome()
        assert outcome.error == "The player declined myplugin_follow (Move the character)."  # as the real host
        assert await player.approvals() == []
        assert (await d.status())["following"] is None


async def test_a3_approve_for_the_session_is_remembered_for_the_rest_of_the_session(samples: Samples) -> None:
    async with desk(samples) as d, anyio.create_task_group() as tg:
        player = d.player
        await player.set_modes("MyPlugin", myplugin_set_flag="default", game_ui="ask")
        call = start_call(tg, player, "myplugin_set_flag", {"x": 10, "y": 10})
        approval = await player.wait_approval("myplugin_set_flag")
        await player.approve(approval.approval_id, session=True)
        assert not (await call.outcome()).is_error
        # asked no more this session; other tools with the same capability still are
        assert (await player.result("myplugin_set_flag", {"x": 11, "y": 11}))["x"] == 11
        card = await player.plugin("MyPlugin")
        assert {t.name: t.mode for t in card.tools}["myplugin_set_flag"] == "ask"  # a session grant is no setting


async def test_a3_always_allow_sets_the_tool_to_allow(samples: Samples) -> None:
    async with desk(samples) as d, anyio.create_task_group() as tg:
        player = d.player
        await player.set_modes("MyPlugin", myplugin_stop="default", move_character="ask")
        call = start_call(tg, player, "myplugin_stop")
        approval = await player.wait_approval("myplugin_stop")
        await player.approve(approval.approval_id, always=True)
        assert not (await call.outcome()).is_error
        assert not (await player.call("myplugin_stop")).is_error  # not asked again
        card = await player.plugin("MyPlugin")
        assert {t.name: t.mode for t in card.tools}["myplugin_stop"] == "allow"
        assert {c.id: c.mode for c in card.capabilities}["move_character"] == "ask"


# --------------------------------------------------------------------------- G9: RequestApproval mid-call


async def restock(d: Desk, tg: Any, *, approve: bool) -> tuple[PendingApproval, CallReply]:
    """Call myplugin_restock, approve its call, approve (once) or decline its mid-call question;
    (that approval, the call's outcome)."""
    player = d.player
    await d.game.set_position(x=12.0, z=-6.0, territory=1185)  # at the Material Supplier, who sells
    await player.set_modes("MyPlugin", myplugin_restock="default", move_items="allow", spend_gil="ask")
    call = start_call(tg, player, "myplugin_restock", {"count": 10})
    before = await player.wait_approval("myplugin_restock")
    # the window before the call shows everything the tool does; the question during it, the price
    assert before.capabilities == ["spend_gil", "move_items"]
    assert before.kind == "before_call"
    await player.approve(before.approval_id)
    during = await player.wait_approval("myplugin_restock")  # asked again, now with the price
    assert during.approval_id != before.approval_id
    if approve:
        await player.approve(during.approval_id)
    else:
        await player.decline(during.approval_id)
    return during, await call.outcome()


async def test_g9_restock_asks_mid_call_with_the_price_and_buys_when_approved(samples: Samples) -> None:
    async with desk(samples) as d, anyio.create_task_group() as tg:
        gil = (await d.status())["gil"]
        during, outcome = await restock(d, tg, approve=True)
        assert during.summary == "Buy 10 Hi-Potion for 3,200 gil"
        assert during.capabilities == ["spend_gil"] and during.kind == "during_call"
        assert outcome.result == {"bought": 10, "item": "Hi-Potion", "gil": 3200, "gilLeft": gil - 3200}


async def test_g9_restock_declined_mid_call_buys_nothing(samples: Samples) -> None:
    async with desk(samples) as d, anyio.create_task_group() as tg:
        gil = (await d.status())["gil"]
        _, outcome = await restock(d, tg, approve=False)
        assert outcome.error == "The player declined the purchase; nothing was bought."
        assert (await d.status())["gil"] == gil


async def test_g9_a_capability_the_tool_did_not_declare_is_denied_and_flagged_in_the_audit_log(
    samples: Samples,
) -> None:
    system = samples.system
    async with plugin_peer(system.endpoint, "Sneaky") as plugin:
        player = player_of(plugin.pi, system.data_dir)
        await plugin.register("sneaky_open_map", capabilities=["game_ui"])
        await player.enable("Sneaky")
        await player.set_modes("Sneaky", game_ui="allow", spend_gil="allow")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "sneaky_open_map")
            call_id, _, _ = await plugin.next_invoke()
            request = json.dumps({"capability": "spend_gil", "summary": "Teleport for 999 gil"})
            assert (await ok(plugin.pi, "RequestApproval", call_id, request))["state"] == "denied"
            await ok(plugin.pi, "CompleteCall", call_id, '{"opened": true}')
            await call.outcome()
    flagged = [e for e in read_audit(system.data_dir) if e.get("plugin") == "Sneaky" and e.get("flagged")]
    assert [(e["kind"], e["tool"], e["details"]["capabilities"], e["details"]["state"]) for e in flagged] == [
        ("approval", "sneaky_open_map", ["spend_gil"], "denied")
    ]


# --------------------------------------------------------------------------- G7: pending calls


async def test_g7_rawplugin_inline_completes_its_call_from_inside_invoke(samples: Samples) -> None:
    async with desk(samples) as d:
        await d.player.set_modes("RawPlugin", game_ui="allow")
        assert await d.player.result("rawplugin_inline") == {"done": "inside Invoke"}


async def test_g7_rawplugin_slow_replies_pending_and_finishes_with_complete_call(samples: Samples) -> None:
    async with desk(samples) as d:
        await d.player.set_modes("RawPlugin", game_ui="allow")
        assert await d.player.result("rawplugin_slow", {"seconds": 0.05}) == {"waited": 0.05}
        line = await samples.raw.expect("RawPlugin: finished ")
        assert line.endswith(": accepted")


async def test_t4_an_exception_in_a_raw_plugins_invoke_reaches_the_caller_as_typename_message(
    samples: Samples,
) -> None:
    async with desk(samples) as d:
        await d.player.set_modes("RawPlugin", game_ui="allow")
        error = await d.player.error("rawplugin_slow", {"seconds": "soon"})
        assert error == "RawPlugin failed: ValueError: could not convert string to float: 'soon'"  # PluginApi.cs


async def test_t4_tool_errors_reach_the_caller_as_is_and_other_exceptions_as_typename_message(
    samples: Samples,
) -> None:
    system = samples.system

    def bell(args: dict[str, Any]) -> Any:
        raise McpToolError("Not at a summoning bell. Use navigate_to with destination summoning_bell first.")

    def broken(args: dict[str, Any]) -> Any:
        return {"x": args["missing"]}

    async def long_broken(call: Any) -> Any:
        raise ZeroDivisionError("division by zero")

    async with XivMcpClient("ClientPlugin", bus=system.endpoint) as client:
        registered = anyio.Event()
        client.on_registered(lambda tool, state: registered.set() if tool == "clientplugin_long" else None)
        client.add_tool(ToolDefinition(name="clientplugin_bell", description="Bell.", read_only=True), bell)
        client.add_tool(ToolDefinition(name="clientplugin_broken", description="Broken.", read_only=True), broken)
        client.add_long_running_tool(
            ToolDefinition(name="clientplugin_long", description="Long.", read_only=True), long_broken
        )
        with anyio.fail_after(WAIT):
            await registered.wait()
        async with desk(samples) as d:
            await d.player.enable("ClientPlugin")
            assert await d.player.error("clientplugin_bell") == (
                "Not at a summoning bell. Use navigate_to with destination summoning_bell first."
            )
            assert await d.player.error("clientplugin_broken") == "KeyError: 'missing'"
            assert await d.player.error("clientplugin_long") == "ZeroDivisionError: division by zero"


async def test_t7_a_tool_tied_to_an_optional_feature_refuses_while_it_is_off_without_re_consent(
    samples: Samples,
) -> None:
    system = samples.system
    feature = {"on": False}

    def auto_restock(args: dict[str, Any]) -> Any:
        if not feature["on"]:
            raise McpToolError("Turn on Auto-Restock in My Plugin's settings first.")
        return {"restocking": True}

    async with XivMcpClient("FeaturePlugin", bus=system.endpoint) as client:
        registered = anyio.Event()
        client.on_registered(lambda tool, state: registered.set())
        definition = ToolDefinition(
            name="featureplugin_auto_restock", description="Restocks.", capabilities=["game_ui"]
        )
        client.add_tool(definition, auto_restock)
        with anyio.fail_after(WAIT):
            await registered.wait()
        async with desk(samples) as d:
            await d.player.enable("FeaturePlugin")
            await d.player.set_modes("FeaturePlugin", game_ui="allow")
            assert await d.player.error("featureplugin_auto_restock") == (
                "Turn on Auto-Restock in My Plugin's settings first."
            )
            feature["on"] = True  # the player turns the feature on in the plugin: nothing to consent to
            assert await d.player.result("featureplugin_auto_restock") == {"restocking": True}
            assert (await d.player.plugin("FeaturePlugin")).state == "enabled"


# --------------------------------------------------------------------------- T7, A6: growth


async def test_t7_a6_growing_pauses_the_plugin_until_the_player_consents_again(samples: Samples) -> None:
    async with desk(samples) as d, anyio.create_task_group() as tg:
        player = d.player
        assert await player.result("growing_look") == {"grown": False}
        await d.pi.get_ipc_subscriber("GrowingPlugin.Grow").invoke_action()
        await samples.growing.expect("GrowingPlugin: registered growing_act (awaiting_consent)")
        card = await player.plugin("GrowingPlugin")
        assert card.state == "awaiting_consent"
        assert card.awaits == Awaits(new_tools=["growing_act"], new_capabilities=["game_ui"])
        error = await player.error("growing_look")  # all its tools pause, not only the new one
        assert error == (
            "GrowingPlugin changed its registration (new tools or capabilities) and waits for the player "
            "to consent again in /xivmcp → Third-party plugins."
        )
        assert "changed its registration" in await player.error("growing_act")
        assert (await player.consent("GrowingPlugin")).state == "enabled"
        assert (await player.plugin("GrowingPlugin")).awaits is None
        assert await player.result("growing_look") == {"grown": True}
        await player.set_modes("GrowingPlugin", game_ui="ask")
        call = start_call(tg, player, "growing_act")
        await player.approve((await player.wait_approval("growing_act")).approval_id)
        assert (await call.outcome()).result == {"clicked": True}


async def test_a6_removing_a_tool_or_registering_the_same_again_never_asks(samples: Samples) -> None:
    async with plugin_peer(samples.system.endpoint, "Shrinking") as plugin:
        player = player_of(plugin.pi, samples.system.data_dir)
        await plugin.register("shrinking_a", capabilities=["game_ui"])
        await plugin.register("shrinking_b", capabilities=["move_items"])
        await player.enable("Shrinking")
        assert (await ok(plugin.pi, "UnregisterTool", "Shrinking", "shrinking_b"))["removed"] is True
        assert (await plugin.register("shrinking_a", capabilities=["game_ui"]))["state"] == "enabled"
        assert (await plugin.register("shrinking_b", capabilities=["move_items"]))["state"] == "enabled"
        # SPEC: F5 - a capability another consented tool already had is nothing new: the real host
        # compares with the plugin's reviewed capabilities as a whole (RegistrationReview.Check)
        assert (await plugin.register("shrinking_a", capabilities=["game_ui", "move_items"]))["state"] == "enabled"
        # a capability none of the consented tools had is growth
        reply = await plugin.register("shrinking_a", capabilities=["game_ui", "chat_send"])
        assert (reply["state"], reply["awaitingConsent"]) == ("awaiting_consent", True)
        assert (await player.plugin("Shrinking")).awaits == Awaits(new_tools=[], new_capabilities=["chat_send"])


# --------------------------------------------------------------------------- G8: Cancel and the grace


async def test_g8_j3_the_caller_giving_up_on_a_direct_call_sends_cancel_to_the_plugin(samples: Samples) -> None:
    system = samples.system
    async with desk(samples) as d:
        await d.player.set_modes("MyPlugin", myplugin_farm="allow")
    samples.myplugin.skip_to_end()
    async with broker.connect(system.endpoint, "TestApp") as app, anyio.create_task_group() as tg:
        tg.start_soon(player_of(app, system.data_dir).call, "myplugin_farm", {"kills": 100_000})
        await samples.myplugin.expect("MyPlugin: farming (")
        tg.cancel_scope.cancel()  # the app gives up and goes away
    line = await samples.myplugin.expect("MyPlugin: stopped farming safely after")
    assert line.endswith(")")

    samples.raw.skip_to_end()
    async with desk(samples) as d:
        await d.player.set_modes("RawPlugin", game_ui="allow")
    async with broker.connect(system.endpoint, "TestApp") as app, anyio.create_task_group() as tg:
        tg.start_soon(player_of(app, system.data_dir).call, "rawplugin_slow", {"seconds": 3600})
        call_id = (await samples.raw.expect("RawPlugin: rawplugin_slow started (")).split("(")[1].rstrip(")")
        tg.cancel_scope.cancel()
    assert await samples.raw.expect("RawPlugin: cancelled") == f"RawPlugin: cancelled ({call_id})"
    assert await samples.raw.expect("RawPlugin: finished") == f"RawPlugin: finished {call_id}: accepted"
    async with desk(samples) as d:
        calls = await audited_calls(d.player, "RawPlugin", call_id)
    assert [(c.tool, c.details["ok"], c.details["error"]) for c in calls] == [("rawplugin_slow", False, "Cancelled.")]


async def test_g8_a_plugin_that_ignores_cancel_is_waited_for_two_minutes_then_no_longer(samples: Samples) -> None:
    system = samples.system
    async with plugin_peer(system.endpoint, "Stubborn") as plugin:
        player = player_of(plugin.pi, system.data_dir)
        await plugin.register("stubborn_work", readOnly=True)
        await player.enable("Stubborn")
        call_ids = []
        for _ in range(2):
            async with broker.connect(system.endpoint, "TestApp") as app, anyio.create_task_group() as tg:
                tg.start_soon(player_of(app, system.data_dir).call, "stubborn_work")
                call_id, _, _ = await plugin.next_invoke()
                tg.cancel_scope.cancel()
            assert await plugin.next_cancel() == call_id  # Cancel came; Stubborn ignores it
            call_ids.append(call_id)
        first, second = call_ids
        await player.advance_clock(119)
        await ok(plugin.pi, "CompleteCall", first, '{"late": true}')  # still waited for at 119 s
        await player.advance_clock(2)
        error = await refused(plugin.pi, "CompleteCall", second, '{"late": true}')
        assert error == f"No pending call '{second}' (finished, cancelled or never pending)."
        await audited_calls(player, "Stubborn", first, second)
    outcomes = {
        e["details"]["callId"]: e["details"].get("error", "ok")
        for e in read_audit(system.data_dir)
        if e["plugin"] == "Stubborn"
        if e["kind"] == "call"
    }
    assert outcomes == {first: "ok", second: "Cancelled."}


async def test_g8_the_host_sets_no_time_limit_on_a_pending_call(samples: Samples) -> None:
    system = samples.system
    async with plugin_peer(system.endpoint, "Patient") as plugin:
        player = player_of(plugin.pi, system.data_dir)
        await plugin.register("patient_work", readOnly=True)
        await player.enable("Patient")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "patient_work")
            call_id, _, _ = await plugin.next_invoke()
            await player.advance_clock(24 * 3600)
            await ok(plugin.pi, "ReportProgress", call_id, "still farming")
            await ok(plugin.pi, "CompleteCall", call_id, '{"kills": 9000}')
            assert (await call.outcome()).result == {"kills": 9000}


# --------------------------------------------------------------------------- the audit log


async def test_a4_the_audit_log_records_calls_decisions_and_approvals_one_json_object_a_line(
    samples: Samples,
) -> None:
    system = samples.system
    async with desk(samples) as d, anyio.create_task_group() as tg:
        player = d.player
        await player.set_modes("MyPlugin", myplugin_follow="default", move_character="deny")
        await player.error("myplugin_follow")
        await player.set_modes("MyPlugin", move_character="ask")
        call = start_call(tg, player, "myplugin_follow")
        await player.decline((await player.wait_approval("myplugin_follow")).approval_id)
        await call.outcome()
        await player.result("rawplugin_echo", {"a": 1})
    lines = (system.data_dir / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    assert all(isinstance(e, dict) and {"time", "kind"} <= set(e) for e in entries)
    kinds = {e["kind"] for e in entries}
    assert {"registration", "consent", "setting", "decision", "approval", "call"} <= kinds
    decisions = [e for e in entries if e["kind"] == "decision" and e["tool"] == "myplugin_follow"]
    assert decisions[-1]["details"]["decision"] == "deny"
    approvals = [e for e in entries if e["kind"] == "approval" and e["tool"] == "myplugin_follow"]
    assert [a["details"]["state"] for a in approvals[-2:]] == ["pending", "denied"]
    calls = [e for e in entries if e["kind"] == "call" and e["tool"] == "rawplugin_echo"]
    assert calls[-1]["plugin"] == "RawPlugin" and calls[-1]["details"]["ok"] is True


# --------------------------------------------------------------------------- G3, T6: one plugin cannot be another


async def test_g3_t6_a_peer_cannot_register_as_another_plugin_take_its_names_or_finish_its_calls(
    samples: Samples,
) -> None:
    system = samples.system
    async with desk(samples) as d, broker.connect(system.endpoint, "Spoofer") as spoofer:
        definition = json.dumps({"name": "spoofer_status", "description": "Mine.", "readOnly": True})
        error = await refused(spoofer, "RegisterTool", "MyPlugin", definition)
        assert error == "This call comes from Spoofer, not from MyPlugin: a plugin can only act as itself."
        taken = json.dumps({"name": "myplugin_status", "description": "Mine now.", "readOnly": True})
        error = await refused(spoofer, "RegisterTool", "Spoofer", taken)
        assert error.startswith("'myplugin_status' is already registered by another plugin")
        assert "a plugin can only act as itself" in await refused(spoofer, "UnregisterAll", "MyPlugin")
        assert len((await d.player.plugin("MyPlugin")).tools) == 6

        await d.player.set_modes("RawPlugin", game_ui="allow", rawplugin_slow="default")
        samples.raw.skip_to_end()
        async with broker.connect(system.endpoint, "TestApp") as app, anyio.create_task_group() as tg:
            tg.start_soon(player_of(app, system.data_dir).call, "rawplugin_slow", {"seconds": 3600})
            call_id = (await samples.raw.expect("RawPlugin: rawplugin_slow started (")).split("(")[1].rstrip(")")
            # refused as if there were no such call: the refusal does not say whose it is (S1)
            error = await refused(spoofer, "CompleteCall", call_id, '{"waited": "forever"}')
            assert error == f"No pending call '{call_id}' (finished, cancelled or never pending)."
            assert error == await refused(spoofer, "FailCall", call_id, "Cancelled.")
            tg.cancel_scope.cancel()  # the app gives up: RawPlugin, the owner, ends its call itself
        assert await samples.raw.expect("RawPlugin: finished") == f"RawPlugin: finished {call_id}: accepted"
