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
* bus_ipc:       the bus over `ipc://` (skipped, with a note, where the platform has none).

Latency: sequential round trips of a 200-byte payload (`--payload`), median and p99 in microseconds.
Throughput: calls per second with `--inflight` (64) requests outstanding: a pipelined window
matched by reply for floor and proxy, that many concurrent tasks for proxy_asyncio and the bus.
The targets (issue 13) compare the bus with the proxy, in the same run: median <= 1.3x,
calls/s >= 0.6x; each ratio is printed with "met" or "MISSED".

Children are `python -m bench.bus --role ROLE`; they report `ready …` and `result {json}` on
stdout. `--profile DIR` runs the bus's broker, provider and client under cProfile and writes
DIR/<role>.prof (the figures are then slower, of course).

Long because every setup's roles sit side by side in this one module, so that what the setups
share (payload, handshake, measurement) is visibly the same code.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import logging
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, NamedTuple, TypedDict

import zmq

from ._proc import ChildError, Children, on_stdin_eof, report

MODULE = "bench.bus"
PAYLOAD_SIZE = 200
"""The default payload (`--payload`): a short tool call's arguments."""
SEQ_BYTES = 8
LOOPBACK = "tcp://127.0.0.1:*"
MEDIAN_TARGET = 1.3
RPS_TARGET = 0.6

READY_TIMEOUT = 30.0
"""Seconds a server child has to bind (or connect) and report ready."""
HANDSHAKE_TIMEOUT = 15.0
"""Seconds a client has to get its first answer (ping / gate ready)."""

SETUPS = ("floor", "proxy", "proxy_asyncio", "bus", "bus_ipc")


class Figures(TypedDict):
    median_us: float
    p99_us: float
    rps: float
    latency_n: int
    throughput_n: int
    inflight: int


# --- shared measurement helpers ----------------------------------------------------------------


def _percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * fraction // 1))  # ceil without float surprises
    return sorted_values[int(rank) - 1]


def _figures(latencies_ns: list[int], calls: int, elapsed_s: float, inflight: int) -> Figures:
    us = sorted(ns / 1000 for ns in latencies_ns)
    return Figures(
        median_us=statistics.median(us) if us else float("nan"),
        p99_us=_percentile(us, 0.99),
        rps=calls / elapsed_s if elapsed_s > 0 else float("nan"),
        latency_n=len(us),
        throughput_n=calls,
        inflight=inflight,
    )


def _zmq_payload(seq: int, filler: bytes) -> bytes:
    return seq.to_bytes(SEQ_BYTES, "little") + filler


# --- floor and proxy: plain synchronous pyzmq --------------------------------------------------


def role_floor_server(_args: argparse.Namespace) -> None:
    """A ROUTER that echoes every message back to its sender."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(LOOPBACK)
    report("ready", sock.getsockopt_string(zmq.LAST_ENDPOINT))
    recv, send = sock.recv_multipart, sock.send_multipart
    while True:
        send(recv())


def role_proxy(_args: argparse.Namespace) -> None:
    """`zmq.proxy` between a ROUTER for clients and a DEALER for workers."""
    ctx = zmq.Context()
    front = ctx.socket(zmq.ROUTER)
    back = ctx.socket(zmq.DEALER)
    for sock in (front, back):
        sock.setsockopt(zmq.LINGER, 0)
        sock.bind(LOOPBACK)
    report("ready", front.getsockopt_string(zmq.LAST_ENDPOINT), back.getsockopt_string(zmq.LAST_ENDPOINT))
    zmq.proxy(front, back)


def role_proxy_worker(args: argparse.Namespace) -> None:
    """A DEALER on the proxy's backend: it gets [client identity, payload] and sends it back as is,
    so the proxy's ROUTER returns the payload to the client that sent it."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(args.endpoint)
    report("ready")
    recv, send = sock.recv_multipart, sock.send_multipart
    while True:
        send(recv())


def _zmq_handshake(sock: zmq.Socket[bytes], timeout: float) -> None:
    """Ping until the echo comes back; messages queue until the connection is up, so one ping
    normally suffices, and replies are FIFO, so older pings are answered before the newest."""
    deadline = time.monotonic() + timeout
    attempt = 0
    while time.monotonic() < deadline:
        attempt += 1
        token = b"ping-%d" % attempt
        sock.send(token)
        until = min(deadline, time.monotonic() + 1.0)
        while (left := until - time.monotonic()) > 0:
            if not sock.poll(int(left * 1000) + 1, zmq.POLLIN):
                break
            if sock.recv() == token:
                return
    raise TimeoutError(f"no echo within {timeout:g} s")


def role_zmq_client(args: argparse.Namespace) -> None:
    """Sequential round trips, then a pipelined window of `inflight` outstanding requests."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(args.endpoint)
    try:
        _zmq_handshake(sock, HANDSHAKE_TIMEOUT)
        filler = os.urandom(args.payload - SEQ_BYTES)
        send, recv = sock.send, sock.recv
        perf = time.perf_counter_ns
        for i in range(args.warmup):
            msg = _zmq_payload(i, filler)
            send(msg)
            if recv() != msg:
                raise RuntimeError("warm-up: wrong echo")

        latencies: list[int] = []
        for i in range(args.n):
            msg = _zmq_payload(i, filler)
            t0 = perf()
            send(msg)
            reply = recv()
            latencies.append(perf() - t0)
            if reply != msg:
                raise RuntimeError(f"latency: wrong echo for request {i}")

        calls, window = args.calls, min(args.inflight, args.calls)
        outstanding: set[int] = set()
        sent = received = 0
        t0 = perf()
        while sent < window:
            send(_zmq_payload(sent, filler))
            outstanding.add(sent)
            sent += 1
        while received < calls:
            reply = recv()
            seq = int.from_bytes(reply[:SEQ_BYTES], "little")
            if seq not in outstanding or len(reply) != args.payload:
                raise RuntimeError(f"throughput: unexpected reply for request {seq}")
            outstanding.discard(seq)
            received += 1
            if sent < calls:
                send(_zmq_payload(sent, filler))
                outstanding.add(sent)
                sent += 1
        elapsed = (perf() - t0) / 1e9
    finally:
        sock.close(0)
        ctx.term()
    report("result", json.dumps(_figures(latencies, calls, elapsed, window)))


# --- proxy_asyncio: the proxy with zmq.asyncio peers -------------------------------------------


def role_aio_worker(args: argparse.Namespace) -> None:
    """An asyncio DEALER on the proxy's backend that echoes as `proxy-worker` does."""
    import zmq.asyncio

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(args.endpoint)
        report("ready")
        while True:
            await sock.send_multipart(await sock.recv_multipart())

    _run_async(main)


def role_aio_client(args: argparse.Namespace) -> None:
    """`zmq-client`'s measurements from asyncio: sequential awaits, then `inflight` tasks each
    sending a request and awaiting its reply, which one reader task matches by sequence number
    (the shape of the bus client: a future per call, resolved by the socket's reader)."""
    import anyio
    import zmq.asyncio

    figures: list[Figures] = []

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(args.endpoint)
        try:
            with anyio.fail_after(HANDSHAKE_TIMEOUT):
                while True:  # queued until connected, so one ping normally suffices
                    await sock.send(b"ping")
                    if await sock.poll(1000) and await sock.recv() == b"ping":
                        break
            filler = os.urandom(args.payload - SEQ_BYTES)
            perf = time.perf_counter_ns
            latencies: list[int] = []
            for i in range(args.warmup + args.n):
                msg = _zmq_payload(i, filler)
                t0 = perf()
                await sock.send(msg)
                reply = await sock.recv()
                if i >= args.warmup:
                    latencies.append(perf() - t0)
                if reply != msg:
                    raise RuntimeError(f"latency: wrong echo for request {i}")

            calls, window = args.calls, min(args.inflight, args.calls)
            loop = asyncio.get_running_loop()
            waiting: dict[int, asyncio.Future[bytes]] = {}
            sent = 0

            async def reader() -> None:
                for _ in range(calls):
                    reply = await sock.recv()
                    waiting.pop(int.from_bytes(reply[:SEQ_BYTES], "little")).set_result(reply)

            async def worker() -> None:
                nonlocal sent
                while sent < calls:
                    seq, sent = sent, sent + 1
                    future = waiting[seq] = loop.create_future()
                    await sock.send(_zmq_payload(seq, filler))
                    if len(await future) != args.payload:
                        raise RuntimeError(f"throughput: wrong echo for request {seq}")

            t0 = perf()
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                for _ in range(window):
                    tg.start_soon(worker)
            figures.append(_figures(latencies, calls, (perf() - t0) / 1e9, window))
        finally:
            sock.close(0)
            ctx.term()

    _run_async(main)
    report("result", json.dumps(figures[0]))


# --- bus -------------------------------------------------------------------------------------


@contextmanager
def _maybe_profile(args: argparse.Namespace) -> Iterator[None]:
    if not args.profile:
        yield
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        os.makedirs(args.profile, exist_ok=True)
        path = os.path.join(args.profile, f"{args.role}.prof")
        profiler.dump_stats(path)
        print(f"bench: wrote {path}", file=sys.stderr, flush=True)


def _run_async(main: Callable[[], Awaitable[None]]) -> None:
    """anyio on asyncio; a selector loop on Windows, which the bus's zmq descriptor needs."""
    import anyio

    options: dict[str, Any] = {}
    if sys.platform == "win32":
        options["loop_factory"] = asyncio.SelectorEventLoop
    anyio.run(main, backend="asyncio", backend_options=options)


def role_broker(args: argparse.Namespace) -> None:
    """The bus's broker on `--endpoint` (default: a free loopback port); stops (and writes its
    profile) when stdin closes."""
    from broker import Broker, BrokerConfig

    bus = Broker(BrokerConfig(endpoint=args.endpoint or LOOPBACK))
    on_stdin_eof(bus.stop)
    report("ready", bus.endpoint)
    with _maybe_profile(args):
        bus.serve_forever()


def _echo(text: str) -> str:
    return text


def role_provider(args: argparse.Namespace) -> None:
    """`BenchServer`, providing the func gate `BenchServer.Echo` with a sync handler."""
    import broker

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def stop_soon() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(stop.set)

        on_stdin_eof(stop_soon)
        async with broker.connect(args.endpoint, "BenchServer", connect_timeout=HANDSHAKE_TIMEOUT) as pi:
            pi.get_ipc_provider("BenchServer.Echo", params=(str,), returns=str).register_func(_echo)
            report("ready")
            await stop.wait()

    with _maybe_profile(args):
        _run_async(main)


def bus_text(size: int) -> str:
    """A str whose JSON encoding is `size` bytes (the argument array adds 2 more)."""
    return "b" * (size - 2)


def role_bus_client(args: argparse.Namespace) -> None:
    """`BenchClient`: sequential awaits, then `inflight` tasks each awaiting calls in a loop."""
    import anyio

    import broker

    text = bus_text(args.payload)
    assert len(json.dumps(text)) == args.payload
    figures: list[Figures] = []

    async def main() -> None:
        async with broker.connect(args.endpoint, "BenchClient", connect_timeout=HANDSHAKE_TIMEOUT) as pi:
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
            figures.append(_figures(latencies, calls, elapsed, window))

    with _maybe_profile(args):
        _run_async(main)
    report("result", json.dumps(figures[0]))


# --- the parent: start the setups one after the other ------------------------------------------


def _client_args(args: argparse.Namespace, endpoint: str) -> list[str]:
    out = ["--endpoint", endpoint, "--warmup", str(args.warmup), "--n", str(args.n), "--payload", str(args.payload)]
    out += ["--calls", str(args.calls), "--inflight", str(args.inflight)]
    if args.profile:
        out += ["--profile", args.profile]
    return out


def _result_timeout(args: argparse.Namespace) -> float:
    # A failsafe only: generous enough for a slow, busy or profiled machine.
    iterations: int = args.warmup + args.n + args.calls
    return 60.0 + iterations * 0.005


def _client_result(children: Children, role: str, args: argparse.Namespace, endpoint: str) -> Figures:
    client = children.start(role, *_client_args(args, endpoint))
    figures: Figures = json.loads(client.expect("result", _result_timeout(args)))
    return figures


def run_floor(args: argparse.Namespace) -> Figures:
    with Children(MODULE) as children:
        endpoint = children.start("floor-server").expect("ready", READY_TIMEOUT)
        return _client_result(children, "zmq-client", args, endpoint)


def run_proxy(args: argparse.Namespace) -> Figures:
    with Children(MODULE) as children:
        front, back = children.start("proxy").expect("ready", READY_TIMEOUT).split()
        children.start("proxy-worker", "--endpoint", back).expect("ready", READY_TIMEOUT)
        return _client_result(children, "zmq-client", args, front)


def run_proxy_asyncio(args: argparse.Namespace) -> Figures:
    with Children(MODULE) as children:
        front, back = children.start("proxy").expect("ready", READY_TIMEOUT).split()
        children.start("aio-worker", "--endpoint", back).expect("ready", READY_TIMEOUT)
        return _client_result(children, "aio-client", args, front)


def run_bus(args: argparse.Namespace, bind: str | None = None) -> Figures:
    extra = ["--profile", args.profile] if args.profile else []
    where = ["--endpoint", bind] if bind else []
    with Children(MODULE) as children:
        endpoint = children.start("broker", *where, *extra, graceful=True).expect("ready", READY_TIMEOUT)
        children.start("provider", "--endpoint", endpoint, *extra, graceful=True).expect("ready", READY_TIMEOUT)
        return _client_result(children, "bus-client", args, endpoint)


IPC_NOTE = "bus_ipc skipped: this platform has no ipc:// transport (Windows)"


def ipc_available() -> bool:
    return sys.platform != "win32" and zmq.has("ipc")


def run_bus_ipc(args: argparse.Namespace) -> Figures:
    with tempfile.TemporaryDirectory(prefix="xivbus-") as folder:  # short: ipc paths max ~100 bytes
        return run_bus(args, f"ipc://{os.path.join(folder, 'bus')}")


RUNNERS: dict[str, Callable[[argparse.Namespace], Figures]] = {
    "floor": run_floor,
    "proxy": run_proxy,
    "proxy_asyncio": run_proxy_asyncio,
    "bus": run_bus,
    "bus_ipc": run_bus_ipc,
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
)
"""The targets first; then what asyncio costs by itself (proxy_asyncio against proxy), what our
broker and peers cost beyond it (bus against proxy_asyncio), and what tcp costs against ipc."""


def _met(ratio: Ratio, value: float) -> bool:
    assert ratio.target is not None
    return value <= ratio.target if ratio.figure == "median_us" else value >= ratio.target


def summarise(results: dict[str, Figures], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in SETUPS:
        fig = results.get(name)
        out[f"{name}_median_us"] = None if fig is None else round(fig["median_us"], 1)
        out[f"{name}_p99_us"] = None if fig is None else round(fig["p99_us"], 1)
        out[f"{name}_rps"] = None if fig is None else round(fig["rps"])
    for ratio in RATIOS:
        top, bottom = results.get(ratio.top), results.get(ratio.bottom)
        value = None
        if top is not None and bottom is not None and bottom[ratio.figure]:
            value = top[ratio.figure] / bottom[ratio.figure]
        out[ratio.key] = None if value is None else round(value, 3)
    out["median_target"] = MEDIAN_TARGET
    out["rps_target"] = RPS_TARGET
    for ratio in RATIOS[:2]:
        out[ratio.key.replace("_ratio", "_ok")] = None if out[ratio.key] is None else _met(ratio, out[ratio.key])
    out["config"] = {
        "payload_bytes": args.payload,
        "warmup": args.warmup,
        "latency_round_trips": args.n,
        "throughput_calls": args.calls,
        "inflight": args.inflight,
        "rounds": args.rounds,
        "python": platform.python_version(),
        "pyzmq": zmq.pyzmq_version(),
        "libzmq": zmq.zmq_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
    return out


def render(summary: dict[str, Any], elapsed: float) -> str:
    cfg = summary["config"]
    lines = [
        f"bus benchmark: {cfg['payload_bytes']}-byte payload, separate processes, tcp loopback unless named; "
        f"{cfg['latency_round_trips']} sequential round trips, {cfg['throughput_calls']} calls with "
        f"{cfg['inflight']} in flight (warm-up {cfg['warmup']}); median of {cfg['rounds']} interleaved round(s)",
        f"python {cfg['python']}, pyzmq {cfg['pyzmq']}, libzmq {cfg['libzmq']}, {cfg['cpus']} CPUs, {cfg['platform']}",
        "",
        f"{'setup':<15}{'median us':>12}{'p99 us':>12}{'calls/s':>12}",
    ]
    lines.extend(
        f"{name:<15}{summary[f'{name}_median_us']:>12.1f}{summary[f'{name}_p99_us']:>12.1f}{summary[f'{name}_rps']:>12,}"
        for name in SETUPS
        if summary[f"{name}_median_us"] is not None
    )
    lines.append("")
    for ratio in RATIOS:
        value = summary[ratio.key]
        if value is None:
            continue
        text = f"{ratio.label:<34}= {value:5.2f}"
        if ratio.target is not None:
            sign = "<=" if ratio.figure == "median_us" else ">="
            text += f"   (target {sign} {ratio.target})  " + ("met" if _met(ratio, value) else "MISSED")
            rounds = summary.get(f"{ratio.key}_rounds") or []
            if len(rounds) > 1:
                text += "   rounds: " + ", ".join(f"{v:.2f}" for v in rounds)
        lines.append(text)
    lines += [f"note: {note}" for note in summary.get("notes", [])]
    lines.append(f"(run took {elapsed:.1f} s)")
    return "\n".join(lines)


def _combine(rounds: list[Figures]) -> Figures:
    """One setup's figures over several rounds: the median of each."""
    return Figures(
        median_us=statistics.median(f["median_us"] for f in rounds),
        p99_us=statistics.median(f["p99_us"] for f in rounds),
        rps=statistics.median(f["rps"] for f in rounds),
        latency_n=rounds[0]["latency_n"],
        throughput_n=rounds[0]["throughput_n"],
        inflight=rounds[0]["inflight"],
    )


def run_all(args: argparse.Namespace) -> int:
    setups = [s.strip() for s in args.setups.split(",") if s.strip()]
    unknown = [s for s in setups if s not in RUNNERS]
    if unknown:
        print(f"bench: unknown setup(s) {', '.join(unknown)}; choose from {', '.join(SETUPS)}", file=sys.stderr)
        return 2
    notes: list[str] = []
    if "bus_ipc" in setups and not ipc_available():
        setups.remove("bus_ipc")
        notes.append(IPC_NOTE)
    started = time.perf_counter()
    rounds: dict[str, list[Figures]] = {name: [] for name in SETUPS if name in setups}
    for r in range(args.rounds):
        # Interleaved, so a slow spell of the machine hits every setup alike.
        for name in rounds:
            print(f"bench: round {r + 1}/{args.rounds}: {name} …", file=sys.stderr, flush=True)
            rounds[name].append(RUNNERS[name](args))
    summary = summarise({name: _combine(figs) for name, figs in rounds.items()}, args)
    if "bus" in rounds and "proxy" in rounds:
        pairs = list(zip(rounds["bus"], rounds["proxy"], strict=True))
        summary["median_ratio_rounds"] = [round(b["median_us"] / p["median_us"], 3) for b, p in pairs]
        summary["rps_ratio_rounds"] = [round(b["rps"] / p["rps"], 3) for b, p in pairs]
    summary["notes"] = notes
    summary["rounds"] = rounds
    if args.json:
        print(json.dumps(summary))
    else:
        print(render(summary, time.perf_counter() - started))
    return 0


ROLES: dict[str, Callable[[argparse.Namespace], None]] = {
    "floor-server": role_floor_server,
    "proxy": role_proxy,
    "proxy-worker": role_proxy_worker,
    "zmq-client": role_zmq_client,
    "aio-worker": role_aio_worker,
    "aio-client": role_aio_client,
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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    if args.role is not None:
        ROLES[args.role](args)
        return 0
    quick = args.quick
    args.n = args.n if args.n is not None else (1000 if quick else 5000)
    args.calls = args.calls if args.calls is not None else (4000 if quick else 20000)
    args.warmup = args.warmup if args.warmup is not None else (200 if quick else 1000)
    args.rounds = args.rounds if args.rounds is not None else (1 if quick else 3)
    if min(args.n, args.calls, args.inflight, args.rounds) < 1 or args.warmup < 0 or args.payload < SEQ_BYTES + 2:
        print("bench: --n, --calls, --inflight, --rounds >= 1, --warmup >= 0, --payload >= 10", file=sys.stderr)
        return 2
    if args.profile:
        args.profile = os.path.abspath(args.profile)
    try:
        return run_all(args)
    except ChildError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
