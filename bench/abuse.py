"""What an abusive peer costs everyone else on the bus (S2), between separate processes.

    python -m bench.abuse            # every attack, a table
    python -m bench.abuse --quick    # shorter windows, smaller attacks
    python -m bench.abuse --json     # the same figures as one JSON object on stdout
    python -m bench.abuse --attacks slow_reader,many_names

For each attack a fresh broker starts, with a provider (`Svc`, a sync `Svc.Echo`) and four honest
peers (`Honest0`..`Honest3`, each its own process) calling it one call after another. The honest
peers first make calls for a window with nobody attacking (quiet), then for a window of the same
length while the attacker child runs the attack (`bench/_attacks.py`: raw ZeroMQ clients speaking
the wire format, on 127.0.0.1 only, every loop bounded in count and time). Per attack it prints
the honest calls answered in each window, their p99 in the attack window against the quiet one,
the honest peers dropped (the bus lost them: must be 0), the broker's peak resident memory, and
what the broker told the attacker.

Children are `python -m bench.abuse --role ROLE`; they report `ready …` and `result {json}` on
stdout, and take `run SECONDS` / `report` on stdin.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ._cli import fill_defaults, refuse, run_parent, run_role, subset
from ._proc import Child, Children, memory_mb, on_stdin_eof, report, run_async
from ._report import Column, environment, environment_line, say, table
from ._stats import percentile, sorted_us
from ._zmq_peers import HANDSHAKE_TIMEOUT, LOOPBACK

MODULE = "bench.abuse"
HONEST = 4
READY_TIMEOUT = 30.0
ATTACK_NAMES = (
    "poisoned_provide",
    "amplify_batch",
    "control_flood",
    "slow_reader",
    "long_incarnation",
    "many_names",
    "many_connections",
)
MAX_CALLS = 200_000
"""An honest peer's calls in one window, at most (the window's length bounds it first)."""


# --- the children --------------------------------------------------------------------------------


def role_broker(args: argparse.Namespace) -> None:
    from broker import Broker, BrokerConfig

    bus = Broker(BrokerConfig(endpoint=LOOPBACK))
    on_stdin_eof(bus.stop)
    report("ready", bus.endpoint)
    bus.serve_forever()


def _commands() -> Callable[[], Any]:
    """The next line of stdin ('' at EOF), read in a thread."""
    import anyio.to_thread

    return lambda: anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)


def role_peer(args: argparse.Namespace) -> None:
    """`Svc` (providing Svc.Echo) or an honest caller; `run S` makes calls for S seconds, `report`
    says how often it lost the bus."""
    import anyio

    import broker

    async def main() -> None:
        read_line = _commands()
        async with broker.connect(args.endpoint, args.name, connect_timeout=HANDSHAKE_TIMEOUT) as pi:
            lost: list[str] = []
            pi.on_connection_change(lambda up: None if up else lost.append("lost"))
            if args.name == "Svc":
                pi.get_ipc_provider("Svc.Echo", params=(str,), returns=str).register_func(lambda text: text)
            echo = pi.get_ipc_subscriber("Svc.Echo")
            with anyio.fail_after(HANDSHAKE_TIMEOUT):
                await echo.wait_ready()
            report("ready")
            while line := (await read_line()).split():
                answered, errors, latencies = 0, 0, []
                if line[0] == "run":
                    end = time.monotonic() + float(line[1])
                    perf = time.perf_counter_ns
                    while time.monotonic() < end and answered + errors < MAX_CALLS:
                        start = perf()
                        try:
                            with anyio.fail_after(10):
                                await echo.invoke_func("honest")
                            answered += 1
                            latencies.append(perf() - start)
                        except (broker.IpcError, TimeoutError):
                            errors += 1
                us = sorted_us(latencies)
                result = {"answered": answered, "errors": errors, "p99_us": percentile(us, 0.99), "lost": len(lost)}
                report("result", json.dumps(result))

    run_async(main)


def role_attack(args: argparse.Namespace) -> None:
    import zmq

    from ._attacks import ATTACKS

    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, 4096)  # many_connections opens more than the default 1,023
    try:
        done = ATTACKS[args.attack](ctx, args.endpoint, time.monotonic() + args.seconds, args.quick)
    finally:
        ctx.destroy(linger=0)
    report("result", json.dumps(done))


# --- the parent ----------------------------------------------------------------------------------


def _window(peers: Sequence[Child], seconds: float) -> dict[str, Any]:
    """Every honest peer calls for `seconds`; their calls answered, errors, the worst p99."""
    for peer in peers:
        peer.send(f"run {seconds}")
    results = [json.loads(peer.expect("result", seconds + 60)) for peer in peers]
    return {
        "answered": sum(r["answered"] for r in results),
        "errors": sum(r["errors"] for r in results),
        "p99_us": max(r["p99_us"] for r in results),
    }


def run_attack(name: str, args: argparse.Namespace) -> dict[str, Any]:
    with Children(MODULE) as children:
        bus = children.start("broker")
        endpoint = bus.expect("ready", READY_TIMEOUT)
        svc = children.start("peer", "--endpoint", endpoint, "--name", "Svc")
        svc.expect("ready", READY_TIMEOUT)
        honest = [children.start("peer", "--endpoint", endpoint, "--name", f"Honest{i}") for i in range(HONEST)]
        for peer in honest:
            peer.expect("ready", READY_TIMEOUT)
        quiet = _window(honest, args.seconds)
        attacker = children.start(
            "attack",
            "--endpoint",
            endpoint,
            "--attack",
            name,
            "--seconds",
            str(args.seconds),
            *(["--quick"] if args.quick else []),
            quiet=True,
        )
        done: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: done.update(json.loads(attacker.expect("result", args.seconds + 60))))
        thread.start()
        attacked = _window(honest, args.seconds)
        thread.join(args.seconds + 90)
        dropped = 0
        for peer in [svc, *honest]:
            peer.send("report")
            dropped += json.loads(peer.expect("result", 30))["lost"]
        peak = memory_mb(bus.pid).peak_mb
    return {
        "quiet_answered": quiet["answered"],
        "answered": attacked["answered"],
        "errors": attacked["errors"],
        "quiet_p99_us": quiet["p99_us"],
        "p99_us": attacked["p99_us"],
        "p99_ratio": round(attacked["p99_us"] / quiet["p99_us"], 2) if quiet["p99_us"] else None,
        "dropped": dropped,
        "broker_peak_mb": peak,
        "attack": done,
    }


COLUMNS = (
    Column("attack", 18, align="<"),
    Column("quiet calls", 12, ","),
    Column("answered", 10, ","),
    Column("errors", 8, ","),
    Column("quiet p99 us", 14, ",.0f"),
    Column("p99 us", 10, ",.0f"),
    Column("x", 7, ".2f"),
    Column("dropped", 9),
    Column("broker MB", 11, ".0f"),
)


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"bench.abuse: {HONEST} honest peers calling a provider while one peer attacks the broker "
        f"({summary['seconds']:g} s windows)",
        environment_line(summary["config"]),
    ]
    rows = [
        [
            name,
            r["quiet_answered"],
            r["answered"],
            r["errors"],
            r["quiet_p99_us"],
            r["p99_us"],
            r["p99_ratio"] or 0.0,
            r["dropped"],
            r["broker_peak_mb"] or 0.0,
        ]
        for name, r in summary["attacks"].items()
    ]
    lines += table(COLUMNS, rows)
    for name, r in summary["attacks"].items():
        said = r["attack"].get("said")
        extra = {k: v for k, v in r["attack"].items() if k != "said"}
        lines.append(f"{name}: {json.dumps(extra)}" + (f"; the broker said: {said}" if said else ""))
    total = sum(r["dropped"] for r in summary["attacks"].values())
    lines.append(f"honest peers dropped: {total} (must be 0)")
    return "\n".join(lines)


def run_all(args: argparse.Namespace) -> int:
    names = subset(args.attacks, ATTACK_NAMES, "attack")
    if names is None:
        return 2
    results: dict[str, Any] = {}
    for name in names:
        say(f"{name} …")
        results[name] = run_attack(name, args)
    import msgspec
    import zmq

    summary = {
        "config": environment(pyzmq=zmq.__version__, msgspec=msgspec.__version__),
        "seconds": args.seconds,
        "attacks": results,
    }
    print(json.dumps(summary) if args.json else render(summary))
    return 0 if all(r["dropped"] == 0 for r in results.values()) else 1


ROLES: dict[str, Callable[[argparse.Namespace], None]] = {
    "broker": role_broker,
    "peer": role_peer,
    "attack": role_attack,
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.abuse", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="shorter windows and smaller attacks")
    p.add_argument("--seconds", type=float, default=None, help="each window's length (default 5; --quick 2)")
    p.add_argument("--attacks", default=",".join(ATTACK_NAMES), help=f"a subset of {','.join(ATTACK_NAMES)}")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--role", choices=sorted(ROLES), default=None, help=argparse.SUPPRESS)
    p.add_argument("--endpoint", default=None, help=argparse.SUPPRESS)
    p.add_argument("--name", default=None, help=argparse.SUPPRESS)
    p.add_argument("--attack", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.role is None:
        fill_defaults(args, seconds=(2.0, 5.0))
    if run_role(args, ROLES):
        return 0
    if not 0 < args.seconds <= 120:
        return refuse("--seconds must be more than 0 and at most 120")
    return run_parent(run_all, args)


if __name__ == "__main__":
    sys.exit(main())
