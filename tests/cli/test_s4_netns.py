"""S4 across machines, as near as one machine comes: two network namespaces joined by a veth pair.

The player's machine (namespace A) runs `xivmcp up` on its veth address; the other machine
(namespace B) has no route to A's loopback and shares nothing of its network, so a plugin there
reaches the bus only as a plugin on another machine would: over the link, with a key pair made
there (`xivmcp keys new`) that the player admitted (`xivmcp keys allow`). The data dirs are
folders of the one file system, but each side reads only its own.

Creating namespaces takes root and `ip` (iproute2), as in CI; elsewhere these tests skip, and
`test_s4_a_remote_plugin_joins_with_a_key_the_player_allowed` (tests/cli/test_s4_curve_cli.py)
covers the same on a second loopback address, 127.0.0.2. Every process is stopped by pid and both
namespaces are deleted whatever the test did."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gates import testing

from .test_s4_curve_cli import WAIT


@dataclass(frozen=True)
class _Link:
    """Two namespaces joined by a veth pair: `player` (A) holds `address`, `other` (B) the peer."""

    player: str
    other: str
    address: str


@dataclass(frozen=True)
class _Remote:
    """`xivmcp up` on A's address: its bus, its data dir (D1), its public key, and a folder for B's."""

    link: _Link
    bus: str
    data_dir: Path
    server_key: str
    root: Path


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=WAIT, check=False)


def _must(*args: str) -> None:
    done = _ip(*args)
    assert done.returncode == 0, f"ip {' '.join(args)}: {done.stderr.strip()}"


def _in(namespace: str, *argv: str) -> list[str]:
    """The argv of `argv` run inside `namespace` (`ip netns exec` becomes it: the pid is the same)."""
    return ["ip", "netns", "exec", namespace, *argv]


def _xivmcp_in(namespace: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _in(namespace, *testing.xivmcp_argv(*args)),
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=os.environ,
        check=False,
    )


def _plugin_env() -> dict[str, str]:
    """This environment, with no bus or data dir of its own: the plugin is told both."""
    env = dict(os.environ)
    env.pop("XIVMCP_BUS", None)
    env.pop("XIVMCP_DATA_DIR", None)
    return env


@pytest.fixture(scope="module")
def link() -> Iterator[_Link]:
    """Namespaces A and B, named after this process, with lo up in both and a veth pair between them
    on a private /30 (10.213.x.y, from the pid): nothing is shared with the machine's own network."""
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("network namespaces need root (CI runs as root); 127.0.0.2 stands in for them elsewhere")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (Debian: apt-get install iproute2); 127.0.0.2 stands in for namespaces")
    tag = os.getpid()
    player, other = f"xivmcp-s4-{tag}-a", f"xivmcp-s4-{tag}-b"
    index = tag % 16384  # a /30 of 10.213.0.0/16: 64 of them to each third octet
    prefix, base = f"10.213.{index // 64}", (index % 64) * 4
    made: list[str] = []
    try:
        added = _ip("netns", "add", player)
        if added.returncode != 0:
            pytest.skip(f"`ip netns add` does not work here ({added.stderr.strip()}); 127.0.0.2 stands in for it")
        made.append(player)
        _must("netns", "add", other)
        made.append(other)
        _must("-n", player, "link", "add", "veth-a", "type", "veth", "peer", "name", "veth-b", "netns", other)
        _must("-n", player, "addr", "add", f"{prefix}.{base + 1}/30", "dev", "veth-a")
        _must("-n", other, "addr", "add", f"{prefix}.{base + 2}/30", "dev", "veth-b")
        for namespace, device in ((player, "veth-a"), (other, "veth-b")):
            _must("-n", namespace, "link", "set", "lo", "up")
            _must("-n", namespace, "link", "set", device, "up")
        yield _Link(player=player, other=other, address=f"{prefix}.{base + 1}")
    finally:
        for namespace in reversed(made):  # the veth pair goes with them
            _ip("netns", "delete", namespace)


@pytest.fixture(scope="module")
def remote(link: _Link, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Remote]:
    """`xivmcp up --no-mcp` in A, on A's veth address (CURVE by default: it must, beyond loopback),
    until its host is ready; its server key taken from the line that tells how another machine joins."""
    root = tmp_path_factory.mktemp("s4-netns")
    bus, data_dir = f"tcp://{link.address}:{testing.free_port()}", root / "player"
    argv = _in(link.player, *testing.xivmcp_argv("up", "--no-mcp", "--bus", bus, "--data-dir", str(data_dir)))
    up = testing.Process(argv, log=root / "logs" / "up.log", env=dict(os.environ), new_session=True)
    try:
        hint = up.wait_line("xivmcp up: only known CURVE keys join the bus", WAIT)
        server_key = hint.split("xivmcp keys new -- ", 1)[1].split("`", 1)[0]
        up.wait_line("xivmcp host: ready", WAIT)
        yield _Remote(link=link, bus=bus, data_dir=data_dir, server_key=server_key, root=root)
    finally:
        up.stop(grace=WAIT)  # SIGINT: the host, then the game and the broker; kill -9 of its group after


def _keys_in_b(remote: _Remote, label: str) -> tuple[Path, str]:
    """A data dir in B holding a pair made there for A's bus; its public key, as printed."""
    data_dir = remote.root / label
    made = _xivmcp_in(remote.link.other, "keys", "new", "--data-dir", str(data_dir), "--", remote.server_key)
    assert made.returncode == 0, made.stderr
    return data_dir, made.stdout.split("client public key: ", 1)[1].split()[0]


def _plugin_in_b(remote: _Remote, data_dir: Path, label: str) -> testing.Process:
    argv = [sys.executable, "-m", "plugins_sample.myplugin", "--bus", remote.bus, "--data-dir", str(data_dir)]
    log = remote.root / "logs" / f"{label}.log"
    return testing.Process(_in(remote.link.other, *argv), log=log, env=_plugin_env(), new_session=True)


def test_s4_a_plugin_in_another_network_namespace_joins_with_a_key_the_player_allowed(remote: _Remote) -> None:
    data_dir, client = _keys_in_b(remote, "laptop")
    allowed = _xivmcp_in(
        remote.link.player, "keys", "allow", "--data-dir", str(remote.data_dir), "laptop", "--", client
    )
    assert allowed.returncode == 0, allowed.stderr
    plugin = _plugin_in_b(remote, data_dir, "laptop")
    try:
        assert remote.bus in plugin.wait_line("MyPlugin: connected to", WAIT)
        plugin.wait_line("MyPlugin: registered", WAIT)
        listed = _xivmcp_in(remote.link.player, "plugins", "--data-dir", str(remote.data_dir))
        assert listed.returncode == 0, listed.stderr
        assert "MyPlugin" in listed.stdout, listed.stdout
    finally:
        plugin.stop()


def test_s4_a_plugin_in_another_network_namespace_with_a_key_never_allowed_is_refused(remote: _Remote) -> None:
    data_dir, _ = _keys_in_b(remote, "stranger")  # a pair made for this bus, never admitted
    plugin = _plugin_in_b(remote, data_dir, "stranger")
    try:
        with pytest.raises(AssertionError, match=r"ended \(exit [1-9]"):  # no line on stdout, then an error
            plugin.wait_line("", WAIT)
    finally:
        plugin.stop()
    said = (remote.root / "logs" / "stranger.log").read_text(errors="replace").strip().splitlines()
    assert len(said) == 1 and "did not admit this process's CURVE key" in said[0], said  # one line, not a traceback
