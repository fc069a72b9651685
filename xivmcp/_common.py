"""What every command shares: the event loop, error printing, peer names."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable


def print_err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_async(main: Callable[[], Awaitable[int]], *, verbose: bool = False) -> int:
    """`broker.run_main`: `main` on the bus's event loop; an expected failure of the bus (nothing
    answers, a name taken) is one line (`--verbose`: and its traceback) and exit 2, Ctrl-C 130.

    The event loop and the bus are loaded here, not with the module: a command that never runs
    one (`xivmcp up` before it starts the broker) does not wait for them."""
    from broker import run_main

    return run_main(main, verbose=verbose)


def cli_peer_name() -> str:
    """A bus name of its own for each command-line process."""
    return f"XivMcpCli{os.getpid()}"
