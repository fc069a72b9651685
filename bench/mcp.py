"""Latency and throughput of MCP `tools/call` over Streamable HTTP: the `mcp` package alone, our host, a plugin.

    python -m bench.mcp            # full run: a table and the ratio against the target
    python -m bench.mcp --quick    # a short run
    python -m bench.mcp --json     # the same figures as one JSON object on stdout

Four targets, each served on 127.0.0.1 by uvicorn (h11) with JSON responses, each started fresh
every round, and all measured by THE SAME load generator:

* baseline: the official `mcp` package's own low-level server with an in-process `echo` tool, in a
  child process of its own (`bench/_sdk_server.py`: served exactly as our host serves);
* core:     our host's core tool `echo` ({"text": …}): `python -m xivmcp broker` and
  `python -m xivmcp host --http 127.0.0.1:0 --auto-enable` as children, called with the bearer
  token from the host's data dir;
* plugin:   `rawplugin_echo` of `python -m plugins_sample.raw_gates` on the same host, so each call
  goes HTTP -> host -> broker -> plugin and back; the host also reads the game around each call
  (`python -m xivmcp game` runs beside it, as `xivmcp up` starts it), to judge its side effects;
* sdk_bus:  the baseline server again, whose `echo` makes the plugin path's bus round trip
  (`rawplugin_echo` through an Invoke gate, as a peer of its own) before it answers: what
  awaiting one bus round trip inside an HTTP request costs the SDK's own server, with no host.

RawPlugin's own Invoke answers XIV MCP alone (S1), so the bench's peers call
`BenchEcho.XivMcp.Invoke`: RawPlugin's Invoke handler in a process of its own, open to them
(`_sdk_server.role_echo_peer`). With the plugin measured, a peer of its own then calls it
directly with the same payload, sequentially: the bare bus round trip (`bus_median_us`), for the
issue 10/10 target `plugin_median_us <= core_median_us + 1.2 x bus_median_us`. `plugin - sdk_bus` is what the host's
own plugin path adds beyond what the SDK's server pays for the same round trip.

The load generator is a child process too, on raw HTTP/1.1 keep-alive connections with no HTTP
library in the measured path (`bench/_mcp_client.py`): each caller opens its own connection and
MCP session, and every reply is checked against its call (so a misconfigured target cannot look
fast). It polls tools/list until the tool is listed, warms up, then:

* 1 caller:   `--n` sequential round trips: median and p99 latency, and calls/s;
* 16 callers: `--calls` calls shared by `--callers` (16) concurrent callers, each its own
  connection and session: calls/s.

Each phase stops early after `--phase-seconds` (a slow target then makes fewer calls, and the
table says so), which bounds a run. The broker, host and plugin are started with no sleeps: the
broker's and host's own stdout lines (`listening on`, `MCP endpoint`, `ready`), the token file
(a bounded retry loop), the plugin's `registered` line, then tools/list polled by the load generator.

Children are `python -m bench.mcp --role ROLE`, `python -m xivmcp …` and `python -m
plugins_sample.raw_gates`; every one is stopped and waited for. `--profile DIR` runs every child
under cProfile (DIR/<role>.prof, figures slower); `--pid-dir DIR` writes their pids for py-spy:

    python -m bench.mcp --targets plugin --phase-seconds 10 --pid-dir /tmp/pids &
    # once /tmp/pids/loadgen-plugin.pid exists (the calls have started):
    py-spy record --pid $(cat /tmp/pids/host.pid) --duration 8 -o host.svg
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ._cli import fill_defaults, make_absolute, refuse, run_parent, run_role, subset
from ._mcp_client import PROTOCOL_VERSION, Load, generate_load, phase_failsafe
from ._proc import Children, report, write_pid_files
from ._profile import profile_option, profiled
from ._report import Column, Field, environment, environment_line, flatten, ratio, rounds_note, table
from ._sdk_server import ECHO_GATE, role_baseline_server, role_echo_peer
from ._stats import CallerFigures, combine_callers, interleaved_rounds, ratios_by_round, sequential_figures
from ._system import start_broker, start_game, start_host, start_raw_plugin, wait_for_token

MODULE = "bench.mcp"
TEXT_SIZE = 100
"""Characters of the `text` argument of each call (an 8-digit call number, then filler)."""
RATIO_TARGET = 1.3
PLUGIN_PATH_FACTOR = 1.2
"""Issue 10/10: plugin_median_us <= core_median_us + 1.2 x bus_median_us."""

READY_TIMEOUT = 30.0
"""Seconds a server child has to start and report ready (and a tool to be listed)."""
HANDSHAKE_TIMEOUT = 15.0
"""Seconds the load generator has to connect and open a session."""

TARGETS = ("baseline", "core", "plugin", "sdk_bus")
TOOLS = {"baseline": "echo", "core": "echo", "plugin": "rawplugin_echo", "sdk_bus": "echo"}
ON_THE_BUS = ("plugin", "sdk_bus")
"""The targets that need the bus, the game and RawPlugin."""


# --- the roles (the baseline server's is in _sdk_server) ---------------------------------------


def role_loadgen(args: argparse.Namespace) -> None:
    """The load generator against `--url` (`_mcp_client.generate_load`); `result {figures}`."""
    load = Load(
        url=args.url,
        token=Path(args.token_file).read_text(encoding="utf-8").strip() if args.token_file else None,
        tool=args.tool,
        warmup=args.warmup,
        sequential=args.n,
        concurrent=args.calls,
        callers=args.callers,
        phase_seconds=args.phase_seconds,
        text_size=TEXT_SIZE,
    )
    with profiled(args.profile, args.role, args.target):  # the load generator: one file a target
        figures = asyncio.run(generate_load(load, HANDSHAKE_TIMEOUT, READY_TIMEOUT))
    report("result", json.dumps(figures))


def role_bus_client(args: argparse.Namespace) -> None:
    """The bare bus round trip the plugin path makes: an Invoke of `rawplugin_echo` (`ECHO_GATE`)
    with the load generator's payload, called by a peer of its own, sequentially."""
    import broker

    payload = json.dumps({"text": "x" * TEXT_SIZE})

    async def main() -> list[int]:
        async with broker.connect(args.bus, "BenchBusClient") as pi:
            invoke = pi.get_ipc_subscriber(ECHO_GATE)
            for i in range(args.warmup):
                await invoke.invoke_func(f"w{i}", "rawplugin_echo", payload)
            times: list[int] = []
            for i in range(args.n):
                started = time.perf_counter_ns()
                await invoke.invoke_func(f"b{i}", "rawplugin_echo", payload)
                times.append(time.perf_counter_ns() - started)
            return times

    with profiled(args.profile, args.role):
        times = asyncio.run(main())
    report("result", json.dumps(sequential_figures(times)))


# --- the parent: start each target, run the load generator against it --------------------------


def _loadgen(
    children: Children, args: argparse.Namespace, target: str, url: str, token_file: str | None
) -> CallerFigures:
    extra = ["--url", url, "--target", target, "--tool", TOOLS[target]]
    extra += ["--warmup", str(args.warmup), "--n", str(args.n)]
    extra += ["--calls", str(args.calls), "--callers", str(args.callers), "--phase-seconds", str(args.phase_seconds)]
    extra += ["--token-file", token_file] if token_file else []
    client = children.start("loadgen", *extra, *profile_option(args.profile))
    if args.pid_dir:
        write_pid_files(args.pid_dir, {f"loadgen-{target}": client.pid})
    try:
        figures: CallerFigures = json.loads(client.expect("result", READY_TIMEOUT + phase_failsafe(args.phase_seconds)))
    finally:
        client.stop()
    return figures


def run_baseline(args: argparse.Namespace) -> dict[str, CallerFigures]:
    with Children(MODULE) as children:
        server = children.start("baseline-server", *profile_option(args.profile), graceful=True)
        url = server.expect("ready", READY_TIMEOUT)
        return {"baseline": _loadgen(children, args, "baseline", url, None)}


def run_host(args: argparse.Namespace, targets: Sequence[str]) -> dict[str, CallerFigures]:
    """Broker, host (and the plugin, if measured) fresh; the load generator against core, then plugin."""
    out: dict[str, CallerFigures] = {}
    with (
        tempfile.TemporaryDirectory(prefix="bench-mcp-", ignore_cleanup_errors=True) as tmp,
        Children(MODULE) as children,
    ):
        data_dir = Path(tmp) / "data"
        _, bus = start_broker(children, READY_TIMEOUT, profile=args.profile)
        # The game, as `xivmcp up` starts it: with it, the host reads the game around each plugin
        # call (its side effects, T2), as it does for real.
        start_game(children, bus, READY_TIMEOUT, profile=args.profile)
        _, endpoint = start_host(children, bus, data_dir, READY_TIMEOUT, profile=args.profile)
        wait_for_token(data_dir, READY_TIMEOUT)  # the load generator reads it from the file
        if any(t in targets for t in ON_THE_BUS):
            start_raw_plugin(children, bus, READY_TIMEOUT, profile=args.profile)
            echo = children.start("echo-peer", "--bus", bus, *profile_option(args.profile))
            echo.expect("ready", READY_TIMEOUT)
        if args.pid_dir:  # for py-spy: `py-spy record --pid $(cat DIR/host.pid) …`
            write_pid_files(args.pid_dir, {child.role: child.pid for child in children.running()})
        for target in ("core", "plugin"):
            if target in targets:
                out[target] = _loadgen(children, args, target, endpoint, str(data_dir / "token"))
        if "sdk_bus" in targets:
            server = children.start("baseline-server", "--bus", bus, *profile_option(args.profile), graceful=True)
            out["sdk_bus"] = _loadgen(children, args, "sdk_bus", server.expect("ready", READY_TIMEOUT), None)
        if "plugin" in targets:
            client = children.start(
                "bus-client",
                "--bus",
                bus,
                "--n",
                str(args.n),
                "--warmup",
                str(args.warmup),
                *profile_option(args.profile),
            )
            out["bus"] = json.loads(client.expect("result", phase_failsafe(args.phase_seconds)))
    return out


def summarise(results: dict[str, CallerFigures], args: argparse.Namespace) -> dict[str, Any]:
    n = args.callers  # names the concurrent figures' keys
    fields = (
        Field("median_us", "median_us", 1),
        Field("p99_us", "p99_us", 1),
        Field("rps_1", "rps_1", 0),
        Field(f"rps_{n}", "rps_16", 0),
        Field(f"median_us_{n}", "median_us_16", 1),
        Field("calls_1", "latency_n"),
        Field(f"calls_{n}", "throughput_n"),
    )
    out = flatten(results, TARGETS, fields)
    if args.callers != 16:  # the documented keys exist whatever --callers says; they hold its figures
        for name in TARGETS:
            out[f"{name}_rps_16"] = out[f"{name}_rps_{args.callers}"]
    base = results.get("baseline")
    for name in ("core", "plugin"):
        out[f"{name}_vs_baseline"] = ratio(results.get(name), base, "median_us")
        out[f"{name}_rps_{args.callers}_vs_baseline"] = ratio(results.get(name), base, "rps_16")
    bus, core, plugin = results.get("bus"), results.get("core"), results.get("plugin")
    out["bus_median_us"] = None if bus is None else round(bus["median_us"], 1)
    if bus is not None and core is not None and plugin is not None:
        allowed = core["median_us"] + PLUGIN_PATH_FACTOR * bus["median_us"]
        out["plugin_path_limit_us"] = round(allowed, 1)
        out["plugin_path_ok"] = plugin["median_us"] <= allowed
        out["host_adds_us"] = round(plugin["median_us"] - core["median_us"] - bus["median_us"], 1)
    sdk_bus = results.get("sdk_bus")
    if sdk_bus is not None and plugin is not None:
        out["host_plugin_path_us"] = round(plugin["median_us"] - sdk_bus["median_us"], 1)
    out["ratio_target"] = RATIO_TARGET
    out["plugin_ok"] = None if out["plugin_vs_baseline"] is None else out["plugin_vs_baseline"] <= RATIO_TARGET
    from importlib import metadata

    out["config"] = {
        "text_chars": TEXT_SIZE,
        "warmup": args.warmup,
        "latency_calls": args.n,
        "throughput_calls": args.calls,
        "callers": args.callers,
        "phase_seconds": args.phase_seconds,
        "rounds": args.rounds,
        "protocol_version": PROTOCOL_VERSION,
        **environment(mcp=metadata.version("mcp"), uvicorn=metadata.version("uvicorn")),
    }
    return out


def render(summary: dict[str, Any], elapsed: float) -> str:
    cfg = summary["config"]
    n = cfg["callers"]
    lines = [
        f"MCP tools/call over Streamable HTTP (JSON responses, protocol {cfg['protocol_version']}) on 127.0.0.1, "
        f"separate processes; {cfg['text_chars']}-char text; 1 caller: {cfg['latency_calls']} sequential calls, "
        f"{n} callers: {cfg['throughput_calls']} calls (warm-up {cfg['warmup']}); median of {cfg['rounds']} "
        "interleaved round(s)",
        environment_line(cfg, "mcp", "uvicorn"),
        "",
        *table(
            (
                Column("target", 10, align="<"),
                Column("median us", 12, ".1f"),
                Column("p99 us", 12, ".1f"),
                Column("calls/s @1", 13, ","),
                Column(f"calls/s @{n}", 14, ","),
            ),
            [
                [name, *(summary[f"{name}_{key}"] for key in ("median_us", "p99_us", "rps_1", f"rps_{n}"))]
                for name in TARGETS
                if summary[f"{name}_median_us"] is not None
            ],
        ),
        "",
    ]
    if summary["core_vs_baseline"] is not None:
        lines.append(
            f"core median / baseline median   = {summary['core_vs_baseline']:.2f}"
            + rounds_note(summary.get("core_rounds"))
        )
    if summary["plugin_vs_baseline"] is not None:
        ok = "  ok" if summary["plugin_ok"] else "  MISSED"
        lines.append(
            f"plugin median / baseline median = {summary['plugin_vs_baseline']:.2f}   (target <= {RATIO_TARGET})"
            + ok
            + rounds_note(summary.get("plugin_rounds"))
        )
    if summary.get("plugin_path_limit_us") is not None:
        verdict = "ok" if summary["plugin_path_ok"] else "MISSED"
        lines.append(
            f"bare bus round trip (an Invoke of rawplugin_echo, same payload) = {summary['bus_median_us']:.1f} us; "
            f"plugin median {summary['plugin_median_us']:.1f} us <= core + {PLUGIN_PATH_FACTOR} x bus = "
            f"{summary['plugin_path_limit_us']:.1f} us: {verdict} (the host adds {summary['host_adds_us']:.1f} us "
            "beyond one bus round trip)"
        )
    if summary.get("host_plugin_path_us") is not None:
        lines.append(
            "the SDK's own server making the same bus round trip in its tool (sdk_bus) = "
            f"{summary['sdk_bus_median_us']:.1f} us: plugin - sdk_bus = {summary['host_plugin_path_us']:.1f} us "
            "is the host's own plugin path"
        )
    for name in ("core", "plugin"):
        rps_ratio = summary.get(f"{name}_rps_{n}_vs_baseline")
        if rps_ratio is not None:
            lines.append(f"{name} calls/s @{n} / baseline calls/s @{n} = {rps_ratio:.2f}")
    for name in TARGETS:
        made_1, made_n = summary.get(f"{name}_calls_1"), summary.get(f"{name}_calls_{n}")
        short = [
            f"{made} of {planned} {what} calls"
            for made, planned, what in (
                (made_1, cfg["latency_calls"], "sequential"),
                (made_n, cfg["throughput_calls"], "concurrent"),
            )
            if made is not None and made < planned
        ]
        if short:
            lines.append(
                f"note: {name} made only {' and '.join(short)} within the {cfg['phase_seconds']:g} s a phase "
                "may take (fewest of the rounds)"
            )
    lines.append(f"(run took {elapsed:.1f} s)")
    return "\n".join(lines)


def run_all(args: argparse.Namespace) -> int:
    targets = subset(args.targets, TARGETS, "target")
    if targets is None:
        return 2
    started = time.perf_counter()
    # The baseline on its own; the targets on the host share one broker, host and plugin a round.
    on_host: list[str] = [name for name in ("core", "plugin", "sdk_bus") if name in targets]
    groups = [group for group in (["baseline"] if "baseline" in targets else [], on_host) if group]
    rounds = interleaved_rounds(
        args.rounds, groups, lambda group: run_baseline(args) if group == ["baseline"] else run_host(args, group)
    )
    summary = summarise({name: combine_callers(figs) for name, figs in rounds.items()}, args)
    for name in ("core", "plugin"):
        if name in rounds and "baseline" in rounds:
            summary[f"{name}_rounds"] = ratios_by_round(rounds[name], rounds["baseline"], "median_us")
    summary["rounds"] = rounds
    print(json.dumps(summary) if args.json else render(summary, time.perf_counter() - started))
    return 0


ROLES: dict[str, Callable[[argparse.Namespace], None]] = {
    "baseline-server": role_baseline_server,
    "loadgen": role_loadgen,
    "bus-client": role_bus_client,
    "echo-peer": role_echo_peer,
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.mcp",
        description="MCP tools/call latency and calls/s: the mcp package's own server (baseline), "
        "our host's core echo, a plugin's echo through the bus, and the SDK's server making that bus round trip.",
    )
    p.add_argument("--quick", action="store_true", help="a short run (fewer calls, one round)")
    p.add_argument("--n", type=int, default=None, help="sequential calls for latency (default 1000; --quick 200)")
    p.add_argument("--calls", type=int, default=None, help="calls shared by --callers (default 1500; --quick 400)")
    p.add_argument("--callers", type=int, default=16, help="concurrent callers for calls/s (default 16)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up calls (default 200; --quick 50)")
    p.add_argument(
        "--phase-seconds",
        type=float,
        default=None,
        help="at most this long for each measured phase, half of it for each warm-up; a slow target makes "
        "fewer calls (default 4; --quick 1)",
    )
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds, medians shown (default 5; --quick 1)")
    p.add_argument("--targets", default=",".join(TARGETS), help=f"comma-separated subset of {','.join(TARGETS)}")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout (diagnostics on stderr)")
    p.add_argument("--profile", metavar="DIR", help="cProfile every child into DIR/<role>.prof (slower figures)")
    p.add_argument(
        "--pid-dir",
        metavar="DIR",
        default=None,
        help="write DIR/{broker,host,plugin}.pid once they are ready, then DIR/loadgen-TARGET.pid (for py-spy)",
    )
    # The children's side.
    p.add_argument("--role", choices=sorted(ROLES), default=None, help=argparse.SUPPRESS)
    p.add_argument("--url", default=None, help=argparse.SUPPRESS)
    p.add_argument("--tool", default=None, help=argparse.SUPPRESS)
    p.add_argument("--target", default=None, help=argparse.SUPPRESS)
    p.add_argument("--token-file", default=None, help=argparse.SUPPRESS)
    p.add_argument("--bus", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if run_role(args, ROLES):
        return 0
    fill_defaults(args, n=(200, 1000), calls=(400, 1500), warmup=(50, 200), rounds=(1, 5), phase_seconds=(1.0, 4.0))
    if min(args.n, args.calls, args.callers, args.rounds) < 1 or args.warmup < 0 or not args.phase_seconds > 0:
        return refuse("--n, --calls, --callers and --rounds must be >= 1, --warmup >= 0, --phase-seconds > 0")
    make_absolute(args, "profile", "pid_dir")
    return run_parent(run_all, args)


if __name__ == "__main__":
    sys.exit(main())
