"""What every command shares: the event loop, error printing, peer names."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gates.contract import escaped

if TYPE_CHECKING:
    import argparse

    from broker import CurveClient


def print_err(text: str) -> None:
    """`text` on stderr, each of its lines with control characters escaped: a message may quote a
    plugin's or the game's words, and the terminal must not obey them (S3)."""
    print("\n".join(escaped(line) for line in text.split("\n")), file=sys.stderr, flush=True)


def run_async(main: Callable[[], Awaitable[int]], *, verbose: bool = False) -> int:
    """`broker.run_main`: `main` on the bus's event loop; an expected failure of the bus (nothing
    answers, a name taken) is one line (`--verbose`: and its traceback) and exit 2, Ctrl-C 130.

    The event loop and the bus are loaded here, not with the module: a command that never runs
    one (`xivmcp up` before it starts the broker) does not wait for them."""
    from broker import run_main

    return run_main(main, verbose=verbose)


def bus_curve(args: argparse.Namespace) -> CurveClient | None:
    """The CURVE pair this command joins the bus with (S4): the data dir's client key when the bus
    asks for one (`args.curve`, set by `cli.resolve`), else None. Raises `IpcRefusedError` (a bus
    error, one line) when the data dir holds none."""
    if not getattr(args, "curve", False):
        return None
    from broker import CurveClient, IpcRefusedError

    keys = CurveClient.load(Path(args.data_dir))
    if keys is None:
        raise IpcRefusedError(
            f"The bus at {args.bus} admits only known keys and {args.data_dir} holds none: start the "
            "system with `xivmcp up --curve` on this data dir, or import a key the player gave you."
        )
    return keys


def cli_peer_name() -> str:
    """A bus name of its own for each command-line process."""
    return f"XivMcpCli{os.getpid()}"
