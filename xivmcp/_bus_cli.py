"""`xivmcp broker` and `xivmcp gate …`: the bus from the shell."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio

from broker import Broker, BrokerConfig, CurveServer, IpcError, connect, note_bus
from gates.contract import escaped
from gates.datadir import owner_only_dir

from ._common import bus_curve, cli_peer_name, print_err, run_async


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("broker", parents=[common], help="run the bus (the plugin framework's IPC)")
    p.add_argument("--max-payload", type=int, default=None, help="largest payload in bytes (default 1 MiB)")
    p.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback address")
    p.set_defaults(func=cmd_broker, runs_bus=True)

    gate = sub.add_parser("gate", help="look at and call gates on the bus")
    gsub = gate.add_subparsers(dest="gate_cmd", required=True)
    g = gsub.add_parser("list", parents=[common], help="every gate: provider, func/action, signature, subscribers")
    g.add_argument("--json", action="store_true", help="print JSON")
    g.set_defaults(func=cmd_gate_list, finds_system=True)
    g = gsub.add_parser("call", parents=[common], help="invoke a func gate; each ARG is JSON if it parses")
    g.add_argument("name")
    g.add_argument("args", nargs="*")
    g.add_argument("--as", dest="as_name", default=None, help="InternalName to call as")
    g.add_argument("--action", action="store_true", help="invoke the gate's action instead of its func")
    g.set_defaults(func=cmd_gate_call, finds_system=True)
    g = gsub.add_parser("watch", parents=[common], help="print each message sent on a gate")
    g.add_argument("name")
    g.add_argument("--count", type=int, default=0, help="exit after this many messages (0: never)")
    g.set_defaults(func=cmd_gate_watch, finds_system=True)


def build_broker_config(args: argparse.Namespace) -> BrokerConfig:
    """The broker's configuration; with `--curve` (or a non-loopback `--bus`), the data dir's CURVE
    keys, made on first use in the owner-only data dir (S4)."""
    curve = None
    if getattr(args, "curve", False):
        data_dir = Path(args.data_dir)
        owner_only_dir(data_dir)
        curve = CurveServer.in_dir(data_dir)
    config = BrokerConfig(endpoint=args.bus, allow_remote=getattr(args, "allow_remote", False), curve=curve)
    if getattr(args, "max_payload", None):
        config = dataclasses.replace(config, max_payload=args.max_payload)
    return config


def cmd_broker(args: argparse.Namespace) -> int:
    try:
        broker = Broker(build_broker_config(args))
    except (IpcError, OSError) as exc:
        print_err(str(exc))
        return 2
    signal.signal(signal.SIGTERM, lambda *_: broker.stop())
    signal.signal(signal.SIGINT, lambda *_: broker.stop())
    print(f"xivmcp broker: listening on {broker.endpoint} (pid {os.getpid()})", flush=True)
    if broker.config.curve is not None:
        note_bus(Path(args.data_dir), broker.endpoint, broker.config.curve.public)
        print(
            f"xivmcp broker: CURVE on: only keys in {args.data_dir} join (public key {broker.config.curve.public})",
            flush=True,
        )
    broker.serve_forever()
    return 0


def parse_arg(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_gate_list(args: argparse.Namespace) -> int:
    async def run() -> int:
        async with connect(args.bus, cli_peer_name(), curve=bus_curve(args)) as pi:
            gates = await pi.list_gates()
        if args.json:
            print(json.dumps([_gate_json(g) for g in gates], indent=2))
            return 0
        if not gates:
            print("no gates on the bus")
        for g in gates:
            parts = []
            for kind, slot in (("func", g.func), ("action", g.action)):
                if slot is not None:
                    sig = ", ".join(slot.params)
                    ret = f" -> {slot.returns}" if slot.returns else ""
                    parts.append(f"{kind}({sig}){ret} by {slot.provider}")
            subs = f"; subscribers: {', '.join(g.subscribers)}" if g.subscribers else ""
            print(escaped(f"{g.name}: {'; '.join(parts) or 'no provider'}{subs}"))  # peers chose these names (S3)
        return 0

    return run_async(run, verbose=args.verbose)


def _gate_json(g: Any) -> dict[str, Any]:
    def slot(s: Any) -> dict[str, Any] | None:
        return None if s is None else {"provider": s.provider, "params": list(s.params), "returns": s.returns}

    return {
        "name": g.name,
        "func": slot(g.func),
        "action": slot(g.action),
        "subscribers": list(g.subscribers),
        "subscriptions": g.subscriptions,
    }


def cmd_gate_call(args: argparse.Namespace) -> int:
    async def run() -> int:
        values = [parse_arg(a) for a in args.args]
        async with connect(args.bus, args.as_name or cli_peer_name(), curve=bus_curve(args)) as pi:
            sub = pi.get_ipc_subscriber(args.name)
            try:
                if args.action:
                    await sub.invoke_action(*values)
                    result: Any = None
                else:
                    result = await sub.invoke_func(*values)
            except IpcError as exc:
                print_err(f"{type(exc).__name__}: {exc}")  # the framework's own error kind, as a plugin sees it
                return 1
        print(escaped(result) if isinstance(result, str) else json.dumps(result))  # a peer's text (S3)
        return 0

    return run_async(run, verbose=args.verbose)


def cmd_gate_watch(args: argparse.Namespace) -> int:
    async def run() -> int:
        seen = 0
        done = anyio.Event()

        def on_message(*values: Any) -> None:
            nonlocal seen
            seen += 1
            print(json.dumps(list(values)), flush=True)
            if args.count and seen >= args.count:
                done.set()

        async with connect(args.bus, cli_peer_name(), curve=bus_curve(args)) as pi:
            pi.get_ipc_subscriber(args.name).subscribe(on_message)
            print(f"watching {args.name} on {pi.endpoint}", file=sys.stderr, flush=True)
            await done.wait()
        return 0

    return run_async(run, verbose=args.verbose)
