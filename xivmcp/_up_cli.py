"""`xivmcp host` and `xivmcp up`: the XIV MCP host alone, or the whole system at once."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio

from gates import HostConfig, run_host

from ._common import print_err, run_async


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    host_opts = argparse.ArgumentParser(add_help=False)
    host_opts.add_argument(
        "--auto-enable", action="store_true", help="enable every plugin and allow its capabilities (tests, CI)"
    )
    host_opts.add_argument(
        "--test-clock", action="store_true", help="a manual clock moved by `xivmcp advance-clock` (tests only)"
    )
    p = sub.add_parser("host", parents=[common, host_opts], help="run the XIV MCP host (InternalName XivMcp)")
    p.set_defaults(func=cmd_host)
    p = sub.add_parser("up", parents=[common, host_opts], help="run broker and host together")
    p.set_defaults(func=cmd_up)


def host_config(args: argparse.Namespace) -> HostConfig:
    return HostConfig(
        bus=args.bus,
        data_dir=Path(args.data_dir),
        auto_enable=args.auto_enable,
        test_clock=args.test_clock,
    )


def cmd_host(args: argparse.Namespace) -> int:
    config = host_config(args)

    async def main() -> int:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_stop_on_signal, tg.cancel_scope)
            await run_host(config, on_ready=lambda: print(f"xivmcp host: ready on {config.bus}", flush=True))
            tg.cancel_scope.cancel()
        return 0

    return run_async(main)


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    if sys.platform == "win32":
        return  # Ctrl-C arrives as KeyboardInterrupt there
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


def cmd_up(args: argparse.Namespace) -> int:
    """Start broker and host as child processes; stop both when either ends or on Ctrl-C."""
    Path(args.data_dir).mkdir(parents=True, exist_ok=True)
    common = ["--bus", args.bus, "--data-dir", args.data_dir] + (["-v"] if args.verbose else [])
    extra = (["--auto-enable"] if args.auto_enable else []) + (["--test-clock"] if args.test_clock else [])
    commands = [
        [sys.executable, "-m", "xivmcp", "broker", *common],
        [sys.executable, "-m", "xivmcp", "host", *common, *extra],
    ]
    children: list[subprocess.Popen[Any]] = []
    ended = threading.Event()

    def watch(proc: subprocess.Popen[Any]) -> None:
        proc.wait()
        ended.set()

    previous = signal.signal(signal.SIGTERM, lambda *_: ended.set())
    try:
        for command in commands:
            proc = subprocess.Popen(command)
            children.append(proc)
            threading.Thread(target=watch, args=(proc,), daemon=True).start()
        print(f"xivmcp up: bus {args.bus}, data in {args.data_dir}; Ctrl-C stops everything", flush=True)
        try:
            ended.wait()
        except KeyboardInterrupt:
            pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        for proc in reversed(children):  # the host first: it says Disposing while the bus is up
            _stop(proc)
    failed = [p for p in children if p.returncode not in (0, -signal.SIGTERM, 130)]
    if failed:
        print_err(f"xivmcp up: {len(failed)} process(es) ended with an error")
        return 1
    return 0


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
