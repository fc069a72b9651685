"""Round-trip latency and throughput of the bus against bare ZeroMQ, between separate processes.

    python -m bench.bus            # full run: a table and the ratios against the targets
    python -m bench.bus --quick    # a short run
    python -m bench.bus --json     # the same figures as one JSON object on stdout

Five setups, each process started fresh, on tcp loopback unless named otherwise:

* floor:         a synchronous pyzmq DEALER client -> a ROUTER echo server (two processes);
* proxy:         DEALER client -> `zmq.proxy(ROUTER, DEALER)` -> a DEALER echo worker (three);
* proxy_asyncio: the same proxy, with a `zmq.asyncio` DEALER client running as many concurrent
  tasks as the bus client (each awaiting its reply, matched by a reader task) and an asyncio
  echo worker: what asyncio itself costs, apart from our broker and peers;
* bus:           `broker.connect(..., "BenchClient")` -> the broker -> a provider of
  `BenchServer.Echo` (a sync handler) (three processes);
* bus_ipc:       the bus over `ipc://` (skipped, with a note, where the platform has none);
* bus_curve:     the bus with CURVE on (S4): every connection encrypted, each client's key checked
  by the broker's ZAP handler when it connects (keys in a fresh temporary data dir).

Latency: sequential round trips of a 200-byte payload (`--payload`), median and p99 in microseconds.
Throughput: calls per second with `--inflight` (64) requests outstanding: a pipelined window
matched by reply for floor and proxy, that many concurrent tasks for proxy_asyncio and the bus.
The targets (issue 13) compare the bus with the proxy, in the same run: median <= 1.3x,
calls/s >= 0.6x; each ratio is printed with "met" or "MISSED".

Children are `python -m bench.bus --role ROLE`; they report `ready …` and `result {json}` on
stdout. `--profile DIR` runs the bus's broker, provider and client under cProfile and writes
DIR/<role>.prof (the figures are then slower, of course).

The floor and proxy roles are in `bench/_zmq_peers.py`; they measure exactly what the bus client
measures (`_stats.window_figures`), and check every echo as it does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import zmq

from ._cli import fill_defaults, make_absolute, refuse, run_parent, run_role, subset
from ._proc import Children, on_stdin_eof, report, run_async, stdin_eof_event
from ._profile import profile_option, profiled
from ._report import Column, Field, environment, environment_line, flatten, ratio, rounds_note, table
from ._stats import WindowFigures, combine_windows, interleaved_rounds, ratios_by_round, window_figures
from ._zmq_peers import HANDSHAKE_TIMEOUT, LOOPBACK, SEQ_BYTES, ZMQ_ROLES

MODULE = "bench.bus"
PAYLOAD_SIZE = 200
"""The default payload (`--payload`): a short tool call's arguments."""
MEDIAN_TARGET = 1.3
RPS_TARGET = 0.6

READY_TIMEOUT = 30.0
"""Seconds a server child has to bind (or connect) and report ready."""

SETUPS = ("floor", "proxy", "proxy_asyncio", "bus", "bus_ipc", "bus_curve")


# --- the bus's roles ---------------------------------------------------------------------------


def role_broker(args: argparse.Namespace) -> None:
    """The bus's broker on `--endpoint` (default: a free loopback port); stops (and writes its
    profile) when stdin closes."""
    from broker import Broker, BrokerConfig, CurveServer

    curve = CurveServer.in_dir(Path(args.curve_dir)) if args.curve_dir else None
    bus = Broker(BrokerConfig(endpoint=args.endpoint or LOOPBACK, curve=curve))
    on_stdin_eof(bus.stop)
    report("ready", bus.endpoint)
    with profiled(args.profile, args.role):
        bus.serve_forever()


def _echo(text: str) -> str:
    return text


def role_provider(args: argparse.Namespace) -> None:
    """`BenchServer`, providing the func gate `BenchServer.Echo` with a sync handler."""
    import broker

    async def main() -> None:
        stop = stdin_eof_event()
        curve = broker.CurveClient.load(Path(args.curve_dir)) if args.curve_dir else None
        async with broker.connect(args.endpoint, "BenchServer", connect_timeout=HANDSHAKE_TIMEOUT, curve=curve) as pi:
            pi.get_ipc_provider("BenchServer.Echo", params=(str,), returns=str).register_func(_echo)
            report("ready")
            await stop.wait()

    with profiled(args.profile, args.role):
        run_async(main)


def bus_text(size: int) -> str:
    """A str whose JSON encoding is `size` bytes (the argument array adds 2 more)."""
    return "b" * (size - 2)


def role_bus_client(args: argparse.Namespace) -> None:
    """`BenchClient`: sequential awaits, then `inflight` tasks each awaiting calls in a loop."""
    import anyio

    import broker

    text = bus_text(args.payload)
    assert len(json.dumps(text)) == args.payload
    figures: list[WindowFigures] = []

    async def main() -> None:
        curve = broker.CurveClient.load(Path(args.curve_dir)) if args.curve_dir else None
        async with broker.connect(args.endpoint, "BenchClient", connect_timeout=HANDSHAKE_TIMEOUT, curve=curve) as pi:
            echo = pi.get_ipc_subscriber("BenchServer.Echo")
            with anyio.fail_after(HANDSHAKE_TIMEOUT):
                await echo.wait_ready()
            invoke = echo.invoke_func
            perf = time.perf_counter_ns
            for _ in range(args.warmup):
                if await invoke(text) != text:
                    raise RuntimeError("warm-up: wrong echo")

            latencies: list[int] = []
            for i in range(args.n):
                t0 = perf()
                reply = await invoke(text)
                latencies.append(perf() - t0)
                if reply != text:
                    raise RuntimeError(f"latency: wrong echo for call {i}")

            calls, window = args.calls, min(args.inflight, args.calls)
            remaining = calls

            async def worker() -> None:
                nonlocal remaining
                while remaining > 0:
                    remaining -= 1
                    if await invoke(text) != text:
                        raise RuntimeError("throughput: wrong echo")

            t0 = perf()
            async with anyio.create_task_group() as tg:
                for _ in range(window):
                    tg.start_soon(worker)
            elapsed = (perf() - t0) / 1e9
            figures.append(window_figures(latencies, calls, elapsed, window))

    with profiled(args.profile, args.role):
        run_async(main)
    report("result", json.dumps(figures[0]))


# --- the parent: start the setups one after the other ------------------------------------------


def _client_args(args: argparse.Namespace, endpoint: str) -> list[str]:
    out = ["--endpoint", endpoint, "--warmup", str(args.warmup), "--n", str(args.n), "--payload", str(args.payload)]
    return [*out, "--calls", str(args.calls), "--inflight", str(args.inflight), *profile_option(args.profile)]


def _result_timeout(args: argparse.Namespace) -> float:
    # A failsafe only: generous enough for a slow, busy or profiled machine.
    iterations: int = args.warmup + args.n + args.calls
    return 60.0 + iterations * 0.005


def _client_result(
    children: Children, role: str, args: argparse.Namespace, endpoint: str, *extra: str
) -> WindowFigures:
    client = children.start(role, *_client_args(args, endpoint), *extra)
    figures: WindowFigures = json.loads(client.expect("result", _result_timeout(args)))
    return figures


def run_floor(args: argparse.Namespace) -> WindowFigures:
    with Children(MODULE) as children:
        endpoint = children.start("floor-server").expect("ready", READY_TIMEOUT)
        return _client_result(children, "zmq-client", args, endpoint)


def run_proxy(args: argparse.Namespace) -> WindowFigures:
    with Children(MODULE) as children:
        front, back = children.start("proxy").expect("ready", READY_TIMEOUT).split()
        children.start("proxy-worker", "--endpoint", back).expect("ready", READY_TIMEOUT)
        return _client_result(children, "zmq-client", args, front)


def run_proxy_asyncio(args: argparse.Namespace) -> WindowFigures:
    with Children(MODULE) as children:
        front, back = children.start("proxy").expect("ready", READY_TIMEOUT).split()
        children.start("aio-worker", "--endpoint", back).expect("ready", READY_TIMEOUT)
        return _client_result(children, "aio-client", args, front)


def run_bus(args: argparse.Namespace, bind: str | None = None, curve_dir: str | None = None) -> WindowFigures:
    keys = ["--curve-dir", curve_dir] if curve_dir else []
    extra = [*profile_option(args.profile), *keys]
    where = ["--endpoint", bind] if bind else []
    with Children(MODULE) as children:
        endpoint = children.start("broker", *where, *extra, graceful=True).expect("ready", READY_TIMEOUT)
        children.start("provider", "--endpoint", endpoint, *extra, graceful=True).expect("ready", READY_TIMEOUT)
        return _client_result(children, "bus-client", args, endpoint, *keys)


IPC_NOTE = "bus_ipc skipped: this platform has no ipc:// transport (Windows)"


def ipc_available() -> bool:
    return sys.platform != "win32" and zmq.has("ipc")


def run_bus_ipc(args: argparse.Namespace) -> WindowFigures:
    with tempfile.TemporaryDirectory(prefix="xivbus-") as folder:  # short: ipc paths max ~100 bytes
        return run_bus(args, f"ipc://{os.path.join(folder, 'bus')}")


def run_bus_curve(args: argparse.Namespace) -> WindowFigures:
    with tempfile.TemporaryDirectory(prefix="xivbus-keys-") as folder:  # 0700, as a data dir
        return run_bus(args, curve_dir=folder)


RUNNERS: dict[str, Callable[[argparse.Namespace], WindowFigures]] = {
    "floor": run_floor,
    "proxy": run_proxy,
    "proxy_asyncio": run_proxy_asyncio,
    "bus": run_bus,
    "bus_ipc": run_bus_ipc,
    "bus_curve": run_bus_curve,
}


class Ratio(NamedTuple):
    key: str
    top: str
    bottom: str
    figure: Literal["median_us", "rps"]
    label: str
    target: float | None = None
    """A target (issue 13): at most this for latency, at least this for throughput."""


RATIOS = (
    Ratio("median_ratio", "bus", "proxy", "median_us", "bus median / proxy median", MEDIAN_TARGET),
    Ratio("rps_ratio", "bus", "proxy", "rps", "bus rps / proxy rps", RPS_TARGET),
    Ratio("asyncio_median_ratio", "proxy_asyncio", "proxy", "median_us", "asyncio peers' median / proxy's"),
    Ratio("asyncio_rps_ratio", "proxy_asyncio", "proxy", "rps", "asyncio peers' rps / proxy's"),
    Ratio("ours_median_ratio", "bus", "proxy_asyncio", "median_us", "bus median / asyncio peers'"),
    Ratio("ours_rps_ratio", "bus", "proxy_asyncio", "rps", "bus rps / asyncio peers'"),
    Ratio("ipc_median_ratio", "bus_ipc", "bus", "median_us", "bus over ipc median / over tcp"),
    Ratio("ipc_rps_ratio", "bus_ipc", "bus", "rps", "bus over ipc rps / over tcp"),
    Ratio("curve_median_ratio", "bus_curve", "bus", "median_us", "bus with CURVE median / without"),
    Ratio("curve_rps_ratio", "bus_curve", "bus", "rps", "bus with CURVE rps / without"),
)
"""The targets first; then what asyncio costs by itself (proxy_asyncio against proxy), what our
broker and peers cost beyond it (bus against proxy_asyncio), what tcp costs against ipc, and
what CURVE (S4) costs against the plain bus."""

FIELDS = (Field("median_us", "median_us", 1), Field("p99_us", "p99_us", 1), Field("rps", "rps", 0))
"""Each setup's figures in the summary: `{setup}_median_us`, …"""
COLUMNS = (
    Column("setup", 15, align="<"),
    Column("median us", 12, ".1f"),
    Column("p99 us", 12, ".1f"),
    Column("calls/s", 12, ","),
)


def _met(ratio: Ratio, value: float) -> bool:
    assert ratio.target is not None
    return value <= ratio.target if ratio.figure == "median_us" else value >= ratio.target


def summarise(results: dict[str, WindowFigures], args: argparse.Namespace) -> dict[str, Any]:
    out = flatten(results, SETUPS, FIELDS)
    for r in RATIOS:
        out[r.key] = ratio(results.get(r.top), results.get(r.bottom), r.figure)
    out["median_target"] = MEDIAN_TARGET
    out["rps_target"] = RPS_TARGET
    for r in RATIOS[:2]:
        out[r.key.replace("_ratio", "_ok")] = None if out[r.key] is None else _met(r, out[r.key])
    out["config"] = {
        "payload_bytes": args.payload,
        "warmup": args.warmup,
        "latency_round_trips": args.n,
        "throughput_calls": args.calls,
        "inflight": args.inflight,
        "rounds": args.rounds,
        **environment(pyzmq=zmq.pyzmq_version(), libzmq=zmq.zmq_version()),
    }
    return out


def render(summary: dict[str, Any], elapsed: float) -> str:
    cfg = summary["config"]
    lines = [
        f"bus benchmark: {cfg['payload_bytes']}-byte payload, separate processes, tcp loopback unless named; "
        f"{cfg['latency_round_trips']} sequential round trips, {cfg['throughput_calls']} calls with "
        f"{cfg['inflight']} in flight (warm-up {cfg['warmup']}); median of {cfg['rounds']} interleaved round(s)",
        environment_line(cfg, "pyzmq", "libzmq"),
        "",
        *table(
            COLUMNS,
            [
                [name, *(summary[f"{name}_{field.key}"] for field in FIELDS)]
                for name in SETUPS
                if summary[f"{name}_median_us"] is not None
            ],
        ),
        "",
    ]
    for r in RATIOS:
        value = summary[r.key]
        if value is None:
            continue
        text = f"{r.label:<34}= {value:5.2f}"
        if r.target is not None:
            sign = "<=" if r.figure == "median_us" else ">="
            text += f"   (target {sign} {r.target})  " + ("met" if _met(r, value) else "MISSED")
            text += rounds_note(summary.get(f"{r.key}_rounds"))
        lines.append(text)
    lines += [f"note: {note}" for note in summary.get("notes", [])]
    lines.append(f"(run took {elapsed:.1f} s)")
    return "\n".join(lines)


def run_all(args: argparse.Namespace) -> int:
    setups = subset(args.setups, SETUPS, "setup")
    if setups is None:
        return 2
    notes: list[str] = []
    if "bus_ipc" in setups and not ipc_available():
        setups.remove("bus_ipc")
        notes.append(IPC_NOTE)
    started = time.perf_counter()
    groups = [[name] for name in SETUPS if name in setups]
    rounds = interleaved_rounds(args.rounds, groups, lambda group: {group[0]: RUNNERS[group[0]](args)})
    summary = summarise({name: combine_windows(figs) for name, figs in rounds.items()}, args)
    if "bus" in rounds and "proxy" in rounds:
        summary["median_ratio_rounds"] = ratios_by_round(rounds["bus"], rounds["proxy"], "median_us")
        summary["rps_ratio_rounds"] = ratios_by_round(rounds["bus"], rounds["proxy"], "rps")
    summary["notes"] = notes
    summary["rounds"] = rounds
    print(json.dumps(summary) if args.json else render(summary, time.perf_counter() - started))
    return 0


ROLES: dict[str, Callable[[argparse.Namespace], None]] = {
    **ZMQ_ROLES,
    "broker": role_broker,
    "provider": role_provider,
    "bus-client": role_bus_client,
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.bus",
        description="Latency and throughput of the bus against bare ZeroMQ (floor) and a one-hop zmq.proxy.",
    )
    p.add_argument("--quick", action="store_true", help="a short run (fewer iterations)")
    p.add_argument("--n", type=int, default=None, help="round trips for latency (default 5000; --quick 1000)")
    p.add_argument("--calls", type=int, default=None, help="calls for throughput (default 20000; --quick 4000)")
    p.add_argument("--inflight", type=int, default=64, help="requests in flight for throughput (default 64)")
    p.add_argument("--payload", type=int, default=PAYLOAD_SIZE, help=f"payload bytes (default {PAYLOAD_SIZE})")
    p.add_argument("--warmup", type=int, default=None, help="warm-up round trips (default 1000; --quick 200)")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds, medians shown (default 3; --quick 1)")
    p.add_argument("--setups", default=",".join(SETUPS), help=f"comma-separated subset of {','.join(SETUPS)}")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout (diagnostics on stderr)")
    p.add_argument("--profile", metavar="DIR", default=None, help="cProfile the bus processes into DIR/<role>.prof")
    # The children's side.
    p.add_argument("--role", choices=sorted(ROLES), default=None, help=argparse.SUPPRESS)
    p.add_argument("--endpoint", default=None, help=argparse.SUPPRESS)
    p.add_argument("--curve-dir", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if run_role(args, ROLES):
        return 0
    fill_defaults(args, n=(1000, 5000), calls=(4000, 20000), warmup=(200, 1000), rounds=(1, 3))
    if min(args.n, args.calls, args.inflight, args.rounds) < 1 or args.warmup < 0 or args.payload < SEQ_BYTES + 2:
        return refuse("--n, --calls, --inflight, --rounds >= 1, --warmup >= 0, --payload >= 10")
    make_absolute(args, "profile")
    return run_parent(run_all, args)


if __name__ == "__main__":
    sys.exit(main())
