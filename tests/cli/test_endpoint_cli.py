"""The command line and the MCP endpoint (S5): `xivmcp up` on a taken port, `xivmcp connect`, `xivmcp token`."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import stat
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2

from gates.mcp import DEFAULT_HTTP_PORT
from gates.testing import XivMcpSystem, free_endpoint, xivmcp_argv

ROOT = Path(__file__).resolve().parents[2]
RUN = 45.0
"""Seconds a command may take before the test gives up on it (a backstop, not a measure); under
pytest-timeout's 60, so the test, not the timeout, kills what it started."""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("XIVMCP_")}


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`xivmcp ARGS` to its end (`env`: added to an environment without XIVMCP_*); killed by pid,
    and the test failed, if it runs on."""
    proc = subprocess.Popen(
        xivmcp_argv(*args),
        cwd=ROOT,
        env={**_env(), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=os.name == "posix",  # a group: `xivmcp up` that ran on is killed with its children
    )
    try:
        out, err = proc.communicate(timeout=RUN)
    except subprocess.TimeoutExpired:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"xivmcp {' '.join(args)} did not end: {out}{err}") from None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@contextlib.contextmanager
def holding(port: int) -> Iterator[None]:
    """Hold 127.0.0.1:PORT for the block (if something else holds it already, it is taken all the same)."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen(1)
        except OSError as exc:
            assert exc.errno == errno.EADDRINUSE
        yield


def test_s5_up_refuses_to_start_when_the_default_mcp_port_is_taken(tmp_path: Path) -> None:
    with holding(DEFAULT_HTTP_PORT):
        done = run("up", "--bus", free_endpoint(), "--data-dir", str(tmp_path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"127.0.0.1:{DEFAULT_HTTP_PORT} is in use" in lines[0]
    assert "--http 127.0.0.1:0" in lines[0] and "--no-mcp" in lines[0]
    assert "xivmcp up: bus" not in done.stdout  # nothing was started


def test_the_harness_never_takes_the_users_default_mcp_port(tmp_path: Path) -> None:
    # The user's own `xivmcp up` may hold 37521 while their tests run: a system the harness starts
    # listens on a free port instead (unless told --http or --no-mcp).
    with holding(DEFAULT_HTTP_PORT), XivMcpSystem(tmp_path) as system:
        system.start()
        assert system.host is not None and system.mcp_url.startswith("http://127.0.0.1:")
        assert f":{DEFAULT_HTTP_PORT}/" not in system.mcp_url


class Listener:
    """Something else on a port: it answers every request 401, as an endpoint wanting a token
    would, and keeps what it was sent."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(RUN)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.sock.accept()
                with conn:
                    conn.settimeout(RUN)
                    while b"\r\n\r\n" not in self.received:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        self.received += chunk
                    conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the thread
        self.sock.close()
        self._thread.join(RUN)


def test_s5_connect_never_sends_the_token_to_a_listener_its_data_dir_does_not_name(tmp_path: Path) -> None:
    token = "the-players-own-token"
    (tmp_path / "token").write_text(token)
    listener = Listener()
    try:
        done = run("connect", "claude-code", "--data-dir", str(tmp_path), "--http", f"127.0.0.1:{listener.port}")
    finally:
        listener.close()
    assert listener.received.startswith(b"POST /mcp ")  # asked, as a check, but tokenless
    assert token.encode() not in listener.received
    assert done.returncode == 1
    assert "so the token was not sent" in done.stdout and f"xivmcp up --data-dir {tmp_path}" in done.stdout
    assert "Keep the token out of project files" in done.stdout  # the snippet for .mcp.json warns


def test_s5_status_never_sends_the_token_to_the_listener_xivmcp_http_names(tmp_path: Path) -> None:
    token = "the-players-own-token"
    (tmp_path / "token").write_text(token)
    listener = Listener()
    try:
        http = {"XIVMCP_HTTP": f"127.0.0.1:{listener.port}"}
        done = run("status", "--bus", free_endpoint(), "--data-dir", str(tmp_path), env=http)
    finally:
        listener.close()
    assert listener.received.startswith(b"POST /mcp ") and token.encode() not in listener.received
    assert "so the token was not sent" in done.stdout


def test_s5_token_rotate_replaces_the_token_and_the_running_host_takes_it_at_once(tmp_path: Path) -> None:
    with XivMcpSystem(tmp_path, "--http", "127.0.0.1:0") as system:
        system.start()
        old = system.token
        assert _initialize(system.mcp_url, old) == 200
        done = run("token", "rotate", "--data-dir", str(system.data_dir))
        new = (system.data_dir / "token").read_text().strip()
        assert done.returncode == 0, done.stderr
        assert "the old one no longer opens the endpoint" in done.stdout and "xivmcp connect" in done.stdout
        assert new != old and stat.S_IMODE((system.data_dir / "token").stat().st_mode) == 0o600
        assert _initialize(system.mcp_url, old) == 401
        assert _initialize(system.mcp_url, new) == 200


def _initialize(url: str, token: str) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"}
    return httpx2.post(url, json=body, headers=headers, timeout=RUN).status_code
