"""The endpoint on HTTP: bearer token, origins, Host header, sessions, `xivmcp connect`, `xivmcp up` (A1, A10)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from gates.testing import Process, XivMcpSystem, xivmcp_argv

from .xiv_mcp_support import ROOT, XivSystem, free_port

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def auth(xiv: XivSystem, token: str | None = None) -> dict[str, str]:
    return {**ACCEPT, "Authorization": f"Bearer {token or xiv.token}"}


async def post(xiv: XivSystem, body: Any, headers: dict[str, str]) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as http:
        return await http.post(xiv.url, json=body, headers=headers)


@pytest.mark.asyncio
async def test_requests_without_the_token_get_401(xiv: XivSystem) -> None:
    # SPEC: A1
    missing = await post(xiv, INITIALIZE, ACCEPT)
    wrong = await post(xiv, INITIALIZE, auth(xiv, "not-the-token"))
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    modern = await post(xiv, listing, {**ACCEPT, "MCP-Protocol-Version": "2026-07-28"})
    for response in (missing, wrong, modern):  # in the real host's words (McpServer.cs @b0e2678c)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.text == "Missing or invalid bearer token. See the XIV MCP settings window (/xivmcp)."


@pytest.mark.asyncio
async def test_a_foreign_origin_gets_403_and_a_local_one_is_served(xiv: XivSystem) -> None:
    # SPEC: A1, S5, F7
    port = xiv.url.split(":")[2].split("/")[0]
    foreign = await post(xiv, INITIALIZE, {**auth(xiv), "Origin": "https://evil.example"})
    lookalike = await post(xiv, INITIALIZE, {**auth(xiv), "Origin": f"http://127.0.0.1:{port}.evil.example"})
    unauthenticated = await post(xiv, INITIALIZE, {**ACCEPT, "Origin": "https://evil.example"})
    local = [
        await post(xiv, INITIALIZE, {**auth(xiv), "Origin": o})
        for o in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", "http://localhost:6274")
    ]
    assert foreign.status_code == lookalike.status_code == unauthenticated.status_code == 403
    assert foreign.text == "Forbidden origin"
    assert [r.status_code for r in local] == [200, 200, 200]


@pytest.mark.asyncio
async def test_a_foreign_host_header_is_refused(xiv: XivSystem) -> None:
    # SPEC: A1
    response = await post(xiv, INITIALIZE, {**auth(xiv), "Host": "evil.example:80"})
    assert response.status_code == 421


@pytest.mark.asyncio
async def test_a_2025_06_18_session_has_an_event_stream_and_ends_with_delete(xiv: XivSystem) -> None:
    # SPEC: A1
    async with httpx2.AsyncClient(timeout=10) as http:
        started = await http.post(xiv.url, json=INITIALIZE, headers=auth(xiv))
        assert started.status_code == 200 and started.headers["content-type"].startswith("application/json")
        assert started.json()["result"]["protocolVersion"] == "2025-06-18"
        session_id = started.headers["mcp-session-id"]
        session = {**auth(xiv), "Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-06-18"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(xiv.url, json=initialized, headers=session)).status_code == 202
        listed = await http.post(xiv.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session)
        assert "echo" in {t["name"] for t in listed.json()["result"]["tools"]}
        async with http.stream("GET", xiv.url, headers={**session, "Accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
        assert (await http.delete(xiv.url, headers=session)).status_code == 200
        gone = await http.post(xiv.url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=session)
        assert gone.status_code == 404 and gone.text == "Unknown session; initialize again."


def test_the_token_is_private_to_the_user(xiv: XivSystem) -> None:
    mode = stat.S_IMODE((xiv.data_dir / "token").stat().st_mode)
    assert mode == 0o600
    assert len(xiv.token) >= 32


def xivmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xivmcp", *args], cwd=ROOT, capture_output=True, text=True, timeout=30, check=False
    )


def test_host_refuses_a_remote_address_unless_asked(tmp_path: Path) -> None:
    # SPEC: A1
    done = xivmcp("host", "--http", "0.0.0.0:0", "--data-dir", str(tmp_path))
    no_auth = xivmcp("host", "--http", "0.0.0.0:0", "--allow-remote-http", "--no-auth-for-conformance-tests")
    assert done.returncode == 2 and "0.0.0.0 is not a loopback address" in done.stderr
    assert "--allow-remote-http" in done.stderr
    assert no_auth.returncode == 2 and "without the token is for tests on 127.0.0.1 only" in no_auth.stderr


def test_host_says_when_its_http_address_is_taken(tmp_path: Path) -> None:
    # SPEC: A1
    with XivMcpSystem(tmp_path) as system, socket.socket() as taken:
        system.start_broker()
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = xivmcp("host", *system.common, "--http", f"127.0.0.1:{port}")
    assert done.returncode == 2
    assert f"The MCP endpoint's address 127.0.0.1:{port} is in use" in done.stderr


def test_connect_shows_every_app_its_configuration_and_that_the_endpoint_answers(xiv: XivSystem) -> None:
    # SPEC: A10
    address = xiv.url.removeprefix("http://").removesuffix("/mcp")
    done = xivmcp("connect", "--data-dir", str(xiv.data_dir), "--http", address)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"URL: {xiv.url}" in out and f"Authorization: Bearer {xiv.token}" in out
    for title in ("Claude Desktop", "Claude Code", "Cursor", "VS Code", "Codex"):
        assert f"== {title}" in out
    assert f"claude mcp add --transport http xivmcp {xiv.url}" in out
    assert '"type": "http"' in out and "bearer_token_env_var" in out and "mcp-remote" in out
    assert f"XIV MCP answers at {xiv.url}" in out


def test_connect_says_when_nothing_answers(tmp_path: Path) -> None:
    # SPEC: A10
    done = xivmcp("connect", "cursor", "--data-dir", str(tmp_path), "--http", f"127.0.0.1:{free_port()}")
    assert done.returncode == 1
    assert "Nothing answers at" in done.stdout and "== Cursor" in done.stdout and "== Codex" not in done.stdout
    assert "No MCP token" in done.stderr


def test_connect_says_which_apps_are_already_set_up(tmp_path: Path) -> None:
    # SPEC: A10
    home, project = tmp_path / "home", tmp_path / "project"
    address = f"127.0.0.1:{free_port()}"
    url = f"http://{address}/mcp"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"xivmcp": {"url": url}}}))
    (project / ".vscode").mkdir(parents=True)
    (project / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"other": {"url": "http://elsewhere/mcp"}}}))
    env = {
        **os.environ,
        "HOME": str(home),
        "USERPROFILE": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "APPDATA": str(home / "AppData"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    argv = [sys.executable, "-m", "xivmcp", "connect", "--data-dir", str(tmp_path / "data"), "--http", address]
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=30, check=False)
    titles = [line for line in done.stdout.splitlines() if line.startswith("== ")]
    assert titles == [
        "== Claude Desktop",
        "== Claude Code",
        f"== Cursor (already set up in {home / '.cursor' / 'mcp.json'})",
        "== VS Code",  # its mcp.json names another server, not this endpoint
        "== Codex",
    ]


@pytest.fixture
def up(tmp_path: Path) -> Iterator[tuple[Process, str, Path]]:
    """`xivmcp up` on free ports; stopped with SIGTERM by pid (it stops its children), then SIGKILL."""
    port = free_port()
    bus = f"tcp://127.0.0.1:{free_port()}"
    http = f"127.0.0.1:{port}"
    argv = ["up", "--bus", bus, "--data-dir", str(tmp_path), "--http", http, "--no-auth-for-conformance-tests"]
    proc = Process(xivmcp_argv(*argv), cwd=ROOT, new_session=True)  # its broker and host share its session
    try:
        yield proc, f"http://127.0.0.1:{port}/mcp", tmp_path
    finally:
        with contextlib.suppress(AssertionError):
            proc.terminate(10)
        proc.kill()


@pytest.mark.asyncio
async def test_up_passes_http_through_and_conformance_mode_serves_without_token(
    up: tuple[Process, str, Path],
) -> None:
    proc, url, data_dir = up
    line = proc.wait_line("xivmcp host: MCP endpoint")  # the host's lines come on `up`'s stdout
    proc.wait_line("xivmcp host: ready")
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(url, json=INITIALIZE, headers=ACCEPT)
    assert url in line and "WITHOUT the bearer token (tests only)" in line
    assert response.status_code == 200
    assert response.json()["result"]["serverInfo"]["name"] == "XivMcp"
    assert (data_dir / "token").exists()


def test_b8_connect_talks_to_the_endpoint_directly_never_through_a_proxy(xiv: XivSystem) -> None:
    # SPEC: B8
    address = xiv.url.removeprefix("http://").removesuffix("/mcp")
    with socket.socket() as proxy:  # a "proxy" that would see the bearer token
        proxy.bind(("127.0.0.1", 0))
        proxy.listen(8)
        proxy_url = f"http://127.0.0.1:{proxy.getsockname()[1]}"
        env = {**os.environ, "HTTP_PROXY": proxy_url, "http_proxy": proxy_url, "NO_PROXY": "", "no_proxy": ""}
        argv = [sys.executable, "-m", "xivmcp", "connect", "cursor", "--data-dir", str(xiv.data_dir)]
        done = subprocess.run(
            [*argv, "--http", address], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=False
        )
        proxy.setblocking(False)
        with pytest.raises(BlockingIOError):
            proxy.accept()  # nobody connected to it
    assert done.returncode == 0, done.stderr
    assert f"XIV MCP answers at {xiv.url}" in done.stdout
