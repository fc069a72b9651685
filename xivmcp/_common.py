"""What every command shares: the event loop, error printing, peer names."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Awaitable, Callable


def print_err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_async(main: Callable[[], Awaitable[int]], *, verbose: bool = False) -> int:
    """Run `main` on asyncio (a selector loop on Windows, which zmq's descriptor needs). An
    expected failure of the bus (nothing answers, a name taken) is one line and exit 2.

    The event loop and the bus are loaded here, not with the module: a command that never runs
    one (`xivmcp up` before it starts the broker) does not wait for them."""

    import anyio

    from broker import IpcError, loop_options

    options = loop_options()  # a selector loop on Windows, which the bus needs
    try:
        return anyio.run(main, backend="asyncio", backend_options=options)
    except IpcError as exc:
        if verbose:
            traceback.print_exc()
        print_err(str(exc))
        return 2
    except KeyboardInterrupt:
        return 130


def cli_peer_name() -> str:
    """A bus name of its own for each command-line process."""
    return f"XivMcpCli{os.getpid()}"
