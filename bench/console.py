"""The player's web console at scale: a whole page of Third-party plugins, 100 plugins with 50 tools each.

    python -m bench.console              # 1, 10 and 100 plugins: a table, and the target
    python -m bench.console --quick      # fewer repetitions
    python -m bench.console --json       # the same figures as one JSON object on stdout

A broker thread and the host in this process (its test clock), with N plugins of 50 tools each
registered through the host's own RegisterTool handler (half of each plugin's tools act, with a
capability, so every card has its capability rows and mode buttons). Measured, median of
`--reps` after one warm-up:

* cards: the player's `plugins` command as the desk answers it (`ListPlugins`): the baseline,
  what `xivmcp plugins` gets, without any HTML;
* views: what the console reads for the tab (`ListPlugins`, then `ShowPlugin` for each plugin);
* page: the whole page of the tab as the console serves it (those reads, the approvals, and
  Jinja2's rendering), and its size.

Target (issue 22): the full page of 100 plugins with 50 tools each in under 100 ms.

Then how soon an open page hears of an approval a plugin's call asks for (`_console_live.py`: real
processes over HTTP), against the player's `approvals --wait` in the same rounds. Target: within a
second.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import msgspec

from broker import Broker, BrokerConfig
from gates.contract import ToolDefinition
from gates.host import HostConfig, HostLimits, host_running
from gates.player import ListPlugins

from ._console_live import LIVE_TARGET_MS, measure_live
from ._report import Column, environment, environment_line, say, table

TOOLS_PER_PLUGIN = 50
TARGET_MS = 100.0
SIZES = (1, 10, 100)


def _definition(plugin: str, index: int) -> str:
    acting = index % 2 == 1
    definition = ToolDefinition(
        name=f"{plugin.lower()}_t{index}",
        description=f"Tool {index} of {plugin}: does one small thing <b>well</b>, as its author wrote it.",
        read_only=not acting,
        capabilities=["move_items"] if acting else [],
    )
    return msgspec.json.encode(definition).decode()


async def _median_ms(reps: int, run: Callable[[], Awaitable[Any]]) -> float:
    await run()  # warm-up: the templates compile, the caches fill
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        await run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def _measure(plugins: int, reps: int) -> dict[str, Any]:
    from gates.console import Console  # loads starlette and jinja2, as the host's endpoint does

    bus = Broker(BrokerConfig(endpoint="tcp://127.0.0.1:*")).start_in_thread()
    try:
        with tempfile.TemporaryDirectory() as folder:
            limits = HostLimits(max_tools_per_plugin=max(TOOLS_PER_PLUGIN, HostLimits().max_tools_per_plugin))
            config = HostConfig(bus=bus.endpoint, data_dir=Path(folder), test_clock=True, limits=limits)
            async with host_running(config) as host, anyio.create_task_group() as tg:
                for p in range(plugins):
                    name = f"Bench{p:03d}"
                    for t in range(TOOLS_PER_PLUGIN):
                        host.plugin_requests.register_tool(name, _definition(name, t))
                console = Console(host, tg, port=0, hosts=[], origins=[], mcp_url="http://127.0.0.1:0/mcp")
                views = console.views
                desk = views.desk
                cards = await _median_ms(reps, lambda: desk.answer(ListPlugins()))
                read = await _median_ms(reps, views.panels.plugin_views)
                page = await _median_ms(reps, lambda: views.page_html("plugins", {}, "csrf"))
                size = len((await views.page_html("plugins", {}, "csrf")).encode())
                console.close()
                tg.cancel_scope.cancel()
    finally:
        bus.close()
    return {"plugins": plugins, "tools": plugins * TOOLS_PER_PLUGIN, "cards_ms": cards, "views_ms": read,
            "page_ms": page, "page_kb": size / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.console", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per figure (default 20, --quick 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--live", type=int, default=None, help="approvals timed (default 20, --quick 5)")
    args = parser.parse_args(argv)
    reps = args.reps or (5 if args.quick else 20)
    config = environment(jinja2=_version("jinja2"), starlette=_version("starlette"))
    rows = []
    for size in SIZES:
        say(f"{size} plugin(s) with {TOOLS_PER_PLUGIN} tools each")
        rows.append(anyio.run(_measure, size, reps))
    say("an approval, from the assistant's call to the open page")
    live = measure_live(args.live or (5 if args.quick else 20))
    biggest = rows[-1]
    result = {"config": {**config, "reps": reps}, "sizes": rows, "target_ms": TARGET_MS,
              "met": biggest["page_ms"] < TARGET_MS, "live": live,
              "live_met": live["shown_ms"]["max"] < LIVE_TARGET_MS}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"console benchmark: the Third-party plugins page, {TOOLS_PER_PLUGIN} tools a plugin; median of {reps}")
    print(environment_line(config, "jinja2", "starlette"))
    print()
    columns = [
        Column("plugins", 8, "d"), Column("tools", 7, ","), Column("cards ms", 10, ".1f"),
        Column("views ms", 10, ".1f"), Column("page ms", 10, ".1f"), Column("page KB", 10, ",.0f"),
    ]
    values = [[r["plugins"], r["tools"], r["cards_ms"], r["views_ms"], r["page_ms"], r["page_kb"]] for r in rows]
    print("\n".join(table(columns, values)))
    print()
    verdict = "met" if result["met"] else "MISSED"
    page = biggest["page_ms"]
    print(f"page at {biggest['plugins']} plugins = {page:.1f} ms   (target < {TARGET_MS:.0f} ms)  {verdict}")
    print(f"page / cards at {biggest['plugins']} plugins = {biggest['page_ms'] / biggest['cards_ms']:.1f}x")
    print()
    print(f"an approval asked by a plugin's call, {live['rounds']} rounds (ms from the call's sending):")
    for key, title in (("cli_ms", "xivmcp approvals --wait"), ("event_ms", "page's event"), ("shown_ms", "page shows")):
        print(f"  {title:<26} median {live[key]['median']:8.1f}   max {live[key]['max']:8.1f}")
    verdict = "met" if result["live_met"] else "MISSED"
    print(f"page shows it, worst = {live['shown_ms']['max']:.1f} ms   (target < {LIVE_TARGET_MS:.0f} ms)  {verdict}")
    return 0


def _version(package: str) -> str:
    from importlib import metadata

    return metadata.version(package)


if __name__ == "__main__":
    sys.exit(main())
