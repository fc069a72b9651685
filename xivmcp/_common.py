"""What every command shares: the event loop, error printing, peer names."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Awaitable, Callable

from gates.contract import escaped


def print_err(text: str) -> None:
    """`text` on stderr, each of its lines with control characters escaped: a message may quote a
    plugin's or the game's words, and the terminal must not obey them (S3)."""
    print("\n".join(escaped(line) for line in text.split("\n")), file=sys.stderr, flush=True)


class EscapedLogFormatter(logging.Formatter):
    """Log lines whose message shows control characters escaped: a host's log quotes plugins' names,
    tools and errors, and whoever reads its stderr must not have the terminal obey them (S3).
    Tracebacks are the process's own and keep their lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escaped(super().formatMessage(record))


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
