"""`xivmcp status`: what runs where, and what to do when something does not.

    data dir   /home/me/.local/share/xivmcp
    host       running (pid 4242, since 2026-12-01T10:00:00Z)
    bus        tcp://127.0.0.1:37520: answers
    MCP        http://127.0.0.1:37521/mcp: answers (XivMcp 0.1.0, protocol 2025-11-25)
    game       running (the simulated game; `xivmcp game state` shows the world)
    plugins    MyPlugin, RawPlugin

Exit 0 when the host runs and answers, 2 otherwise (each line that is not fine says what to do).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import msgspec

from broker import IpcError, connect
from game import GAME_NAME
from gates.contract import HOST_NAME, Gate, escaped, read_runtime
from gates.mcp import read_mcp_token

from ._common import bus_curve, cli_peer_name, run_async
from ._connect_cli import check_guarded, endpoint_url

BUS_SECONDS = 1.5
"""How long `status` waits for the bus to answer."""


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "status",
        parents=[common],
        help="what runs where: host, bus, MCP endpoint, plugins",
        epilog="Exit codes: 0 the host runs and answers, 2 otherwise (each line that is not fine says what to do).",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_status, finds_system=True)


def cmd_status(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir)
    running = read_runtime(data_dir)
    state: dict[str, Any] = {}

    async def look() -> int:
        bus: dict[str, Any] = {"endpoint": args.bus, "answers": False}
        host: dict[str, Any] = {"running": False}
        plugins: list[str] = []
        game: dict[str, Any] = {"running": False}
        try:
            async with connect(args.bus, cli_peer_name(), connect_timeout=BUS_SECONDS, curve=bus_curve(args)) as pi:
                bus["answers"] = True
                host["running"] = pi.get_ipc_subscriber(Gate.IS_READY).has_function()
                game["running"] = GAME_NAME in pi.peers
                others = (HOST_NAME, GAME_NAME)
                plugins = sorted(p for p in pi.peers if p not in others and not p.startswith("XivMcpCli"))
        except IpcError as exc:
            bus["problem"] = str(exc)
        state.update(bus=bus, host=host, game=game, plugins=plugins)
        return 0

    run_async(look, verbose=args.verbose)
    url = endpoint_url(None, data_dir, named=args.data_dir_named)
    try:
        token: str | None = read_mcp_token(data_dir)
    except FileNotFoundError:
        token = None
    mcp_answers, mcp_message = check_guarded(url, token, data_dir, timeout=BUS_SECONDS)  # S5
    runtime = None if running is None else msgspec.to_builtins(running)
    report = {"dataDir": str(data_dir), "runtime": runtime, **state, "mcp": {"url": url, "answers": mcp_answers}}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report, mcp_message)
    return 0 if state["host"]["running"] and state["bus"]["answers"] else 2


def _print(report: dict[str, Any], mcp_message: str) -> None:
    bus, host, runtime = report["bus"], report["host"], report["runtime"]
    print(f"data dir   {report['dataDir']}")
    if host["running"]:
        where = f"pid {runtime['pid']}, since {runtime['started']}" if runtime else "on the bus"
        print(f"host       running ({where})")
    elif runtime is not None:
        print(f"host       pid {runtime['pid']} runs, but is not on the bus {bus['endpoint']}: is it still starting?")
    else:
        print("host       not running: start everything with `xivmcp up` (or `xivmcp host` next to a broker)")
    if bus["answers"]:
        print(f"bus        {bus['endpoint']}: answers")
    else:
        print(f"bus        {bus['endpoint']}: nothing answers. Start it with `xivmcp up` (or `xivmcp broker`).")
    print(f"MCP        {mcp_message}")
    if report["game"]["running"]:
        print("game       running (the simulated game; `xivmcp game state` shows the world)")
    elif bus["answers"]:
        print("game       not running: start it with `xivmcp game` (`xivmcp up` starts it too)")
    plugins = report["plugins"]
    print(escaped(f"plugins    {', '.join(plugins) if plugins else 'none connected'}"))  # the peers' names (S3)
