"""The host in this process, for `xivmcp host` and `xivmcp up`, until a signal or a child's end.

Apart from `_up_cli` so that `xivmcp up` loads the host (and the bus's client) only after it
has started the broker and the game, which then start while this process imports.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import anyio

from broker import IpcError
from gates.datadir import DataDirInUseError
from gates.host import HostConfig
from gates.mcp import EndpointError, McpSettings
from gates.runner import run_host

from ._common import print_err, run_async

__all__ = ["serve_host"]


def serve_host(
    args: argparse.Namespace,
    config: HostConfig,
    mcp: McpSettings | None,
    children: Sequence[subprocess.Popen[Any]] = (),
) -> int:
    """Run the host in this process until a signal, or until one of `children` ends (`xivmcp up`)."""

    def on_endpoint(url: str) -> None:
        note = " WITHOUT the bearer token (tests only)" if mcp is not None and mcp.auth_disabled else ""
        if config.simulator_extensions:  # F3: say so, for what the apps see is then more than the real host shows
            note += " with the simulator's extensions (outputSchema, structuredContent, progress)"
        print(f"xivmcp host: MCP endpoint {url}{note}; `xivmcp connect` shows how apps connect", flush=True)

    async def main() -> int:
        refused: list[str] = []
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_stop_on_signal, tg.cancel_scope)
                for child in children:
                    tg.start_soon(_stop_when_ended, child, tg.cancel_scope)
                await run_host(
                    config,
                    mcp,
                    on_ready=lambda: print(f"xivmcp host: ready on {config.bus}", flush=True),
                    on_endpoint=on_endpoint,
                )
                tg.cancel_scope.cancel()
        except* (EndpointError, DataDirInUseError, IpcError) as group:
            # expected: the MCP address taken or not loopback, another host on this data dir, no
            # broker, the name XivMcp held by a live process
            refused.extend(_messages(group))
        if refused:
            print_err(refused[0])
            return 2
        return 0

    return run_async(main, verbose=args.verbose)


async def _stop_when_ended(child: subprocess.Popen[Any], scope: anyio.CancelScope) -> None:
    """`xivmcp up` is one system: when the broker or the game ends, the host stops too."""
    await anyio.to_thread.run_sync(child.wait, abandon_on_cancel=True)
    scope.cancel()


def _messages(error: BaseException) -> list[str]:
    """The messages of the exceptions at the leaves of a (nested) exception group."""
    if isinstance(error, BaseExceptionGroup):
        return [message for inner in error.exceptions for message in _messages(inner)]
    return [str(error)]


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    if sys.platform == "win32":
        return  # Ctrl-C arrives as KeyboardInterrupt there
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return
