"""Background jobs (G10, J1-J12, A7): steps one after another, pause, resume, cancel, never lost.

The host runs in-process on the manual clock; the plugin is the test's own peer on the real bus
(`TestPlugin`: Invoke answers pending until the test finishes the call). A job's state is waited
for on the host's job events, never by sleeping. The crash test kills a host process (-9).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from gates.contract import JobInfo, JobState
from gates.testing import Player

from ._system import WAIT, TestPlugin, XivMcpSystem, inprocess_host, ok, player_of, plugin_peer, refused, until

pytestmark = pytest.mark.asyncio


def state(wanted: JobState) -> Callable[[JobInfo], bool]:
    return lambda job: job.state is wanted


async def setup(plugin: TestPlugin, tmp_path: Path, *tools: tuple[str, list[str] | None]) -> Player:
    player = player_of(plugin.pi, tmp_path)
    for name, capabilities in tools:
        if capabilities is None:
            await plugin.register(name, readOnly=True)
        else:
            await plugin.register(name, capabilities=capabilities)
    await player.enable(plugin.name)
    await player.set_modes(plugin.name, game_ui="allow")
    return player


async def start(player: Player, name: str, *steps: dict[str, Any]) -> str:
    reply = await player.result("start_job", {"name": name, "steps": list(steps)})
    job_id: str = reply["started"]["id"]
    assert reply["poll"] == f"get_job id={job_id}"
    return job_id


async def test_j9_a_three_step_job_fills_a_placeholder_from_an_earlier_step(tmp_path: Path) -> None:
    # SPEC: J1, J2, J5, J9, G10, A7
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await setup(plugin, tmp_path, ("testpeer_farm", ["game_ui"]))
        job_id = await start(
            player,
            "Farm, then report",
            {"id": "farm", "tool": "testpeer_farm", "args": {"minutes": 1}},
            {"id": "report", "tool": "echo", "args": {"text": "Farmed {{farm.kills}} kills"}},
            {"tool": "wait", "args": {"seconds": 0}},
        )
        call_id, tool, args = await plugin.next_invoke()
        assert (tool, json.loads(args)) == ("testpeer_farm", {"minutes": 1})
        await ok(plugin.pi, "ReportProgress", call_id, "10 kills")
        await ok(plugin.pi, "CompleteCall", call_id, '{"kills": 31}')
        job = await until(host, job_id, state(JobState.COMPLETED))
        assert [(s.id, s.state.value, s.result) for s in job.steps] == [
            ("farm", "done", {"kills": 31}),
            ("report", "done", "Farmed 31 kills"),
            ("s1", "done", {"waited": 0.0}),
        ]
        view = (await player.result("get_job", {"id": "Farm, then report", "log_lines": 200}))["job"]
        assert any(line.endswith("farm: 10 kills") for line in view["log"])  # J5: progress in the log


async def test_j4_j7_pause_cancels_the_step_and_resume_runs_it_again_from_the_start(tmp_path: Path) -> None:
    # SPEC: J4, J7
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await setup(plugin, tmp_path, ("testpeer_farm", ["game_ui"]))
        job_id = await start(player, "farm", {"id": "farm", "tool": "testpeer_farm", "args": {"kills": 20}})
        first, _, args = await plugin.next_invoke()
        await player.result("pause_job", {"id": job_id})
        assert await plugin.next_cancel() == first
        await ok(plugin.pi, "FailCall", first, "Cancelled.")
        job = await until(host, job_id, state(JobState.PAUSED))
        assert job.steps[0].state.value == "interrupted"
        await player.result("resume_job", {"id": job_id})
        again, _, args_again = await plugin.next_invoke()
        assert again != first and args_again == args  # the same step, from the start, same arguments
        await ok(plugin.pi, "CompleteCall", again, '{"kills": 20}')
        job = await until(host, job_id, state(JobState.COMPLETED))
        assert job.steps[0].attempts == 2


async def test_j4_cancel_waits_two_minutes_for_a_plugin_that_ignores_it(tmp_path: Path) -> None:
    # SPEC: J4, G8
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await setup(plugin, tmp_path, ("testpeer_stubborn", ["game_ui"]))
        job_id = await start(player, "stubborn", {"tool": "testpeer_stubborn"}, {"tool": "echo", "args": {"text": "x"}})
        call_id, _, _ = await plugin.next_invoke()
        await player.result("cancel_job", {"id": job_id})
        assert await plugin.next_cancel() == call_id  # ignored: no FailCall comes
        await player.advance_clock(119)
        assert host.jobs.get(job_id).state is JobState.RUNNING
        await player.advance_clock(2)
        job = await until(host, job_id, state(JobState.CANCELLED))
        assert [s.state.value for s in job.steps] == ["interrupted", "skipped"]


async def test_j6_a_failed_step_makes_the_job_pending_until_retry_skip_append_or_replace(tmp_path: Path) -> None:
    # SPEC: J6, J10
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await setup(plugin, tmp_path, ("testpeer_try", ["game_ui"]))
        job_id = await start(player, "tries", {"id": "a", "tool": "testpeer_try"}, {"id": "b", "tool": "testpeer_try"})
        call_id, _, _ = await plugin.next_invoke()
        await ok(plugin.pi, "FailCall", call_id, "Bags full after 120 kills; 3 Iron Ore still missing.")
        job = await until(host, job_id, state(JobState.PENDING))
        assert job.message == (
            "Step a (testpeer_try) failed: Bags full after 120 kills; 3 Iron Ore still missing. - waiting for "
            "retry, skip, new steps or cancel (update_job)."
        )
        error = await player.error("resume_job", {"id": job_id})
        assert error == "The current step failed; use update_job with action retry or skip (or change the steps) first."
        await player.result("update_job", {"id": job_id, "action": "retry", "resume": True})
        call_id, _, _ = await plugin.next_invoke()  # a again
        await ok(plugin.pi, "FailCall", call_id, "Still full.")
        await until(host, job_id, state(JobState.PENDING))
        await player.result("update_job", {"id": job_id, "action": "skip"})
        assert host.jobs.get(job_id).state is JobState.PAUSED
        steps = [{"id": "c", "tool": "echo", "args": {"text": "c"}}]
        await player.result("update_job", {"id": job_id, "action": "replace_remaining", "steps": steps})
        more = [{"id": "d", "tool": "echo", "args": {"text": "d"}}]
        await player.result("update_job", {"id": job_id, "action": "append", "steps": more, "resume": True})
        job = await until(host, job_id, state(JobState.COMPLETED))
        assert [(s.id, s.state.value) for s in job.steps] == [("a", "skipped"), ("c", "done"), ("d", "done")]


async def test_j12_a_step_is_decided_like_a_direct_call_denied_or_asked(tmp_path: Path) -> None:
    # SPEC: J12, A3
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await setup(plugin, tmp_path, ("testpeer_buy", ["spend_gil"]))
        await player.set_modes("TestPeer", spend_gil="ask")
        job_id = await start(player, "buy", {"tool": "testpeer_buy"})
        approval = await player.wait_approval("testpeer_buy")  # the step waits for the player
        await player.approve(approval.approval_id)
        call_id, _, _ = await plugin.next_invoke()
        await ok(plugin.pi, "CompleteCall", call_id, "1")
        await until(host, job_id, state(JobState.COMPLETED))
        denied_id = await start(player, "buy again", {"tool": "testpeer_buy"})
        await player.set_modes("TestPeer", spend_gil="deny")
        # the step was decided when it started: it was asked; decline it to see the refusal path too
        approval = await player.wait_approval("testpeer_buy")
        await player.decline(approval.approval_id)
        job = await until(host, denied_id, state(JobState.PENDING))
        assert job.steps[0].error == "The player declined testpeer_buy (Spend gil)."
        assert "so it can't run" in await player.error("start_job", {"name": "x", "steps": [{"tool": "testpeer_buy"}]})


async def test_j8_one_acting_step_at_a_time_read_only_passes_and_a_second_job_waits(tmp_path: Path) -> None:
    # SPEC: J8
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await setup(plugin, tmp_path, ("testpeer_act", ["game_ui"]), ("testpeer_look", None))
        first = await start(player, "first", {"id": "act", "tool": "testpeer_act"})
        call_id, _, _ = await plugin.next_invoke()
        busy = await player.error("update_job", {"id": first, "action": "append", "steps": [{"tool": "echo"}]})
        assert busy == "A step of this job is running; pause_job first."
        error = await player.error("testpeer_act")
        assert error == "The background job 'first' is running a step; pause_job it first (reading tools still work)."
        look = anyio.Event()

        async def looked(*_: str) -> str:
            look.set()
            return '{"result": "seen"}'

        plugin.handlers["testpeer_look"] = looked
        assert await player.result("testpeer_look") == "seen"  # read-only: not blocked
        await plugin.next_invoke()  # (the look's own Invoke)
        second = await start(player, "second", {"tool": "testpeer_act"})
        job = await until(host, second, lambda j: bool(j.message and j.message.startswith("Waits for job 'first'")))
        assert job.state is JobState.QUEUED
        await ok(plugin.pi, "CompleteCall", call_id, "1")
        call_id, _, _ = await plugin.next_invoke()  # the second job's turn
        await ok(plugin.pi, "CompleteCall", call_id, "2")
        await until(host, second, state(JobState.COMPLETED))


async def test_a_step_whose_plugin_leaves_fails_with_the_unload_message_and_the_job_waits(tmp_path: Path) -> None:
    # SPEC: J6, B2
    async with inprocess_host(tmp_path) as (endpoint, host), broker_player(endpoint, tmp_path) as player:
        async with plugin_peer(endpoint, "TestPeer") as plugin:
            await setup(plugin, tmp_path, ("testpeer_farm", ["game_ui"]))
            job_id = await start(player, "farm", {"tool": "testpeer_farm"})
            await plugin.next_invoke()
        job = await until(host, job_id, state(JobState.PENDING))
        assert job.steps[0].error == "The TestPeer plugin was unloaded during the call."


async def test_g10_a_plugin_sees_and_controls_only_its_own_jobs_the_assistant_all(tmp_path: Path) -> None:
    # SPEC: G10, J12
    async with (
        inprocess_host(tmp_path) as (endpoint, host),
        plugin_peer(endpoint, "TestPeer") as plugin,
        plugin_peer(endpoint, "Other") as other,
    ):
        player = await setup(plugin, tmp_path, ("testpeer_look", None))
        document = json.dumps({"name": "mine", "steps": [{"tool": "wait", "args": {"seconds": 60}}]})
        job = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        assert (job["owner"], job["name"]) == ("TestPeer", "mine (TestPeer)")  # "{name} ({DisplayName})"
        [listed_job] = (await ok(plugin.pi, "ListJobs", "TestPeer"))["jobs"]
        assert (listed_job["id"], listed_job["steps"], listed_job["log"]) == (job["id"], [], [])  # B7: a summary
        assert (await ok(other.pi, "ListJobs", "Other"))["jobs"] == []
        for gate in ("GetJob", "PauseJob", "ResumeJob", "CancelJob"):
            assert await refused(other.pi, gate, job["id"]) == f"No job '{job['id']}' of yours."
        assert "a plugin can only act as itself" in await refused(other.pi, "StartJob", "TestPeer", document)
        listed = await player.result("list_jobs")
        assert [j["id"] for j in listed["items"]] == [job["id"]]  # the assistant sees every job
        await ok(plugin.pi, "CancelJob", job["id"])
        await until(host, job["id"], state(JobState.CANCELLED))


async def test_g10_start_job_only_while_the_player_lets_the_plugin_run_refused_in_the_real_hosts_words(
    tmp_path: Path,
) -> None:
    # SPEC: G10, F5 - XivMcp/Api/PluginApi.cs StartJob: owner, then the player's consent, then the document
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_look", readOnly=True)
        document = json.dumps({"name": "look", "steps": [{"tool": "testpeer_look"}]})
        not_enabled = "TestPeer can't start jobs: the player has not enabled it in /xivmcp → Third-party plugins"
        assert await refused(plugin.pi, "StartJob", "TestPeer", document) == not_enabled + "."
        assert await refused(plugin.pi, "StartJob", "TestPeer", "{") == not_enabled + "."  # before the document
        await player.enable("TestPeer")
        job = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        assert job["name"] == "look (TestPeer)"
        # kept (B7): the name is kept to 200 characters, cut in the plugin's part; steps that are not
        # objects are skipped, as the real host skips them
        long = json.dumps({"name": "n" * 300, "steps": [7, {"tool": "testpeer_look", "args": [1]}]})
        job = (await ok(plugin.pi, "StartJob", "TestPeer", long))["job"]
        assert job["name"] == "n" * 189 + " (TestPeer)" and len(job["name"]) == 200
        assert [(step["tool"], step["args"]) for step in job["steps"]] == [("testpeer_look", {})]

        async def start(job_json: str | None) -> str:
            return await refused(plugin.pi, "StartJob", "TestPeer", job_json)

        assert (await start("{")).startswith("Invalid JSON: ")
        assert await start("[]") == "The job must be a JSON object { name, steps }."
        assert await start('{"steps": [{"tool": "echo"}]}') == "The job needs a 'name'."
        # kept: not a string is refused as missing (the real host answers .NET's conversion error)
        assert await start('{"name": 7, "steps": [{"tool": "echo"}]}') == "The job needs a 'name'."
        assert await start('{"name": "x", "steps": []}') == "'steps' must be a non-empty array."
        assert await start('{"name": "x", "steps": {"tool": "echo"}}') == "'steps' must be a non-empty array."
        assert await start('{"name": "x", "steps": [{"args": {}}]}') == "Each step needs 'tool'."
        kept = [{"tool": "take_screenshot"}, {"tool": "reload_plugin"}, {"tool": "take_screenshot"}]
        assert await start(json.dumps({"name": "x", "steps": kept})) == (
            "These tools are not available to plugins: take_screenshot, reload_plugin."
        )
        await plugin.register("testpeer_more", readOnly=True)  # the registration grows: consent again
        assert await start(document) == (
            not_enabled + " (its registration changed and waits for the player's consent)."
        )
        host.policies.suspend("TestPeer", "testpeer_look: 1 gil spent. (not declared)")
        assert await start(document) == not_enabled + " (it is suspended)."


async def test_g10_job_control_gates_answer_ok_alone_and_a_plugin_pauses_with_its_reason(tmp_path: Path) -> None:
    # SPEC: G10, J4, F5 - XivMcp/Api/PluginApi.cs PauseJob / ResumeJob / CancelJob reply {} (+ ok)
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        await setup(plugin, tmp_path, ("testpeer_farm", ["game_ui"]))
        document = json.dumps({"name": "farm", "steps": [{"tool": "testpeer_farm"}]})
        job_id = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]["id"]
        first, _, _ = await plugin.next_invoke()
        assert await ok(plugin.pi, "PauseJob", job_id) == {"ok": True}
        assert await plugin.next_cancel() == first
        await ok(plugin.pi, "FailCall", first, "Cancelled.")
        job = await until(host, job_id, state(JobState.PAUSED))
        assert job.message == "Paused by a plugin."
        assert await ok(plugin.pi, "ResumeJob", job_id) == {"ok": True}
        again, _, _ = await plugin.next_invoke()
        assert await ok(plugin.pi, "CancelJob", job_id) == {"ok": True}
        assert await plugin.next_cancel() == again
        await ok(plugin.pi, "FailCall", again, "Cancelled.")
        await until(host, job_id, state(JobState.CANCELLED))
        # ListJobs answers the caller's own jobs, whatever it is passed (the real host ignores it)
        for argument in ("TestPeer", "Other", None):
            assert [j["id"] for j in (await ok(plugin.pi, "ListJobs", argument))["jobs"]] == [job_id]
        assert await refused(plugin.pi, "GetJob", "j9") == "No job 'j9' of yours."
        assert await refused(plugin.pi, "GetJob", None) == "No job '' of yours."


async def test_j11_a_host_killed_mid_job_brings_the_job_back_paused_with_its_log(fresh_system: XivMcpSystem) -> None:
    # SPEC: J11
    system = fresh_system
    async with plugin_peer(system.endpoint, "TestPeer") as plugin:
        player = await setup(plugin, system.data_dir, ("testpeer_farm", ["game_ui"]))
        job_id = await start(
            player,
            "long farm",
            {"id": "first", "tool": "echo", "args": {"text": "1"}},
            {"id": "farm", "tool": "testpeer_farm"},
        )
        await plugin.next_invoke()  # the second step runs: the first's outcome is on disk
        assert system.host is not None
        system.host.kill()
        with anyio.fail_after(WAIT):
            await plugin.pi.wait_peer_gone("XivMcp")
        await anyio.to_thread.run_sync(system.start_host)
        player = player_of(plugin.pi, system.data_dir)
        job = (await player.result("get_job", {"id": job_id, "log_lines": 200}))["job"]
        assert job["state"] == "paused"
        assert job["message"] == "Paused because the plugin was reloaded; resume_job to continue."
        first_step, farm_step = job["steps"]
        assert (first_step["state"], first_step["result"]) == ("done", "1")  # an outcome is durable
        # the farm step's start may not have reached the disk before the kill: either way it runs again
        assert farm_step["state"] in ("interrupted", "queued") and farm_step["result"] is None
        assert any("Started with 2 steps." in line for line in job["log"])


def broker_player(endpoint: str, data_dir: Path) -> Any:
    """A player of its own on the bus (the plugin's peer may leave during the test)."""
    from contextlib import asynccontextmanager

    import broker

    @asynccontextmanager
    async def connected() -> Any:
        async with broker.connect(endpoint, "ThePlayer") as pi:
            yield player_of(pi, data_dir)

    return connected()


async def test_the_sample_starts_farm_then_report_and_the_player_follows_it(tmp_path: Path) -> None:
    # SPEC: G10, J9
    with XivMcpSystem(tmp_path, "--test-clock", "--no-mcp", "--auto-enable") as system:
        system.start()
        system.start_game("--test-clock")  # what MyPlugin's farm fights in
        sample = system.start_plugin("plugins_sample.myplugin", "--job", "--seconds-per-kill", "0.01")
        started = await sample.expect("MyPlugin: started job ")
        job_id = started.split()[3]
        async with plugin_peer(system.endpoint, "TestPeer") as peer:
            player = player_of(peer.pi, system.data_dir)
            with anyio.fail_after(WAIT):
                while (job := (await player.result("get_job", {"id": job_id}))["job"])["state"] != "completed":
                    pass  # each look is a round trip to the host: a state, looked at until it holds
            assert [s["result"] for s in job["steps"]] == [{"kills": 3}, "Farmed 3 kills"]
        done = await anyio.run_process(system.cli("job", job_id), check=False)
        listing = await anyio.run_process(system.cli("jobs"), check=False)
    assert done.returncode == 0 and b"report: echo" in done.stdout and b"[done]" in done.stdout
    assert f"{job_id}: Farm, then report (My Plugin) [completed]".encode() in listing.stdout


async def test_b7_each_plugin_has_its_own_bound_of_jobs_and_bytes_and_names_resolve_within_the_owner(
    tmp_path: Path,
) -> None:
    async with (
        inprocess_host(tmp_path) as (endpoint, host),
        plugin_peer(endpoint, "TestPeer") as plugin,
        plugin_peer(endpoint, "Other") as other,
    ):
        player = await setup(plugin, tmp_path, ("testpeer_look", None))
        await other.register("other_look", readOnly=True)
        await player.enable("Other")
        host.jobs.room.max_jobs = 2  # the bounds are 1,000 jobs and 16 MiB: small here, to reach them
        waiting = [{"tool": "wait", "args": {"seconds": 60}}]
        document = json.dumps({"name": "mine", "steps": waiting})
        first = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        await ok(plugin.pi, "StartJob", "TestPeer", document)
        assert await refused(plugin.pi, "StartJob", "TestPeer", document) == (
            "TestPeer keeps 2 jobs (at most 2 each) and none of them has finished; cancel some first "
            "(CancelJob), or wait for them to finish."
        )
        assert (await ok(other.pi, "StartJob", "Other", document))["job"]["owner"] == "Other"  # not crowded out
        await ok(plugin.pi, "CancelJob", first["id"])
        await until(host, first["id"], state(JobState.CANCELLED))
        third = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]  # its oldest finished job made room
        assert first["id"] not in [j.id for j in host.jobs.listing()]
        # a job the assistant names like the plugin's own does not hide it from the plugin
        assistants = await start(player, "mine (TestPeer)", *waiting)
        assert (await ok(plugin.pi, "GetJob", "mine (TestPeer)"))["job"]["id"] == third["id"]
        assert await refused(other.pi, "GetJob", "mine (TestPeer)") == "No job 'mine (TestPeer)' of yours."
        host.jobs.room.max_jobs, host.jobs.room.max_bytes = 100, 1
        error = await refused(other.pi, "StartJob", "Other", document)
        assert error.startswith("Other keeps jobs whose documents take") and "MiB" in error
        for job in host.jobs.listing():
            if job.state is not JobState.CANCELLED:
                host.jobs.cancel(job)
        await until(host, assistants, state(JobState.CANCELLED))


# --------------------------------------------------------------------------- a plugin's job as the caller (F5)


async def test_f5_a_plugins_job_is_held_to_its_own_permissions_and_its_approvals_are_its_own(tmp_path: Path) -> None:
    # SPEC: F5 - the real host's ToolGate with a plugin caller (CallerTests): XIV MCP's own tool in a
    # plugin's job runs under the stricter of the module's and the plugin's modes; the plugin's
    # "always" is its session only; a plugin that may not do it is refused in the real host's words.
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_look", readOnly=True)
        await player.enable("TestPeer")  # its game_ui: Ask, the default
        await player.module("game_navigation", "changes", "allow")  # the assistant may place flags unasked
        document = json.dumps({"name": "flag", "steps": [{"tool": "set_map_flag", "args": {"x": 10, "y": 10}}]})

        def ended(job: JobInfo) -> bool:  # its step ran or was refused (a failed step leaves the job pending)
            return job.state not in (JobState.QUEUED, JobState.RUNNING)

        first = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        approval = await player.wait_approval("set_map_flag")  # the plugin's Ask is the stricter
        assert approval.summary.endswith(", asked by TestPeer)") and approval.caller == "TestPeer"
        assert approval.capabilities == ["game_ui", "move_character"]  # the window's, by BuiltInCapabilities
        await player.approve(approval.approval_id, always=True)
        await until(host, first["id"], ended)
        setting = [t.setting for m in await player.modules() for t in m.tools if t.name == "set_map_flag"]
        assert setting == ["group"]  # a plugin's "always" never changes the player's setting for the assistant
        second = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        await until(host, second["id"], ended)  # its session covers it: nothing asked
        assert await player.approvals() == []

        # What set_map_flag does, as the real host's BuiltInCapabilities maps its module: game windows
        # and moving the character; a plugin denied either may not run it
        await player.set_modes("TestPeer", game_ui="allow", move_character="deny")
        third = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        job = await until(host, third["id"], ended)
        assert job.steps[0].error == (
            "TestPeer may not use set_map_flag: what it does isn't allowed for TestPeer in /xivmcp → Third-party "
            "plugins (or the plugin isn't enabled there)."
        )


async def test_f5_a_plugins_job_may_use_another_plugins_tool_only_if_it_may_do_what_it_declares(tmp_path: Path) -> None:
    # SPEC: F5 - ToolGate.InvokeAsync: "{caller} may not use {tool}: what it does isn't allowed for {caller} ..."
    async with (
        inprocess_host(tmp_path) as (endpoint, host),
        plugin_peer(endpoint, "TestPeer") as plugin,
        plugin_peer(endpoint, "Other") as other,
    ):
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_look", readOnly=True)
        await other.register("other_buy", capabilities=["spend_gil"])
        for name in ("TestPeer", "Other"):
            await player.enable(name)
        await player.set_modes("Other", spend_gil="allow")
        await player.set_modes("TestPeer", spend_gil="deny")
        document = json.dumps({"name": "buy", "steps": [{"tool": "other_buy"}]})
        started = (await ok(plugin.pi, "StartJob", "TestPeer", document))["job"]
        job = await until(host, started["id"], lambda j: j.state not in (JobState.QUEUED, JobState.RUNNING))
        assert job.steps[0].error == (
            "TestPeer may not use other_buy: what it does isn't allowed for TestPeer in /xivmcp → Third-party plugins."
        )
