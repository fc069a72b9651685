"""`xivmcp host` and `xivmcp up`: the XIV MCP host alone, or the whole system (broker, game, host) at once."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from gates.contract import ENV_HTTP, bus_is_local
from gates.datadir import DataDirInUseError, DataDirLock, owner_only_dir
from gates.host import HostConfig
from gates.mcp import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    EndpointError,
    McpSettings,
    address_taken,
    check_bind_address,
    parse_http_address,
)

from ._common import bus_curve, print_err


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    host_opts = argparse.ArgumentParser(add_help=False)
    host_opts.add_argument(
        "--auto-enable", action="store_true", help="enable every plugin and allow its capabilities (tests, CI)"
    )
    host_opts.add_argument(
        "--test-clock", action="store_true", help="a manual clock moved by `xivmcp advance-clock` (tests only)"
    )
    host_opts.add_argument(
        "--simulator-extensions",
        action="store_true",
        help="also show AI apps what the real XIV MCP does not: outputSchema and structuredContent, "
        "a plugin's string result as plain text, progress notifications (MCP conformance runs)",
    )
    add_http_options(host_opts)
    p = sub.add_parser("host", parents=[common, host_opts], help="run the XIV MCP host (InternalName XivMcp)")
    p.set_defaults(func=cmd_host)
    p = sub.add_parser("up", parents=[common, host_opts], help="run broker, game and host together")
    p.add_argument(
        "--no-curve",
        action="store_true",
        help="a plain bus any local process may join, other OS users' too (S4: by default only "
        "processes holding the data dir's CURVE key join)",
    )
    p.set_defaults(func=cmd_up, runs_bus=True, curve_by_default=True)


def add_http_options(parser: argparse.ArgumentParser) -> None:
    """The MCP endpoint's options, shared by `xivmcp host` and `xivmcp up`."""
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help=f"where AI apps connect over MCP (default ${ENV_HTTP} or 127.0.0.1:{DEFAULT_HTTP_PORT}; "
        "port 0 picks a free one)",
    )
    parser.add_argument(
        "--allow-remote-http", action="store_true", help="allow --http on a non-loopback address (other machines)"
    )
    parser.add_argument("--no-mcp", action="store_true", help="do not serve AI apps (no MCP endpoint)")
    parser.add_argument(
        "--no-auth-for-conformance-tests",
        action="store_true",
        help="TESTS ONLY: serve MCP on 127.0.0.1 without the bearer token, for MCP conformance runs",
    )


def host_config(args: argparse.Namespace) -> HostConfig:
    """The host's configuration from the command line."""
    return HostConfig(
        bus=args.bus,
        data_dir=Path(args.data_dir),
        auto_enable=args.auto_enable,
        test_clock=args.test_clock,
        simulator_extensions=args.simulator_extensions,
        bus_curve=bus_curve(args),
    )


def mcp_settings(args: argparse.Namespace) -> McpSettings | None:
    """The MCP endpoint's settings (None with --no-mcp); EndpointError for an address it must refuse."""
    if args.no_mcp:
        return None
    address = args.http or os.environ.get(ENV_HTTP)
    http = parse_http_address(address) if address else None
    remote, no_auth = args.allow_remote_http, args.no_auth_for_conformance_tests
    if http is not None:
        check_bind_address(http[0], allow_remote=remote, auth_disabled=no_auth)
    host, port = http if http is not None else (DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT)
    return McpSettings(
        http_host=host,
        http_port=port,
        allow_remote_http=remote,
        auth_disabled=no_auth,
    )


def cmd_host(args: argparse.Namespace) -> int:
    from broker import IpcRefusedError  # loaded by the host anyway

    try:
        config = host_config(args)
        mcp = mcp_settings(args)
    except (EndpointError, IpcRefusedError) as exc:  # a bad --http; --curve and no key in the data dir
        print_err(str(exc))
        return 2
    if mcp is not None:
        _import_the_mcp_stack_meanwhile()
    from ._hosting import serve_host  # the host itself: loaded once the command is known

    return serve_host(args, config, mcp)


def _import_the_mcp_stack_meanwhile() -> None:
    """Import the MCP front (`mcp`, `uvicorn`, `starlette`: half a second) on a thread of its own
    while this one starts the broker and the game and connects to the bus, which is mostly
    waiting; the host's first use of the front then finds it imported (or waits for the import,
    which Python's per-module import locks make safe)."""
    threading.Thread(target=importlib.import_module, args=("gates.mcp._http",), daemon=True).start()


def cmd_up(args: argparse.Namespace) -> int:
    """Start broker and game as child processes and run the host in this one; stop them all when
    one ends or on Ctrl-C.

    The host runs here rather than as a third child so that it does not import the command line
    and the MCP stack a second time: `xivmcp up` answers MCP about a quarter of a second sooner
    (`python -m bench.startup`). The children start before this process loads the host and the
    MCP stack (the command line loads only the command's own module), so they import meanwhile."""
    try:
        mcp = mcp_settings(args)  # refuse a bad --http, or a taken port, before starting anything
    except EndpointError as exc:
        print_err(str(exc))
        return 2
    from broker import IpcRefusedError, check_bind_endpoint

    try:  # a bus beyond loopback without its keys: refused here, before any child starts
        check_bind_endpoint(args.bus, allow_remote=args.curve)
    except IpcRefusedError as exc:
        print_err(str(exc))
        return 2
    taken = None if mcp is None or mcp.http_port == 0 else address_taken(mcp.http_host, mcp.http_port)
    if taken is not None:  # S5: no system whose AI apps would talk to whatever holds the port
        print_err(taken)
        return 2
    owner_only_dir(Path(args.data_dir))  # B8: the user's alone, from the start
    lock = DataDirLock(Path(args.data_dir))
    try:  # refuse a second system on this data dir before starting its broker
        lock.acquire()
    except DataDirInUseError as exc:
        print_err(str(exc))
        return 2
    lock.release()
    bus_key = None
    if args.curve:  # S4: the keys exist before any process of the system looks for them
        from broker import CurveServer

        bus_key = CurveServer.in_dir(Path(args.data_dir)).public
    common = ["--bus", args.bus, "--data-dir", args.data_dir] + (["-v"] if args.verbose else [])
    common += ["--curve"] if args.curve else []
    commands = [
        [sys.executable, "-m", "xivmcp", "broker", *common],
        [sys.executable, "-m", "xivmcp", "game", *common, *(["--test-clock"] if args.test_clock else [])],
    ]
    children: list[subprocess.Popen[Any]] = []
    try:
        for command in commands:  # one at a time: those started are stopped if the next fails to start
            children.append(subprocess.Popen(command))  # noqa: PERF401
        print(f"xivmcp up: bus {args.bus}, data in {args.data_dir}; Ctrl-C stops everything", flush=True)
        if bus_key is not None and bus_is_local(args.bus):
            print(
                "xivmcp up: only processes holding this data dir's CURVE key join the bus; "
                "`xivmcp keys show` tells how a plugin on another machine joins",
                flush=True,
            )
        elif bus_key is not None:
            from ._keys_cli import join_instructions

            print(f"xivmcp up: only known CURVE keys join the bus. {join_instructions(bus_key)}", flush=True)
        if mcp is not None:
            _import_the_mcp_stack_meanwhile()
        from ._hosting import serve_host  # the host itself, while the children start

        code = serve_host(args, host_config(args), mcp, children)
    finally:
        for proc in reversed(children):  # the game, then the broker: the host said Disposing already
            _stop(proc)
    failed = [p for p in children if p.returncode not in (0, -signal.SIGTERM, 130)]
    if failed:
        print_err(f"xivmcp up: {len(failed)} process(es) ended with an error")
        return 1
    return code


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
