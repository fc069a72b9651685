"""A plugin process for the multi-process bus tests: `python _peer_proc.py ENDPOINT ROLE NAME [ARGS]`.

Roles (each prints one line per event on stdout, flushed, so a test can wait on it):

provider NAME [--announce TEXT]
    Provides, all under its own prefix:
      NAME.Echo     func(str) -> str        returns its argument
      NAME.Add      func(int, int) -> int
      NAME.Maybe    func(str | None) -> str
      NAME.Caller   func() -> str           `broker.current_caller()` inside the handler
      NAME.Boom     func(str) -> str        raises ValueError(arg)
      NAME.Slow     func() -> str           prints "slow-started", then never answers
      NAME.Hang     func() -> str           never answers, quietly (for thousands of abandoned calls)
      NAME.Block    func(float) -> str      a sync handler: prints "block-started", blocks the event
                                            loop in time.sleep(ARG) seconds, returns "woke"
      NAME.Log      action(str)             prints "action ARG"
      NAME.Announce func(str) -> int        sends a message on NAME.News; returns its subscription count
      NAME.SubCount func() -> int           subscription_count of NAME.News
    prints "ready" once the broker shows every func registered. With --announce, then waits until
    NAME.News has a subscriber, sends TEXT on it and prints "announced".
subscriber NAME GATE...
    Subscribes to each GATE; prints "msg GATE SENDER JSON-ARGS" per message, and "ready" once the
    broker lists NAME among every GATE's subscribers.
watcher NAME
    Prints "joined PEER" / "left PEER REASON" for each peer change, after "ready".
caller NAME GATE
    Waits until GATE has a func, calls it with no arguments and prints "result JSON" or
    "error KIND MESSAGE"; then waits to be killed.

Every role prints "lost" when it loses its connection to the bus, and "reconnected" when the
connection comes back after a loss.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import anyio

import broker


def say(*parts: object) -> None:
    print(*parts, flush=True)


async def provider(pi: broker.PluginInterface, name: str, announce: str | None) -> None:
    news = pi.get_ipc_provider(f"{name}.News", params=(str,))

    def echo(text: str) -> str:
        return text

    def add(a: int, b: int) -> int:
        return a + b

    def maybe(text: str | None) -> str:
        return "null" if text is None else text

    def caller() -> str:
        return broker.current_caller()

    def boom(text: str) -> str:
        raise ValueError(text)

    async def slow() -> str:
        say("slow-started")
        await anyio.sleep(3600)  # simulates a hung handler; the test kills this process
        return "never"

    async def hang() -> str:
        await anyio.sleep(3600)
        return "never"

    def block(seconds: float) -> str:
        say("block-started")
        time.sleep(seconds)  # blocks the whole event loop, as a busy sync handler does (B1)
        return "woke"

    def log(text: str) -> None:
        say("action", text)

    def announce_func(text: str) -> int:
        news.send_message(text)
        return news.subscription_count

    def sub_count() -> int:
        return news.subscription_count

    funcs: list[tuple[str, tuple[object, ...], object, Any]] = [
        ("Echo", (str,), str, echo),
        ("Add", (int, int), int, add),
        ("Maybe", (str | None,), str, maybe),
        ("Caller", (), str, caller),
        ("Boom", (str,), str, boom),
        ("Slow", (), str, slow),
        ("Hang", (), str, hang),
        ("Block", (float,), str, block),
        ("Announce", (str,), int, announce_func),
        ("SubCount", (), int, sub_count),
    ]
    for suffix, params, returns, handler in funcs:
        pi.get_ipc_provider(f"{name}.{suffix}", params=params, returns=returns).register_func(handler)
    pi.get_ipc_provider(f"{name}.Log", params=(str,)).register_action(log)

    subs = [pi.get_ipc_subscriber(f"{name}.{suffix}") for suffix, *_ in funcs]
    await pi.wait_until(lambda: all(s.has_function() for s in subs))
    await pi.get_ipc_subscriber(f"{name}.Log").wait_ready("action")
    say("ready")
    if announce is not None:
        await pi.wait_until(lambda: news.subscription_count > 0)
        news.send_message(announce)
        say("announced")


async def subscriber(pi: broker.PluginInterface, name: str, gates: list[str]) -> None:
    for gate in gates:

        def on_message(*args: object, gate: str = gate) -> None:
            say("msg", gate, broker.current_caller(), json.dumps(list(args)))

        pi.get_ipc_subscriber(gate).subscribe(on_message)

    def subscribed() -> bool:
        return all((info := pi.gate(g)) is not None and name in info.subscribers for g in gates)

    await pi.wait_until(subscribed)
    say("ready")


async def watcher(pi: broker.PluginInterface) -> None:
    def on_peer(peer: str, joined: bool, reason: str) -> None:
        if joined:
            say("joined", peer)
        else:
            say("left", peer, reason)

    pi.on_peer_change(on_peer)
    say("ready")


async def caller(pi: broker.PluginInterface, gate: str) -> None:
    sub = pi.get_ipc_subscriber(gate)
    await sub.wait_ready()
    try:
        result = await sub.invoke_func()
    except broker.IpcError as exc:
        say("error", type(exc).__name__, exc)
    else:
        say("result", json.dumps(result))


async def main(argv: list[str]) -> None:
    endpoint, role, name, *rest = argv
    async with broker.connect(endpoint, name) as pi:
        lost = False

        def on_connection(connected: bool) -> None:
            nonlocal lost
            if not connected:
                lost = True
                say("lost")
            elif lost:
                lost = False
                say("reconnected")

        pi.on_connection_change(on_connection)
        if role == "provider":
            announce = rest[rest.index("--announce") + 1] if "--announce" in rest else None
            await provider(pi, name, announce)
        elif role == "subscriber":
            await subscriber(pi, name, rest)
        elif role == "watcher":
            await watcher(pi)
        elif role == "caller":
            await caller(pi, rest[0])
        else:
            raise SystemExit(f"unknown role {role!r}")
        await anyio.sleep_forever()  # serve until the test kills this process


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
