"""Start-up: `xivmcp up` from spawn until the host is ready and MCP answers (issue 10/10).

    python -m bench.startup            # 5 starts of each: a table and the ratio against the target
    python -m bench.startup --quick    # 2 starts of each
    python -m bench.startup --json     # the same figures as one JSON object on stdout

Rows, each a fresh process tree on free loopback ports and a temporary data dir:

* python:  `python -c pass`, the interpreter alone (the floor nothing can beat);
* cli:     `python -m xivmcp --version`, the command line's own imports;
* up:      `python -m xivmcp up`, from spawn until it prints "xivmcp host: ready" (`ready_s`) and until
  an MCP `initialize` with the bearer token answers 200 (`mcp_s`), in the environment as it is;
* up, bytecode cached: the same with Python's bytecode cache on (`PYTHONDONTWRITEBYTECODE` unset,
  `PYTHONPYCACHEPREFIX` a temporary folder, filled by one start that is not measured): every
  start after a user's first, as Python writes bytecode by default. The target is for this row.
  The row above differs where the environment forbids bytecode and the tree holds none (the
  header says both): then each start compiles the project's modules again (an editable
  install ships no bytecode; a test run that may write it leaves it in the tree).

`up` is stopped after each start (SIGTERM; CTRL_BREAK_EVENT on Windows) and waited for. The target:
`mcp_s` median under 0.8 s on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ._mcp_client import initialize_request
from ._proc import ROOT, Child, ChildError, project_env
from ._report import machine

MODULE = "bench.startup"
TARGET_S = 0.8
TIMEOUT_S = 30.0
INITIALIZE = initialize_request("bench.startup", "0")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _project_bytecode() -> tuple[int, int]:
    """How many of the project's modules have bytecode in the tree, of how many."""
    import importlib.util

    sources = [p for package in ("broker", "game", "gates", "xivmcp") for p in (ROOT / package).rglob("*.py")]
    cached = sum(1 for p in sources if Path(importlib.util.cache_from_source(str(p))).exists())
    return cached, len(sources)


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment as it is (not unbuffered, as other benches' children are), with the project
    on PYTHONPATH and none of the variables that would point `xivmcp` at a system of the user's."""
    env = project_env()
    if extra is not None:  # the cached row: bytecode on, in a folder of its own
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(extra)
    for name in ("XIVMCP_BUS", "XIVMCP_HTTP", "XIVMCP_DATA_DIR"):
        env.pop(name, None)
    return env


def time_command(name: str, *command: str) -> float:
    """Seconds from spawn until `python *command` exited (it must exit 0)."""
    started = time.perf_counter()
    child = Child(MODULE, name, command=command, env=_env(), quiet=True)
    try:
        code = child.wait(TIMEOUT_S)
    finally:
        child.stop()
    elapsed = time.perf_counter() - started
    if code != 0:
        raise ChildError(f"{child!r} exited with code {code}")
    return elapsed


def _mcp_answers(url: str, token_file: Path) -> bool:
    if not token_file.exists():
        return False
    request = urllib.request.Request(
        url,
        data=INITIALIZE,
        method="POST",
        headers={
            "Authorization": f"Bearer {token_file.read_text(encoding='utf-8').strip()}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=2) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, ConnectionError, OSError):
        return False


def time_up(extra_env: dict[str, str] | None = None) -> dict[str, float]:
    """One `xivmcp up`: seconds until "host: ready" and until MCP answers; then it is stopped."""
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        data_dir = Path(tmp) / "data"
        bus, http = f"tcp://127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"
        command = ("-m", "xivmcp", "up", "--data-dir", str(data_dir), "--bus", bus, "--http", http)
        started = time.perf_counter()
        up = Child(MODULE, "up", command=command, env=_env(extra_env), quiet=True, own_group=True)
        url, token = f"http://{http}/mcp", data_dir / "token"
        try:
            deadline = started + TIMEOUT_S
            while not _mcp_answers(url, token):  # a benchmark may poll: no test waits on this
                if time.perf_counter() > deadline or up.proc.poll() is not None:
                    raise RuntimeError(f"xivmcp up did not serve MCP within {TIMEOUT_S:g} s (exit {up.proc.poll()})")
                time.sleep(0.002)
            mcp_s = time.perf_counter() - started
            try:  # stamped as the line arrived, so asking after MCP answered costs nothing
                ready_s = up.expect_arrival("xivmcp", "host: ready", TIMEOUT_S) - started
            except ChildError:
                ready_s = float("nan")
        finally:
            up.stop(TIMEOUT_S)  # SIGTERM to its process group (CTRL_BREAK_EVENT on Windows)
        return {"ready_s": ready_s, "mcp_s": mcp_s}


def run(starts: int) -> dict[str, Any]:
    python = [time_command("python", "-c", "pass") for _ in range(starts)]
    cli = [time_command("cli", "-m", "xivmcp", "--version") for _ in range(starts)]
    ups = [time_up() for _ in range(starts)]
    with tempfile.TemporaryDirectory(prefix="bench-startup-pyc-") as cache:
        cached_env = {"PYTHONPYCACHEPREFIX": cache}
        time_up(cached_env)  # fills the cache, as a user's first start does
        cached = [time_up(cached_env) for _ in range(starts)]
    mcp = statistics.median(u["mcp_s"] for u in cached)
    return {
        "machine": machine(),
        "bytecode_forbidden": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
        "project_modules_with_bytecode": _project_bytecode(),
        "starts": starts,
        "python_s": statistics.median(python),
        "cli_s": statistics.median(cli),
        "up_ready_s": statistics.median(u["ready_s"] for u in ups),
        "up_mcp_s": statistics.median(u["mcp_s"] for u in ups),
        "up_mcp_all_s": [round(u["mcp_s"], 3) for u in ups],
        "cached_ready_s": statistics.median(u["ready_s"] for u in cached),
        "cached_mcp_s": mcp,
        "cached_mcp_all_s": [round(u["mcp_s"], 3) for u in cached],
        "target_s": TARGET_S,
        "ratio_to_target": mcp / TARGET_S,
        "target_met": mcp <= TARGET_S,
    }


def print_table(figures: dict[str, Any]) -> None:
    forbidden = "PYTHONDONTWRITEBYTECODE is set here" if figures["bytecode_forbidden"] else "bytecode allowed here"
    cached, modules = figures["project_modules_with_bytecode"]
    forbidden += f", {cached} of the project's {modules} modules have bytecode in the tree"
    print(f"bench.startup on {figures['machine']}, {figures['starts']} starts each (medians); {forbidden}")
    print(f"  {'what':<46} {'seconds':>8}")
    print(f"  {'python -c pass (the floor)':<46} {figures['python_s']:>8.3f}")
    print(f"  {'xivmcp --version (the CLI imports)':<46} {figures['cli_s']:>8.3f}")
    print(f"  {'xivmcp up: host ready':<46} {figures['up_ready_s']:>8.3f}")
    print(f"  {'xivmcp up: MCP answers':<46} {figures['up_mcp_s']:>8.3f}   each: {figures['up_mcp_all_s']}")
    print(f"  {'xivmcp up, bytecode cached: host ready':<46} {figures['cached_ready_s']:>8.3f}")
    each = figures["cached_mcp_all_s"]
    print(f"  {'xivmcp up, bytecode cached: MCP answers':<46} {figures['cached_mcp_s']:>8.3f}   each: {each}")
    verdict = "met" if figures["target_met"] else "MISSED"
    print(
        f"  target: MCP answers within {TARGET_S:g} s (bytecode cached): {figures['cached_mcp_s']:.3f} s "
        f"= {figures['ratio_to_target']:.2f}x the target ({verdict})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 starts of each instead of 5")
    parser.add_argument("--starts", type=int, default=None, help="starts of each (default 5)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    figures = run(args.starts or (2 if args.quick else 5))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures)


if __name__ == "__main__":
    main()
