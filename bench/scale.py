"""Growth: how the host's cost grows from 1 to 100 plugin processes with 50 tools each (issue 10/10).

    python -m bench.scale              # 1, 10 and 100 plugins: a table and the ratios against the targets
    python -m bench.scale --quick      # 1 and 10 plugins, fewer repetitions
    python -m bench.scale --json       # the same figures as one JSON object on stdout

For each size, a fresh `xivmcp broker` and `xivmcp host --auto-enable --test-clock` (MCP on a free
port), then N plugin processes (`python -m bench.scale --role plugin`), each an `XivMcpClient`
with 50 read-only tools. Measured, with one MCP client (the official `mcp` package, 2025-11-25
era, its GET stream open for notifications):

* registered_s: from the first plugin's spawn until tools/list offers every plugin tool;
* tools/list (all pages), `search_tools` (one word, 20 results) and a `tools/call` of a plugin's
  tool: median latency over `--reps` calls each;
* list_changed_ms: a plugin registers one tool more (it is told on stdin); the time until the
  client hears `notifications/tools/list_changed` (median of 5);
* the host's and the broker's RSS (Linux: /proc/PID/status) once everything is registered.

Its processes may write Python bytecode (PYTHONDONTWRITEBYTECODE is dropped for them), as a
user's Python does, so 100 plugins do not each compile the project's modules again.

Targets (issue 10/10): tools/call and the change notification within 1.5x from 1 to 100 plugins;
memory linear in the number of tools (the table prints RSS per tool between sizes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from ._proc import Child, Children, cpu_seconds, memory_mb
from ._report import Column, machine, table
from ._system import start_broker, start_host, wait_for_token

MODULE = "bench.scale"
TOOLS_PER_PLUGIN = 50
TARGET_GROWTH = 1.5
TIMEOUT_S = 120.0


# --------------------------------------------------------------------------- the plugin role


def role_plugin(args: argparse.Namespace) -> None:
    """A plugin with `--tools` read-only tools; "grow" on stdin registers one more."""
    from gates.plugin import ToolDefinition, XivMcpClient

    async def main() -> None:
        async with XivMcpClient(args.name, bus=args.bus) as client:
            accepted: set[str] = set()
            wanted = args.tools

            def registered(tool: str, state: str) -> None:
                accepted.add(tool)
                if len(accepted) == wanted:
                    print(f"registered {len(accepted)}", flush=True)

            client.on_registered(registered)

            def add(index: int) -> None:
                name = f"{args.name.lower()}_t{index}"
                definition = ToolDefinition(
                    name=name, description=f"Echo number {index} of {args.name}.", read_only=True
                )
                client.add_tool(definition, lambda arguments: arguments)

            for index in range(args.tools):
                add(index)
            while True:
                line = await anyio.to_thread.run_sync(sys.stdin.readline)
                if not line:
                    return  # the parent closed our stdin: stop
                if line.strip() == "grow":
                    wanted += 1
                    add(wanted - 1)

    anyio.run(main)


# --------------------------------------------------------------------------- the parent


async def measure(url: str, token: str, plugins: list[Child], expected: int, reps: int) -> dict[str, float]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    changed = anyio.Event()
    counts = {"list_changed": 0}

    async def on_message(message: Any) -> None:
        nonlocal changed
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            counts["list_changed"] += 1
            changed.set()
            changed = anyio.Event()

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=600)) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy", message_handler=on_message) as client,
    ):

        async def all_tools() -> list[str]:
            names: list[str] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                names += [t.name for t in page.tools]
                cursor = page.next_cursor
                if cursor is None:
                    return names

        async def timed(work: Any) -> float:
            started = time.perf_counter()
            await work()
            return time.perf_counter() - started

        with anyio.fail_after(TIMEOUT_S):
            while sum(1 for n in await all_tools() if "_t" in n) < expected:
                pass  # a benchmark may look until a state holds
        offered_at = time.perf_counter()
        listing = [await timed(all_tools) for _ in range(reps)]
        search = [
            await timed(lambda: client.call_tool("search_tools", {"query": "t7", "limit": 20})) for _ in range(reps)
        ]
        tool = f"{plugin_name(0).lower()}_t0"
        calls = [await timed(lambda: client.call_tool(tool, {"n": 1})) for _ in range(reps * 5)]
        notified = []
        for _ in range(5):
            waiting = changed
            started = time.perf_counter()
            plugins[0].send("grow")
            with anyio.fail_after(60):
                await waiting.wait()
            notified.append(time.perf_counter() - started)
        return {
            "offered_at": offered_at,
            "tools_list_ms": statistics.median(listing) * 1000,
            "search_tools_ms": statistics.median(search) * 1000,
            "tools_call_ms": statistics.median(calls) * 1000,
            "list_changed_ms": statistics.median(notified) * 1000,
        }


def plugin_name(index: int) -> str:
    return f"Scale{index:03d}"


def run_size(size: int, reps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp, Children(MODULE, stop_timeout=10.0) as children:
        data = Path(tmp) / "data"
        from gates.testing import free_endpoint

        broker, bus = start_broker(children, TIMEOUT_S, "--data-dir", str(data), bus=free_endpoint(), quiet=True)
        host, url = start_host(children, bus, data, TIMEOUT_S, "--test-clock", quiet=True)
        token = wait_for_token(data, TIMEOUT_S)
        host_cpu = cpu_seconds(host.pid)
        started = time.perf_counter()
        plugins = [
            children.start(
                "plugin", "--name", plugin_name(i), "--bus", bus, "--tools", str(TOOLS_PER_PLUGIN), quiet=True
            )
            for i in range(size)
        ]
        for plugin in plugins:
            plugin.expect("registered", TIMEOUT_S)
        host_cpu = cpu_seconds(host.pid) - host_cpu
        plugins_cpu = sum(cpu_seconds(plugin.pid) for plugin in plugins)
        figures = anyio.run(measure, url, token, plugins, size * TOOLS_PER_PLUGIN, reps)
        figures["registered_s"] = figures.pop("offered_at") - started
        figures["host_cpu_registering_s"] = host_cpu  # what the host spent while they registered
        figures["plugins_cpu_s"] = plugins_cpu  # what the plugin processes spent (start-up, imports, ...)
        figures["host_rss_mb"] = memory_mb(host.pid).resident_mb or float("nan")
        figures["broker_rss_mb"] = memory_mb(broker.pid).resident_mb or float("nan")
        return {"plugins": size, "tools": size * TOOLS_PER_PLUGIN, **figures}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    first, last = rows[0], rows[-1]
    growth = {key: last[key] / first[key] for key in ("tools_call_ms", "list_changed_ms") if first[key] and last[key]}
    pairs = zip(rows, rows[1:], strict=False)
    per_tool = [(b["host_rss_mb"] - a["host_rss_mb"]) * 1024 / (b["tools"] - a["tools"]) for a, b in pairs]
    return {
        "machine": machine(),
        "rows": rows,
        "growth": growth,
        "growth_target": TARGET_GROWTH,
        "growth_met": {key: ratio <= TARGET_GROWTH for key, ratio in growth.items()},
        "host_kb_per_tool": per_tool,
    }


COLUMNS = (
    ("plugins", Column("plugins", 7)),
    ("tools", Column("tools", 6, gap=" ")),
    ("registered_s", Column("registered s", 12, ".2f", gap=" ")),
    ("tools_list_ms", Column("tools/list ms", 13, ".1f", gap=" ")),
    ("search_tools_ms", Column("search ms", 9, ".2f", gap=" ")),
    ("tools_call_ms", Column("call ms", 8, ".2f", gap=" ")),
    ("list_changed_ms", Column("list_changed ms", 15, ".1f", gap=" ")),
    ("host_rss_mb", Column("host MB", 8, ".1f", gap=" ")),
    ("broker_rss_mb", Column("broker MB", 9, ".1f", gap=" ")),
)
"""The table: each row's figure under its column."""


def render(summary: dict[str, Any]) -> str:
    out = [f"bench.scale on {summary['machine']} ({TOOLS_PER_PLUGIN} tools per plugin process)"]
    out.extend(
        table([column for _, column in COLUMNS], [[r[key] for key, _ in COLUMNS] for r in summary["rows"]], indent="  ")
    )
    first, last = summary["rows"][0]["plugins"], summary["rows"][-1]["plugins"]
    for key, ratio in summary["growth"].items():
        verdict = "met" if summary["growth_met"][key] else "MISSED"
        out.append(f"  {key} from {first} to {last} plugins: {ratio:.2f}x (target <= {TARGET_GROWTH}x: {verdict})")
    cpu = ", ".join(
        f"{r['plugins']}: host {r['host_cpu_registering_s']:.2f} s, plugins {r['plugins_cpu_s']:.2f} s"
        for r in summary["rows"]
    )
    out.append(f"  CPU until every plugin said registered ({os.cpu_count()} cores): {cpu}")
    per_tool = ", ".join(f"{kb:.1f}" for kb in summary["host_kb_per_tool"])
    out.append(f"  host memory per tool between sizes: {per_tool} KB (linear when these agree)")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n")[0])
    parser.add_argument("--role", choices=["plugin"], default=None, help=argparse.SUPPRESS)
    parser.add_argument("--name", default="Scale000", help=argparse.SUPPRESS)
    parser.add_argument("--bus", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tools", type=int, default=TOOLS_PER_PLUGIN, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="1 and 10 plugins, fewer repetitions")
    parser.add_argument("--sizes", default=None, help="plugin counts, comma-separated (default 1,10,100)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per figure (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    if args.role == "plugin":
        role_plugin(args)
        return
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([1, 10] if args.quick else [1, 10, 100])
    # registered_s is about the host, not about Python compiling the project's modules afresh in
    # each of 100 processes where the environment forbids bytecode: they may write it, as Python
    # does by default (the first size writes it; its figure includes that).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    reps = args.reps or (5 if args.quick else 20)
    summary = summarise([run_size(size, reps) for size in sizes])
    print(json.dumps(summary, indent=2) if args.json else render(summary))


if __name__ == "__main__":
    main()
