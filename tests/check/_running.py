"""`xivmcp check` run by the tests as the process a CI job runs, through the shipped harness.

The check starts its own broker, game, host and plugin and stops them by pid; the test starts
the check itself in a session of its own, so that `Process.kill` ends the whole group by pid,
whatever the check left. Waits are for a line (an event) or the exit, each bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gates.testing import Process, xivmcp_argv

__all__ = ["CHECK_WITHIN", "ROOT", "CheckRun", "run_check_cli"]

ROOT: Final = Path(__file__).resolve().parents[2]
CHECK_WITHIN: Final = 120.0
"""Seconds one check may take: a few on an idle machine, far more on a loaded 2-core CI one."""


@dataclass(frozen=True, slots=True)
class CheckRun:
    code: int
    lines: list[str]
    """Its stdout, line by line."""
    stderr: str


def run_check_cli(tmp_path: Path, *args: str, last: str | None) -> CheckRun:
    """`xivmcp check ARGS` from the project's root; waits for its line starting with `last` (the
    summary, or the JSON report), then for its exit code. `last=None`: only for the exit."""
    stderr = tmp_path / "check.stderr.log"
    proc = Process(xivmcp_argv("check", *args), log=stderr, cwd=ROOT, new_session=True)
    try:
        if last is not None:
            proc.wait_line(last, CHECK_WITHIN)
        code = proc.popen.wait(CHECK_WITHIN)
    finally:
        proc.kill()
    return CheckRun(code, list(proc.lines), stderr.read_text(encoding="utf-8", errors="replace"))
