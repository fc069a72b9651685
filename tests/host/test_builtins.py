"""The real host's built-in tools the simulated game does not perform: known, accepted, failed honestly (F1).

The host runs in-process; the assistant's calls go through `Host.call_tool`, a plugin's through
its own peer on the real bus. A job's state is waited for on the host's job events.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import broker
from gates.contract import BUILTIN_TOOLS, JobState, JobStep, StepState
from gates.player import PlayerError

from ._system import inprocess_host, ok, player_of, plugin_peer, read_audit, refused, until

pytestmark = pytest.mark.asyncio

NOT_SIMULATED = "XIV MCP's {} is not simulated here: skip the step with update_job, or test the job up to it."


async def test_f1_a_job_naming_an_unsimulated_built_in_starts_and_that_step_fails_saying_so(tmp_path: Path) -> None:
    assert "catch_fish" in BUILTIN_TOOLS
    async with inprocess_host(tmp_path) as (_, host):
        host.player.set_module("autohook", "changes", "allow")  # its module lets it run: then it fails here
        steps = [JobStep(id="hi", tool="echo", args={"text": "hi"}), JobStep(id="fish", tool="catch_fish", args={})]
        job = host.jobs.start("Fish after saying hi", steps, None)
        job = await until(host, job.id, lambda j: j.state is JobState.PENDING)
    first, second = job.steps
    assert (first.state, second.state) == (StepState.DONE, StepState.FAILED)
    assert second.error == (
        "XIV MCP's catch_fish is not simulated here: skip the step with update_job, or test the job up to it."
    )


async def test_f1_w5_an_unsimulated_built_ins_step_is_judged_by_its_module_first_as_the_real_host_does(
    tmp_path: Path,
) -> None:
    """The real ToolGate decides a built-in before it runs it: turned off, deny (the tool's own
    setting, else its module's), then ask. Only a step its module lets run fails as not simulated."""
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "Tester") as pi:
        player = player_of(pi, tmp_path)

        async def fish() -> str | None:
            job = host.jobs.start("Fish", [JobStep(id="fish", tool="catch_fish", args={})], None)
            job = await until(host, job.id, lambda j: j.state is JobState.PENDING)
            return job.steps[0].error

        assert await fish() == (  # AutoHook's changes are denied until the player allows them
            "AutoHook is set to Deny for changes, so catch_fish can't run. The player can change it in "
            "/xivmcp → Modules."
        )
        await player.module("autohook", "changes", "ask")
        errors: list[str | None] = []

        async def run() -> None:
            errors.append(await fish())

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            approval = await player.wait_approval("catch_fish")
            assert approval.summary == "XIV MCP wants to run catch_fish (AutoHook, changes)"
            await player.decline(approval.approval_id)
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await player.approve((await player.wait_approval("catch_fish")).approval_id, session=True)
        assert errors == ["The player declined catch_fish.", NOT_SIMULATED.format("catch_fish")]
        assert await fish() == NOT_SIMULATED.format("catch_fish")  # approved for the session: not asked again
        await player.tool("catch_fish", "deny")
        assert await fish() == (
            "catch_fish is set to Deny in /xivmcp → Modules (AutoHook), so it can't run. The player can change "
            "it there."
        )
        await player.tool("catch_fish", "allow")
        assert await fish() == NOT_SIMULATED.format("catch_fish")
        await player.module("autohook", "off")
        assert await fish() == (
            "AutoHook is turned off in /xivmcp → Modules, so catch_fish isn't available. The player can turn it "
            "on there."
        )
    decisions = [e["details"] for e in read_audit(tmp_path) if e["kind"] == "decision" and e["tool"] == "catch_fish"]
    assert [d["reason"] for d in decisions] == ["module_denied", "declined", "tool_denied", "module_off"]
    ran = [e["details"] for e in read_audit(tmp_path) if e["kind"] == "call" and e["tool"] == "catch_fish"]
    failed = {"ok": False, "module": "autohook", "error": NOT_SIMULATED.format("catch_fish")}
    assert ran == [{**failed, "decision": d} for d in ("approved", "approved_session", "allowed")]


async def test_f1_j8_an_unsimulated_changing_step_waits_for_the_acting_step_of_another_job(tmp_path: Path) -> None:
    """In the game it changes something, so it waits its turn as any acting step does; then it fails here."""
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_act", capabilities=["game_ui"])
        await player.enable("TestPeer")
        await player.set_modes("TestPeer", game_ui="allow")
        await player.module("autohook", "changes", "allow")
        first = host.jobs.start("first", [JobStep(id="act", tool="testpeer_act", args={})], None)
        call_id, _, _ = await plugin.next_invoke()  # the first job's acting step runs
        second = host.jobs.start("fish", [JobStep(id="fish", tool="catch_fish", args={})], None)
        waiting = await until(host, second.id, lambda j: bool(j.message and j.message.startswith("Waits for job")))
        assert waiting.state is JobState.QUEUED
        await ok(plugin.pi, "CompleteCall", call_id, "1")
        await until(host, first.id, lambda j: j.state is JobState.COMPLETED)
        job = await until(host, second.id, lambda j: j.state is JobState.PENDING)
    assert job.steps[0].error == NOT_SIMULATED.format("catch_fish")


async def test_f1_calling_an_unsimulated_built_in_directly_is_refused_as_before_whatever_its_module_says(
    tmp_path: Path,
) -> None:
    """Outside a job, a call of a built-in the game does not perform stays a call of an unknown tool
    (it is not listed), allowed or denied: only a job step is judged by its module."""
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "Tester") as pi:
        player = player_of(pi, tmp_path)
        allowed = await host.call_tool("get_fates", {})  # game_data reading: allow
        with pytest.raises(PlayerError) as by_the_player:
            await player.call("get_fates")
        await player.module("game_data", "reading", "deny")
        denied = await host.call_tool("get_fates", {})
        through = await host.call_tool("call_tool", {"name": "get_fates"})
        offered = {t.definition.name for t in host.offered.all()}
    assert (
        allowed.error
        == denied.error
        == "There is no tool named 'get_fates'. List the tools (tools/list) and try again."
    )
    assert by_the_player.value.message.endswith(
        "No tool named 'get_fates'; `xivmcp plugins` lists every plugin's tools."
    )
    assert through.error == "There is no tool named 'get_fates'. Find tools with search_tools."
    assert "get_fates" not in offered and "get_position" in offered  # a denied module's own stay listed (F3)


async def test_f1_a_tool_no_host_has_is_still_refused_when_the_job_starts(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (_, host):
        outcome = await host.call_tool(
            "start_job", {"name": "Nothing", "steps": [{"tool": "catch_fishes", "args": {}}]}
        )
    assert outcome.error is not None and "there is no tool named 'catch_fishes'" in outcome.error


async def test_f1_a_plugins_job_may_not_hold_the_built_ins_the_real_host_keeps_from_plugins(tmp_path: Path) -> None:
    async with (
        inprocess_host(tmp_path, auto_enable=True) as (endpoint, _),
        plugin_peer(endpoint, "JobPlugin") as plugin,
    ):
        await plugin.register("jobplugin_look", readOnly=True)
        job = '{"name": "Snap", "steps": [{"tool": "take_screenshot"}, {"tool": "reload_plugin"}]}'
        error = await refused(plugin.pi, "StartJob", "JobPlugin", job)
    assert error == "These tools are not available to plugins: take_screenshot, reload_plugin."  # as named


async def test_f1_search_tools_finds_a_built_in_the_game_does_not_perform_marked_not_simulated(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (_, host):
        outcome = await host.call_tool("search_tools", {"query": "catch_fish"})
        offered = await host.call_tool("search_tools", {"query": "echo"})
    assert outcome.ok and outcome.result["items"] == [
        {
            "name": "catch_fish",
            "toolset": "core",
            "description": BUILTIN_TOOLS["catch_fish"].summary,
            "readOnly": False,
            "simulated": False,
        }
    ]
    assert offered.ok and [item["name"] for item in offered.result["items"]] == ["echo"]
    assert "simulated" not in offered.result["items"][0]


async def test_f1_a_plugin_may_take_a_simulator_only_name_and_the_assistant_reaches_its_tool(tmp_path: Path) -> None:
    async with (
        inprocess_host(tmp_path, auto_enable=True) as (endpoint, host),
        plugin_peer(endpoint, "EchoPlugin") as plugin,
    ):
        plugin.handlers["echo"] = lambda call_id, tool, args: _answer('{"result": "from the plugin"}')
        reply = await plugin.register("echo", readOnly=True)
        assert reply["name"] == "echo"
        offered = [(t.toolset, t.definition.name) for t in host.offered.all() if t.definition.name == "echo"]
        assert offered == [("EchoPlugin", "echo")]
        outcome = await host.call_tool("echo", {"text": "hi"})
        assert outcome.result == "from the plugin"
        await ok(plugin.pi, "UnregisterAll", "EchoPlugin")
        outcome = await host.call_tool("echo", {"text": "hi"})
        assert outcome.result == "hi"  # the simulator's own echo is back


async def _answer(reply: str) -> str:
    return reply


async def test_t6_f1_a_plugin_registering_a_real_built_in_over_the_bus_is_refused_with_the_real_message(
    tmp_path: Path,
) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "Snapper") as plugin:
        definition = '{"name": "take_screenshot", "description": "Mine.", "readOnly": true}'
        error = await refused(plugin.pi, "RegisterTool", "Snapper", definition)
    assert error == "'take_screenshot' is an XIV MCP tool; pick another name (prefix it with your plugin's name)."
    assert host.registry.tools_of("Snapper") == ()
