"""A command whose stdout is closed early (`xivmcp tools | head`) exits quietly, as `ls | head` does.

The pipe's reading end is closed before the command starts, so its first write finds nobody
reading: the same failure `head` causes once it has its lines, without waiting for anything.
"""

from __future__ import annotations

import os
import subprocess

from tests.host._system import ROOT, WAIT, XivMcpSystem, xivmcp_argv
from xivmcp.cli import EXIT_STDOUT_CLOSED


def _run_into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            xivmcp_argv(*args), cwd=ROOT, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=WAIT * 3
        )
    finally:
        os.close(write_end)


def test_tools_into_a_closed_pipe_exits_141_without_a_traceback(system: XivMcpSystem) -> None:
    done = _run_into_a_closed_pipe("tools", "--bus", system.endpoint, "--data-dir", str(system.data_dir))
    assert done.returncode == EXIT_STDOUT_CLOSED, done.stderr
    assert done.stderr == ""  # no traceback, no "Exception ignored" from the interpreter's last flush


def test_tools_json_into_a_closed_pipe_exits_141_without_a_traceback(system: XivMcpSystem) -> None:
    done = _run_into_a_closed_pipe("tools", "--json", "--bus", system.endpoint, "--data-dir", str(system.data_dir))
    assert done.returncode == EXIT_STDOUT_CLOSED, done.stderr
    assert done.stderr == ""
