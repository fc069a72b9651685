"""Soak: many plugins, many calls, processes killed and restarted under load (B2, B3, B4, B6, B7).

    python -m bench.soak                      # 10 plugins, 20,000 calls from 16 callers
    python -m bench.soak --calls 2000 --plugins 4 --callers 8
    python -m bench.soak --json               # the figures as one JSON object on stdout

A broker, the host (`--auto-enable`) and `--plugins` plugin processes run as real processes
(`gates.testing.XivMcpSystem`). `--callers` concurrent callers make `--calls` calls, as the
assistant would (`xivmcp call`'s path: the player's gate, the permission gate, the plugin's
Invoke), of tools that take 0 to 200 ms, while chaos kills -9 a random plugin every
`--kill-every` seconds and starts it again, restarts the host once (a third of the way) and the
broker once (two thirds of the way).

It prints the calls made and answered (with a result; with an error that names its cause: the
plugin, XIV MCP or the bus; with any other error), the calls never answered (must be 0: each
call has a 30 s limit), the calls answered with another call's result (must be 0), the longest
time from a kill to the last caller that was waiting on the killed plugin being answered (must
be under 3 s), and the broker's and host's pending-call tables at the end (must be empty).
Exit 0 only if every must holds. Not run in CI: it takes about a minute.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

import broker
from gates.player import PLAYER_HELLO_GATE, CallTool, HostStats, PlayerClient, PlayerError
from gates.testing import Process, XivMcpSystem

CALL_LIMIT = 30.0
DEFAULT_PLUGINS = 10
DEFAULT_CALLS = 20_000
DEFAULT_CALLERS = 16
KILL_ANSWER_TARGET = 3.0
NAMED_CAUSES = ("XivMcp", "XIV MCP", "broker", "bus", "Soak")


@dataclass
class SoakReport:
    plugins: int
    callers: int
    calls: int
    made: int = 0
    answered: int = 0
    results: int = 0
    named_errors: int = 0
    other_errors: int = 0
    never_answered: int = 0
    answered_wrong: int = 0
    kills: int = 0
    longest_kill_to_answer_s: float = 0.0
    host_restarts: int = 0
    broker_restarts: int = 0
    broker_pending_at_end: int = -1
    host_calls_at_end: int = -1
    seconds: float = 0.0
    other_error_samples: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.never_answered == 0
            and self.answered_wrong == 0
            and self.longest_kill_to_answer_s < KILL_ANSWER_TARGET
            and self.broker_pending_at_end == 0
            and self.host_calls_at_end == 0
        )


# --------------------------------------------------------------------------- the plugin process


async def plugin_main(name: str, bus: str) -> None:
    from gates.plugin import ToolDefinition, XivMcpClient

    async def work(args: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep(random.uniform(0, 0.2))
        return {"token": args.get("token"), "plugin": name}

    async with XivMcpClient(name, bus=bus) as mcp:
        tool = f"{name.lower()}_work"
        mcp.add_tool(
            ToolDefinition(name=tool, description="Waits up to 200 ms, then echoes its token.", read_only=True), work
        )
        await mcp.wait_registered()
        print(f"{name}: registered", flush=True)
        await anyio.sleep_forever()


# --------------------------------------------------------------------------- the driver


class Soak:
    def __init__(self, system: XivMcpSystem, report: SoakReport) -> None:
        self.system = system
        self.report = report
        self.names = [f"Soak{n}" for n in range(report.plugins)]
        self.procs: dict[str, Process] = {}
        self.next_call = 0
        self.in_flight: dict[int, str] = {}
        """Call number -> the plugin it went to, while the caller waits."""
        self.kill_watch: list[tuple[float, set[int]]] = []
        """(when a plugin was killed, the calls that were waiting on it and are not answered yet)."""
        self.done = anyio.Event()

    def start_plugin(self, name: str) -> Process:
        proc = self.system.start_plugin("bench.soak", "--role", "plugin", "--name", name, name=name)
        self.procs[name] = proc
        return proc

    async def call(self, player: PlayerClient, pi: broker.PluginInterface, number: int) -> None:
        report = self.report
        name = random.choice(self.names)
        token = f"t{number}"
        self.in_flight[number] = name
        report.made += 1
        outcome: str
        try:
            with anyio.fail_after(CALL_LIMIT):
                reply = await player.send(CallTool(tool=f"{name.lower()}_work", arguments={"token": token}))
            if not reply.is_error:
                outcome = "result" if isinstance(reply.result, dict) and reply.result.get("token") == token else "wrong"
            else:
                outcome = self._classify(str(reply.error))
        except PlayerError as exc:  # refused before it ran (the plugin is not connected right now)
            outcome = self._classify(exc.message)
        except TimeoutError:
            outcome = "never"
        except broker.IpcError as exc:
            outcome = self._classify(f"{type(exc).__name__}: {exc}")
            await self._wait_for_host(pi)
        finally:
            self.in_flight.pop(number, None)
            self._answered(number)
        match outcome:
            case "result":
                report.answered += 1
                report.results += 1
            case "wrong":
                report.answered += 1
                report.answered_wrong += 1
            case "never":
                report.never_answered += 1
            case "named":
                report.answered += 1
                report.named_errors += 1
            case _:
                report.answered += 1
                report.other_errors += 1

    def _classify(self, error: str) -> str:
        if any(cause in error for cause in NAMED_CAUSES):
            return "named"
        if len(self.report.other_error_samples) < 5:
            self.report.other_error_samples.append(error[:200])
        return "other"

    def _answered(self, number: int) -> None:
        now = time.monotonic()
        for killed_at, waiting in self.kill_watch:
            if number in waiting:
                waiting.discard(number)
                self.report.longest_kill_to_answer_s = max(self.report.longest_kill_to_answer_s, now - killed_at)

    async def _wait_for_host(self, pi: broker.PluginInterface) -> None:
        """After a bus error: wait for the bus and the host to be back (not a sleep: their state)."""
        with anyio.move_on_after(CALL_LIMIT):
            await pi.wait_connected()
            await pi.get_ipc_subscriber(PLAYER_HELLO_GATE).wait_ready()

    async def caller(self, player: PlayerClient, pi: broker.PluginInterface) -> None:
        while self.next_call < self.report.calls:
            number = self.next_call
            self.next_call += 1
            await self.call(player, pi, number)

    async def chaos(self, kill_every: float) -> None:
        system, report = self.system, self.report
        host_at, broker_at = report.calls // 3, 2 * report.calls // 3
        while not self.done.is_set():
            with anyio.move_on_after(kill_every):
                await self.done.wait()
            if self.done.is_set():
                return
            if report.host_restarts == 0 and self.next_call >= host_at:
                assert system.host is not None
                system.host.kill()
                report.host_restarts += 1
                await anyio.to_thread.run_sync(system.start_host)
            elif report.broker_restarts == 0 and self.next_call >= broker_at:
                assert system.broker is not None
                system.broker.kill()
                report.broker_restarts += 1
                await anyio.to_thread.run_sync(system.start_broker)
            else:
                name = random.choice(self.names)
                waiting = {n for n, plugin in self.in_flight.items() if plugin == name}
                self.procs[name].kill()
                self.kill_watch.append((time.monotonic(), waiting))
                report.kills += 1
                self.start_plugin(name)


async def drive(root: Path, report: SoakReport, kill_every: float) -> None:
    with XivMcpSystem(root, "--auto-enable", "--no-mcp") as system:
        system.start()
        soak = Soak(system, report)
        for name in soak.names:
            soak.start_plugin(name)
        for name in soak.names:
            await soak.procs[name].expect(f"{name}: registered", 30)
        started = time.monotonic()
        async with broker.connect(system.endpoint, "SoakDriver") as pi:
            player = PlayerClient.for_data_dir(pi, system.data_dir)
            async with anyio.create_task_group() as tg:
                tg.start_soon(soak.chaos, kill_every)
                async with anyio.create_task_group() as callers:
                    for _ in range(report.callers):
                        callers.start_soon(soak.caller, player, pi)
                soak.done.set()
            report.seconds = round(time.monotonic() - started, 1)
            with anyio.fail_after(CALL_LIMIT):
                await pi.get_ipc_subscriber(PLAYER_HELLO_GATE).wait_ready()
                report.host_calls_at_end = (await player.send(HostStats())).calls
                report.broker_pending_at_end = (await pi.broker_stats()).pending_calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=["driver", "plugin"], default="driver", help=argparse.SUPPRESS)
    parser.add_argument("--name", default="Soak0", help=argparse.SUPPRESS)
    parser.add_argument("--bus", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--plugins", type=int, default=DEFAULT_PLUGINS)
    parser.add_argument("--calls", type=int, default=DEFAULT_CALLS)
    parser.add_argument("--callers", type=int, default=DEFAULT_CALLERS)
    parser.add_argument("--kill-every", type=float, default=2.0, metavar="SECONDS")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    if args.role == "plugin":
        anyio.run(plugin_main, args.name, args.bus)
        return 0
    report = SoakReport(plugins=args.plugins, callers=args.callers, calls=args.calls)
    with tempfile.TemporaryDirectory(prefix="xivmcp-soak-") as root:
        anyio.run(drive, Path(root), report, args.kill_every)
    if args.json:
        print(json.dumps({**asdict(report), "ok": report.ok}))
        return 0 if report.ok else 1
    rows = [
        ("calls made", report.made),
        ("answered", report.answered),
        ("  with a result", report.results),
        ("  with an error naming the cause", report.named_errors),
        ("  with another error", report.other_errors),
        ("never answered (must be 0)", report.never_answered),
        ("answered with another call's result (must be 0)", report.answered_wrong),
        ("plugins killed -9 and restarted", report.kills),
        (
            f"longest kill -> last waiting caller answered, s (< {KILL_ANSWER_TARGET:g})",
            report.longest_kill_to_answer_s,
        ),
        ("host restarts / broker restarts", f"{report.host_restarts} / {report.broker_restarts}"),
        ("broker's pending calls at the end (must be 0)", report.broker_pending_at_end),
        ("host's calls under way at the end (must be 0)", report.host_calls_at_end),
        ("seconds", report.seconds),
    ]
    print(f"soak: {report.plugins} plugins, {report.calls:,} calls from {report.callers} callers")
    for label, value in rows:
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.3f}" if isinstance(value, float) else value
        print(f"{label:<62} {shown:>10}")
    for sample in report.other_error_samples:
        print(f"other error: {sample}")
    print("ok" if report.ok else "FAILED")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
