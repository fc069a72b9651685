"""The command line and the MCP endpoint (S5): `xivmcp up` on a taken port, `xivmcp connect`, `xivmcp token`."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

from gates.mcp import DEFAULT_HTTP_PORT
from gates.testing import free_endpoint, xivmcp_argv

ROOT = Path(__file__).resolve().parents[2]
RUN = 60.0
"""Seconds a command may take before the test gives up on it (a backstop, not a measure)."""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("XIVMCP_")}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`xivmcp ARGS` to its end; killed by pid, and the test failed, if it runs on."""
    proc = subprocess.Popen(
        xivmcp_argv(*args), cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = proc.communicate(timeout=RUN)
    except subprocess.TimeoutExpired:
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
