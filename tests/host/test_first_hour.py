"""The first hour of a new user, as real processes: a running system finds itself, the player sees
what waits, names are checked, and what is not running says so (rc 2) in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from gates.contract import REAL_HOST_READ, RuntimeInfo, write_runtime

from ._system import ROOT, WAIT, Process, XivMcpSystem, free_endpoint, new_system, xivmcp_argv

pytestmark = pytest.mark.asyncio

ENV = {k: v for k, v in os.environ.items() if k not in ("XIVMCP_BUS", "XIVMCP_HTTP", "XIVMCP_DATA_DIR")}
"""The environment of a user who set nothing: the commands must find the system themselves."""


async def run(*argv: str, code: int = 0, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command to its end (no --bus: it finds the system); check its exit code."""
    with anyio.fail_after(WAIT * 2):
        done = await anyio.run_process(list(argv), cwd=ROOT, check=False, env=env or ENV)
    result = subprocess.CompletedProcess(argv, done.returncode, done.stdout.decode(), done.stderr.decode())
    assert result.returncode == code, f"{argv[2:]} exited {result.returncode}: {result.stdout} {result.stderr}"
    return result


@pytest.fixture
def myplugin(system: XivMcpSystem) -> Iterator[Process]:
    # SPEC: B3 - started with --data-dir only: the sample finds the bus in the runtime file
    argv = [sys.executable, "-m", "plugins_sample.myplugin", "--data-dir", str(system.data_dir)]
    proc = system.spawn([*argv, "--seconds-per-kill", "0.01"], "myplugin")
    proc.wait_line("MyPlugin: registered myplugin_restock")
    yield proc
    proc.stop()


async def test_a_running_system_is_found_by_its_runtime_file(system: XivMcpSystem, myplugin: Process) -> None:
    data = ["--data-dir", str(system.data_dir)]
    runtime = json.loads((system.data_dir / "runtime.json").read_text())
    assert runtime["bus"] == system.endpoint and runtime["mcp"] is None  # this system runs --no-mcp
    assert system.host is not None and runtime["pid"] == system.host.pid
    listing = (await run(*xivmcp_argv("plugins", *data))).stdout
    assert "MyPlugin: undecided (connected;" in listing
    status = (await run(*xivmcp_argv("status", *data))).stdout
    assert f"bus        {system.endpoint}: answers" in status and "plugins    MyPlugin" in status
    assert f"host       running (pid {system.host.pid}" in status
    watch = await run(*xivmcp_argv("gate", "call", "XivMcp.ApiVersion", *data))
    assert watch.stdout == "2\n"


async def test_the_player_sees_what_a_call_waits_for_and_its_progress(system: XivMcpSystem, myplugin: Process) -> None:
    data = ["--data-dir", str(system.data_dir)]
    if system.game is None:
        await anyio.to_thread.run_sync(system.start_game, "--test-clock")  # what MyPlugin's farm fights in
    await run(*xivmcp_argv("enable", "MyPlugin", *data))
    await run(*xivmcp_argv("mode", "MyPlugin", "move_character", "allow", *data))
    await run(*xivmcp_argv("mode", "MyPlugin", "combat", "allow", *data))
    farm = await run(*xivmcp_argv("call", "myplugin_farm", '{"kills": 3}', *data))
    assert json.loads(farm.stdout) == {"kills": 3}
    assert [line for line in farm.stderr.splitlines() if line.startswith("progress: ")] == [
        "progress: 1 kills",
        "progress: 2 kills",
        "progress: 3 kills",
    ]
    quiet = await run(*xivmcp_argv("call", "myplugin_farm", '{"kills": 4}', "--quiet", *data))
    assert quiet.stderr == ""
    await run(*xivmcp_argv("mode", "MyPlugin", "myplugin_status", "ask", *data))
    call = Process(xivmcp_argv("call", "myplugin_status", *data), cwd=ROOT, env=ENV, log=system.logs / "call.log")
    try:
        approvals = json.loads((await run(*xivmcp_argv("approvals", "--wait", str(WAIT), "--json", *data))).stdout)
        [approval] = approvals["approvals"]
        await run(*xivmcp_argv("approve", approval["approvalId"], *data))
        assert await call.wait() == 0
    finally:
        call.kill()
    said = (system.logs / "call.log").read_text()
    assert "waiting for the player: MyPlugin wants to run myplugin_status" in said
    assert f"Answer with `xivmcp approve {approval['approvalId']}`" in said
    await run(*xivmcp_argv("mode", "MyPlugin", "myplugin_status", "default", *data))


async def test_names_are_checked_and_leave_no_phantom(system: XivMcpSystem, myplugin: Process) -> None:
    data = ["--data-dir", str(system.data_dir)]
    for argv in (("mode", "NoSuch", "spend_gil", "allow"), ("keep-disabled", "NoSuch"), ("lift", "NoSuch")):
        refused = await run(*xivmcp_argv(*argv, *data), code=1)
        assert (
            refused.stderr.startswith("No plugin named 'NoSuch'. Known: MyPlugin.") and refused.stderr.count("\n") == 1
        )
    typo = await run(*xivmcp_argv("enable", "Myplugin", *data), code=1)
    assert typo.stderr.strip() == "No plugin named 'Myplugin'. Known: MyPlugin. Did you mean 'MyPlugin'?"
    cards = json.loads((await run(*xivmcp_argv("plugins", "--json", *data))).stdout)["plugins"]
    assert [c["name"] for c in cards] == ["MyPlugin"]
    unknown = await run(*xivmcp_argv("call", "nosuch_tool", *data), code=1)
    assert unknown.stderr.strip() == "No tool named 'nosuch_tool'; `xivmcp plugins` lists every plugin's tools."


async def test_what_is_not_running_says_so_in_one_line_with_rc_2(tmp_path: Path) -> None:
    with new_system(tmp_path) as system:
        system.start_broker()  # a bus, but no host
        (system.data_dir).mkdir(parents=True)
        (system.data_dir / "player.key").write_text("k")
        bus = ["--bus", system.endpoint, "--data-dir", str(system.data_dir)]
        nothing = ["--bus", free_endpoint(), "--data-dir", str(tmp_path / "data")]
        runs = {
            "plugins": xivmcp_argv("plugins", *bus),
            "status": xivmcp_argv("status", *bus),
            "gate list": xivmcp_argv("gate", "list", *nothing),
            "sample": [sys.executable, "-m", "plugins_sample.raw_gates", *nothing[:2]],
        }
        done: dict[str, subprocess.CompletedProcess[str]] = {}

        async def run_one(name: str) -> None:
            done[name] = await run(*runs[name], code=2)

        async with anyio.create_task_group() as tg:  # each waits out its own timeout: at once, not in turn
            for name in runs:
                tg.start_soon(run_one, name)
    assert done["plugins"].stderr == (
        f"XIV MCP is not running on the bus {system.endpoint}: start it with `xivmcp up` (or `xivmcp host` "
        "next to a running `xivmcp broker`); `xivmcp status` shows what runs.\n"
    )
    assert "host       not running: start everything with `xivmcp up`" in done["status"].stdout
    gate_list = done["gate list"].stderr
    assert gate_list.count("\n") == 1 and gate_list.startswith("No broker answered at ")
    sample = done["sample"].stderr
    assert sample.count("\n") == 1 and "Traceback" not in sample


async def test_a_stale_runtime_file_is_not_believed(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    gone = await anyio.run_process([sys.executable, "-c", "import os; print(os.getpid())"])
    write_runtime(data_dir, RuntimeInfo(pid=int(gone.stdout), bus=free_endpoint(), mcp=None))
    status = await run(*xivmcp_argv("status", "--data-dir", str(data_dir)), code=2)
    assert "host       not running" in status.stdout
    assert "tcp://127.0.0.1:37520" in status.stdout  # the default bus, not the dead host's


async def test_one_data_dir_one_host_and_a_killed_hosts_lock_is_taken_over(fresh_system: XivMcpSystem) -> None:
    assert fresh_system.host is not None
    first = fresh_system.host.pid
    second = await run(*xivmcp_argv("host", *fresh_system.common, "--no-mcp"), code=2)
    assert second.stderr.startswith(f"Another XIV MCP host (pid {first}, bus {fresh_system.endpoint})")
    assert "one data dir, one host" in second.stderr and second.stderr.count("\n") == 1
    fresh_system.host.kill()  # its lock dies with it
    await anyio.to_thread.run_sync(fresh_system.start_host)
    runtime = json.loads((fresh_system.data_dir / "runtime.json").read_text())
    assert runtime["pid"] == fresh_system.host.pid != first


async def test_version() -> None:
    done = await run(*xivmcp_argv("--version"))
    lines = done.stdout.splitlines()
    assert lines[0] == "xivmcp 0.1.0 (XIV MCP API 2)"
    # the real host it follows, from the one table the ledger is checked against (issue 28)
    assert lines[1] == (
        "simulates XIV MCP 0.3.0.0 (IndividualGather/xiv-mcp), checked against these files at these commits:"
    )
    listed = {line.split()[0]: line.split()[1] for line in lines[2:-1]}
    assert listed == {file.path: file.commit for file in REAL_HOST_READ.files}
    assert listed["XivMcp/Api/PluginApi.cs"] == "9de90097"
