"""S4 from the shell: `xivmcp up` runs its bus with CURVE keys unless told `--no-curve`; it keeps
them in the data dir and names its public key in `bus.json` and `runtime.json`; this user's
commands and plugins join with no extra step, and one without the key is refused.

Real processes throughout: the system (`xivmcp up`: broker, game, host) and each command."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gates import testing

WAIT = 30.0
"""A backstop for each process; each one ends (or says ready) by itself."""


def _xivmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        testing.xivmcp_argv(*args), capture_output=True, text=True, timeout=WAIT, env=os.environ, check=False
    )


@contextmanager
def _up(bus: str, data_dir: Path, *options: str) -> Iterator[list[str]]:
    """`xivmcp up OPTIONS` on `bus` and `data_dir` until its host says it is ready; its lines so far.

    Its stderr goes to `up.log` beside the data dir (quoted if it fails to start); it leads a
    process group, so whatever it started is killed with it by pid."""
    argv = testing.xivmcp_argv("up", *options, "--no-mcp", "--bus", bus, "--data-dir", str(data_dir))
    proc = testing.Process(argv, log=data_dir.parent / f"{data_dir.name}-up.log", new_session=True)
    try:
        proc.wait_line("xivmcp host: ready", timeout=WAIT)
        yield list(proc.lines)
    finally:
        proc.stop(grace=WAIT)  # SIGINT, as Ctrl+C: `up` stops what it started; then kill -9 the group


@pytest.fixture
def curve_system(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`xivmcp up` (CURVE by default) on a free loopback port and a fresh data dir."""
    bus, data_dir = testing.free_endpoint(), tmp_path / "data"
    with _up(bus, data_dir):
        yield bus, data_dir


def test_s4_this_users_commands_join_a_curve_bus_with_no_extra_step(curve_system: tuple[str, Path]) -> None:
    bus, data_dir = curve_system
    runtime = json.loads((data_dir / "runtime.json").read_text())
    server = json.loads((data_dir / "bus-server.key").read_text())
    assert runtime["bus_key"] == server["public"]  # the public key only: the secret stays in its file
    noted = json.loads((data_dir / "bus.json").read_text())  # the broker's own note, before any host
    assert noted["bus"] == bus and noted["key"] == server["public"] and "secret" not in noted
    assert stat.S_IMODE((data_dir / "bus-server.key").stat().st_mode) == 0o600
    done = _xivmcp("gate", "list", "--data-dir", str(data_dir))  # found by the data dir alone
    assert done.returncode == 0, done.stderr
    assert "XivMcp." in done.stdout and "Game." in done.stdout


def test_s4_a_command_without_the_key_is_refused(curve_system: tuple[str, Path], tmp_path: Path) -> None:
    bus, _ = curve_system
    elsewhere = tmp_path / "another-user"
    elsewhere.mkdir(mode=0o700)
    done = _xivmcp("gate", "list", "--bus", bus, "--data-dir", str(elsewhere))
    assert done.returncode == 2 and "admits only processes holding its CURVE key" in done.stderr, done.stderr
    assert done.stdout == ""  # learned nothing: no gate, no peer
    done = _xivmcp("gate", "list", "--curve", "--bus", bus, "--data-dir", str(elsewhere))
    assert done.returncode == 2 and "holds none" in done.stderr, done.stderr


def test_s4_a_remote_plugin_joins_with_a_key_the_player_allowed(tmp_path: Path) -> None:
    port = testing.free_endpoint().rsplit(":", 1)[1]
    home, remote = tmp_path / "home", tmp_path / "remote"
    # 127.0.0.2: another address of this machine, reached as another machine's plugin would be.
    there = f"tcp://127.0.0.2:{port}"
    with _up(f"tcp://0.0.0.0:{port}", home) as said:
        hint = next(line for line in said if "xivmcp keys new" in line)
        server = hint.split("xivmcp keys new -- ", 1)[1].split("`", 1)[0]
        made = _xivmcp("keys", "new", "--data-dir", str(remote), "--", server)
        assert made.returncode == 0, made.stderr
        client = made.stdout.split("client public key: ", 1)[1].split()[0]
        assert "secret" not in made.stdout  # only the public key is printed, to be copied
        refused = _xivmcp("gate", "list", "--curve", "--bus", there, "--data-dir", str(remote))
        assert refused.returncode == 2 and refused.stdout == "", refused.stderr
        allowed = _xivmcp("keys", "allow", "--data-dir", str(home), "laptop", "--", client)
        assert allowed.returncode == 0, allowed.stderr
        joined = _xivmcp("gate", "list", "--curve", "--bus", there, "--data-dir", str(remote))
        assert joined.returncode == 0 and "XivMcp." in joined.stdout, joined.stderr


def test_s4_a_bus_beyond_loopback_is_refused_without_curve(tmp_path: Path) -> None:
    done = _xivmcp("broker", "--bus", "tcp://0.0.0.0:0", "--data-dir", str(tmp_path / "data"))
    assert done.returncode == 2 and "`xivmcp broker --curve`" in done.stderr, done.stderr
    done = _xivmcp("up", "--no-curve", "--no-mcp", "--bus", "tcp://0.0.0.0:0", "--data-dir", str(tmp_path / "up"))
    assert done.returncode == 2 and "without --no-curve" in done.stderr, done.stderr


def test_s4_xivmcp_up_no_curve_runs_a_plain_bus_any_local_process_joins(tmp_path: Path) -> None:
    bus, data_dir, elsewhere = testing.free_endpoint(), tmp_path / "data", tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    with _up(bus, data_dir, "--no-curve") as said:
        assert not any("CURVE" in line for line in said)
        assert json.loads((data_dir / "runtime.json").read_text()).get("bus_key") is None
        assert not (data_dir / "bus.json").exists() and not (data_dir / "bus-client.key").exists()
        done = _xivmcp("gate", "list", "--bus", bus, "--data-dir", str(elsewhere))  # no key anywhere
        assert done.returncode == 0 and "XivMcp." in done.stdout, done.stderr


@pytest.mark.parametrize(
    ("sample", "says", "option"),
    [
        ("myplugin", "MyPlugin: connected to", False),
        ("myplugin", "MyPlugin: connected to", True),
        ("raw_gates", "RawPlugin: connected to", True),
    ],
    ids=["kit-by-environment", "kit-by-data-dir", "raw-by-data-dir"],
)
def test_s4_a_plugin_of_this_user_joins_with_no_extra_step(
    curve_system: tuple[str, Path], sample: str, says: str, option: bool
) -> None:
    """A plugin finds the key where it finds the bus: the data dir of $XIVMCP_DATA_DIR, as a plugin
    started with no option does, or the one `--data-dir` names (whatever the default data dir holds)."""
    bus, data_dir = curve_system
    env = {**os.environ, "XIVMCP_DATA_DIR": str(data_dir)}
    env.pop("XIVMCP_BUS", None)
    if option:
        env["XIVMCP_DATA_DIR"] = str(data_dir.parent / "not-this-one")
    options = ["--data-dir", str(data_dir)] if option else []
    argv = [sys.executable, "-m", f"plugins_sample.{sample}", *options]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the plugin's first line, or nothing if it failed
        assert first.startswith(says) and bus in first, first
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
