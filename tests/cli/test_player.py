"""Every player command of the `xivmcp` command line, run as the real subprocess, and `xivmcp up`.

The module shares one system (broker and host processes) with the RawPlugin sample; each command
is `python -m xivmcp COMMAND … --bus EP --data-dir DIR`, as a user types it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

import broker
from tests.host._system import (
    ROOT,
    WAIT,
    Process,
    XivMcpSystem,
    background,
    free_endpoint,
    new_system,
    read_audit,
    xivmcp_argv,
)

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def raw(system: XivMcpSystem) -> Iterator[Process]:
    proc = system.start_plugin("plugins_sample.raw_gates")
    proc.wait_line("RawPlugin: registered 3 tools")
    yield proc


async def cli(argv: list[str], expect_code: int = 0) -> str:
    """Run an `xivmcp` command to its end; check its exit code; return its stdout (stderr if it failed)."""
    with anyio.fail_after(WAIT * 2):
        done = await anyio.run_process(argv, cwd=ROOT, check=False)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == expect_code, f"{argv[2:]} exited {done.returncode}: {out} {err}"
    return out if expect_code == 0 else err


async def finished(process: anyio.abc.Process) -> tuple[int, str, str]:
    """Wait for a background command to end: (exit code, stdout, stderr)."""
    assert process.stdout is not None and process.stderr is not None
    with anyio.fail_after(WAIT * 2):
        out = b"".join([chunk async for chunk in process.stdout])
        err = b"".join([chunk async for chunk in process.stderr])
        code = await process.wait()
    return code, out.decode(), err.decode()


async def waiting_approval(system: XivMcpSystem) -> dict[str, Any]:
    """`xivmcp approvals --wait 10 --json`: the one approval that waits for the player."""
    reply = json.loads(await cli(system.cli("approvals", "--wait", str(WAIT), "--json")))
    assert reply["ok"] is True and len(reply["approvals"]) == 1, reply
    approval: dict[str, Any] = reply["approvals"][0]
    return approval


async def test_cli_plugins_enable_keep_disabled_and_consent(system: XivMcpSystem, raw: Process) -> None:
    said = await cli(system.cli("keep-disabled", "RawPlugin"))
    assert said == "RawPlugin is kept disabled: you are not asked again until it registers more.\n"
    reply = json.loads(await cli(system.cli("keep-disabled", "RawPlugin", "--json")))
    assert reply == {
        "ok": True,
        "plugin": "RawPlugin",
        "state": "kept_disabled",
        "changed": False,
        "message": "RawPlugin was already kept disabled; nothing to do.",
    }
    listing = await cli(system.cli("plugins"))
    assert "RawPlugin: kept_disabled (connected; registration " in listing
    assert "  tool rawplugin_echo: deny (read-only)" in listing
    assert "  tool rawplugin_slow: deny (game_ui)" in listing
    assert (await cli(system.cli("enable", "RawPlugin"))).startswith("RawPlugin is enabled: its tools may run")
    said = await cli(system.cli("consent", "RawPlugin"))
    assert said == "RawPlugin awaits no consent (it is enabled); nothing to do.\n"
    said = await cli(system.cli("lift", "RawPlugin"))
    assert said == "RawPlugin is not suspended (it is enabled); nothing to do.\n"
    card = json.loads(await cli(system.cli("plugins", "--json")))["plugins"][0]
    assert (card["name"], card["state"], card["connected"]) == ("RawPlugin", "enabled", True)
    assert "capability game_ui: ask" in await cli(system.cli("plugins"))
    error = await cli(system.cli("enable", "Nobody"), expect_code=1)
    assert error.strip() == "No plugin named 'Nobody'. Known: RawPlugin."
    stale = await cli(system.cli("enable", "RawPlugin", "--digest", "000000000000"), expect_code=1)
    assert stale.startswith("RawPlugin's registration changed since you looked") and "nothing was consented" in stale
    said = await cli(system.cli("enable", "RawPlugin", "--digest", card["digest"]))
    assert said == "RawPlugin was already enabled; nothing to do.\n"


async def test_cli_mode_call_and_audit(system: XivMcpSystem, raw: Process) -> None:
    await cli(system.cli("enable", "RawPlugin"))
    reply = json.loads(await cli(system.cli("mode", "RawPlugin", "game_ui", "allow", "--json")))
    assert (reply["target"], reply["mode"], reply["message"]) == (
        "game_ui",
        "allow",
        "RawPlugin: game_ui is now allow.",
    )
    assert json.loads(await cli(system.cli("call", "rawplugin_inline"))) == {"done": "inside Invoke"}
    assert json.loads(await cli(system.cli("call", "rawplugin_echo", '{"a": [1, null]}'))) == {"echo": {"a": [1, None]}}
    reply = json.loads(await cli(system.cli("call", "rawplugin_echo", "{}", "--json")))
    assert reply == {"ok": True, "result": {"echo": {}}}
    error = await cli(system.cli("call", "rawplugin_slow", '{"seconds": "x"}'), expect_code=1)
    assert error.strip() == "RawPlugin failed: ValueError: could not convert string to float: 'x'"
    assert "ARGS_JSON is not JSON" in await cli(system.cli("call", "rawplugin_echo", "{"), expect_code=1)
    await cli(system.cli("mode", "RawPlugin", "rawplugin_slow", "deny"))
    assert "set to Deny for RawPlugin" in await cli(system.cli("call", "rawplugin_slow"), expect_code=1)
    await cli(system.cli("mode", "RawPlugin", "rawplugin_slow", "default"))
    error = await cli(system.cli("mode", "RawPlugin", "fly", "allow"), expect_code=1)
    assert "'fly' is neither a capability" in error

    table = (await cli(system.cli("audit", "--plugin", "RawPlugin", "-n", "3"))).splitlines()
    assert len(table) == 3 and 'setting      RawPlugin  target="rawplugin_slow", mode="default"' in table[-1]
    entries = json.loads(await cli(system.cli("audit", "--plugin", "RawPlugin", "-n", "3", "--json")))["entries"]
    assert len(entries) == 3 and all(e["plugin"] == "RawPlugin" for e in entries)
    assert entries[-1]["kind"] == "setting" and entries[-1]["details"] == {
        "target": "rawplugin_slow",
        "mode": "default",
    }
    in_file = [e for e in read_audit(system.data_dir) if e.get("plugin") == "RawPlugin"][-3:]
    assert [(e["time"], e["kind"]) for e in entries] == [(e["time"], e["kind"]) for e in in_file]


async def test_cli_approvals_approve_and_decline(system: XivMcpSystem, raw: Process) -> None:
    await cli(system.cli("enable", "RawPlugin"))
    await cli(system.cli("mode", "RawPlugin", "game_ui", "ask"))
    await cli(system.cli("mode", "RawPlugin", "rawplugin_inline", "default"))
    async with background(system.cli("call", "rawplugin_inline")) as call:
        listing = await cli(system.cli("approvals", "--wait", str(WAIT)))
        approval_id, rest = listing.strip().split(": ", 1)
        assert rest == (
            "RawPlugin rawplugin_inline [game_ui] RawPlugin wants to run rawplugin_inline (Use game windows) "
            "(120.0 s left)"
        )
        said = await cli(system.cli("approve", approval_id))
        assert said == f"Approved {approval_id} (once): RawPlugin's rawplugin_inline goes on.\n"
        code, out, _ = await finished(call)
        assert (code, json.loads(out)) == (0, {"done": "inside Invoke"})
    assert (await cli(system.cli("approvals"))).strip() == "no approvals waiting"

    async with background(system.cli("call", "rawplugin_inline")) as call:
        approval = await waiting_approval(system)
        said = await cli(system.cli("decline", approval["approvalId"]))
        assert said == f"Declined {approval['approvalId']}: RawPlugin's rawplugin_inline is told no.\n"
        code, _, err = await finished(call)
        assert code == 1 and err.splitlines()[-1] == "The player declined rawplugin_inline (Use game windows)."
    error = await cli(system.cli("approve", approval["approvalId"]), expect_code=1)
    assert error.strip() == f"Approval '{approval['approvalId']}' was already denied (answered)."


async def test_cli_approve_session_and_always_are_remembered(system: XivMcpSystem, raw: Process) -> None:
    await cli(system.cli("enable", "RawPlugin"))
    await cli(system.cli("mode", "RawPlugin", "game_ui", "ask"))
    await cli(system.cli("mode", "RawPlugin", "rawplugin_slow", "default"))
    async with background(system.cli("call", "rawplugin_slow", '{"seconds": 0}')) as call:
        approval = await waiting_approval(system)
        await cli(system.cli("approve", "--session", approval["approvalId"]))
        assert (await finished(call))[0] == 0
    assert json.loads(await cli(system.cli("call", "rawplugin_slow", '{"seconds": 0}'))) == {"waited": 0}

    await cli(system.cli("mode", "RawPlugin", "rawplugin_inline", "default"))
    async with background(system.cli("call", "rawplugin_inline")) as call:
        approval = await waiting_approval(system)
        await cli(system.cli("approve", "--always", approval["approvalId"]))
        assert (await finished(call))[0] == 0
    assert "tool rawplugin_inline: allow (game_ui)" in await cli(system.cli("plugins"))
    assert json.loads(await cli(system.cli("call", "rawplugin_inline"))) == {"done": "inside Invoke"}


async def test_cli_advance_clock_lets_an_approval_window_time_out(system: XivMcpSystem, raw: Process) -> None:
    await cli(system.cli("enable", "RawPlugin"))
    await cli(system.cli("mode", "RawPlugin", "game_ui", "ask"))
    await cli(system.cli("mode", "RawPlugin", "rawplugin_inline", "default"))
    async with background(system.cli("call", "rawplugin_inline")) as call:
        approval = await waiting_approval(system)
        assert approval["secondsLeft"] == 120
        before = json.loads(await cli(system.cli("advance-clock", "60", "--json")))["now"]
        assert (await waiting_approval(system))["secondsLeft"] == 60
        moved = await cli(system.cli("advance-clock", "61"))
        assert moved.strip() == f"host clock at {before + 61:g} s; no game on the bus"
        code, _, err = await finished(call)
        assert code == 1 and err.splitlines()[-1] == "The player declined rawplugin_inline (Use game windows)."
    backwards = xivmcp_argv("advance-clock", "--bus", system.endpoint, "--data-dir", str(system.data_dir), "--", "-5")
    assert "A monotonic clock can't go back" in await cli(backwards, expect_code=1)


async def test_f2_cli_install_lists_and_uninstalls_a_plugin_that_is_not_running(
    system: XivMcpSystem, raw: Process
) -> None:
    said = await cli(system.cli("install", "OtherPlugin", "--name", "Other Plugin", "--version", "1.2.0"))
    assert said.splitlines()[0] == "Installed Other Plugin 1.2.0 (OtherPlugin)."
    listed = await cli(system.cli("installed"))
    assert "OtherPlugin: Other Plugin 1.2.0 [not loaded]" in listed.splitlines()
    assert "RawPlugin: RawPlugin version unknown [loaded]" in listed.splitlines()
    said = await cli(system.cli("uninstall", "OtherPlugin"))
    assert said.splitlines()[0] == "Uninstalled Other Plugin (OtherPlugin)."
    error = await cli(system.cli("install", "Other Plugin"), expect_code=1)
    assert error.strip() == "'Other Plugin' is not a plugin's InternalName: 1-64 letters, digits, '.', '_' or '-'."


async def test_cli_player_commands_need_the_player_key(system: XivMcpSystem, tmp_path: Path) -> None:
    argv = xivmcp_argv("plugins", "--bus", system.endpoint, "--data-dir", str(tmp_path))
    error = await cli(argv, expect_code=2)
    assert error.startswith(f"No player key at {tmp_path / 'player.key'}")


async def test_cli_up_auto_enable_enables_every_plugin(tmp_path: Path) -> None:
    endpoint, data_dir = free_endpoint(), tmp_path / "data"
    up = Process(
        xivmcp_argv("up", "--bus", endpoint, "--data-dir", str(data_dir), "--auto-enable", "--http", "127.0.0.1:0"),
        log=tmp_path / "up.log",
        new_session=True,  # its broker and host are in its session: the teardown kills them all
    )
    plugins: list[Process] = []
    try:
        await up.expect("xivmcp up: bus")  # its bus admits only the data dir's key (S4), made by now
        async with broker.connect(endpoint, "TestPeer", curve=broker.CurveClient.load(data_dir)) as pi:
            with anyio.fail_after(WAIT):
                await pi.get_ipc_subscriber("XivMcp.IsReady").wait_ready()
            for module in ("raw_gates", "myplugin"):
                argv = [
                    sys.executable,
                    "-m",
                    f"plugins_sample.{module}",
                    "--bus",
                    endpoint,
                    "--data-dir",
                    str(data_dir),
                ]
                plugins.append(Process(argv, log=tmp_path / f"{module}.log"))
            await plugins[0].expect("RawPlugin: registered 3 tools")
            await plugins[1].expect("MyPlugin: registered myplugin_restock (enabled)")
            listing = await cli(xivmcp_argv("plugins", "--bus", endpoint, "--data-dir", str(data_dir)))
            assert "RawPlugin: enabled (connected; " in listing and "MyPlugin: enabled (connected; " in listing
            assert "capability spend_gil: allow" in listing
            call = xivmcp_argv("call", "rawplugin_inline", "--bus", endpoint, "--data-dir", str(data_dir))
            assert json.loads(await cli(call)) == {"done": "inside Invoke"}  # allowed without asking
            clock = xivmcp_argv("advance-clock", "121", "--bus", endpoint, "--data-dir", str(data_dir))
            assert "--test-clock" in await cli(clock, expect_code=1)  # `up` runs on the real clock
        assert await anyio.to_thread.run_sync(up.terminate) == 0
        with pytest.raises(ProcessLookupError):
            os.killpg(up.pid, 0)  # nothing of its session is left
    finally:
        for proc in (*plugins, up):
            proc.kill()


async def test_cli_host_and_broker_run_as_separate_processes(tmp_path: Path) -> None:
    # what the `system` fixture does, once more by hand: broker, then host, each its own process
    system = new_system(tmp_path)
    try:
        system.start_broker()
        await anyio.to_thread.run_sync(system.start_host)
        assert system.host is not None and system.broker is not None
        assert (tmp_path / "data" / "player.key").exists()
        assert system.host.terminate() == 0
        assert system.broker.terminate() == 0
    finally:
        system.close()


async def test_cli_up_help_names_the_test_clock_and_auto_enable() -> None:
    usage = await cli(xivmcp_argv("up", "--help"))
    assert "--test-clock" in usage and "--auto-enable" in usage
