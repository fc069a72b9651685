"""A process's entry point on the bus: the event loop it needs, and a bus error as one line.

`run_main(main, *args)` is what every command, the game, the sample plugins and a plugin's
`run()` do with their async main: run it on asyncio, on the selector loop where the default one
cannot watch ZeroMQ's descriptor (`loop_options`), and turn the bus's expected failures (no
broker answers, the name is taken: an `IpcError`) into one line on stderr and an exit status
rather than a traceback. What an exit status means is the caller's to say: `run_main` returns
it, and a caller that exits only on an error does so itself.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVarTuple

import anyio

from ._errors import IpcError

__all__ = ["EXIT_BUS_ERROR", "EXIT_INTERRUPTED", "loop_options", "run_main"]

EXIT_BUS_ERROR: Final = 2
"""The exit status after an `IpcError`, as for a usage error: the process could not do its job."""
EXIT_INTERRUPTED: Final = 130
"""The exit status after Ctrl-C, as a shell reports a process ended by SIGINT (128 + 2)."""

Args = TypeVarTuple("Args")


def loop_options() -> dict[str, Any]:
    """anyio's `backend_options` for a process on the bus: asyncio's selector loop on Windows,
    whose default Proactor loop has no `add_reader` for ZeroMQ's descriptor (elsewhere: none).

        anyio.run(main, backend="asyncio", backend_options=broker.loop_options())
    """
    return {"loop_factory": asyncio.SelectorEventLoop} if sys.platform == "win32" else {}


def run_main(
    main: Callable[[*Args], Awaitable[int | None]],
    *args: *Args,
    name: str = "",
    verbose: bool = False,
    interrupted: int = EXIT_INTERRUPTED,
) -> int:
    """Run `main(*args)` on the event loop the bus needs, and return the process's exit status.

    That is what `main` returns (None: 0); `EXIT_BUS_ERROR` after one line on stderr if the bus
    failed (an `IpcError`, alone or with nothing but other IpcErrors in task groups' exception
    groups): the error's message, after "`name`: " if a name is given, and with `verbose`, its
    traceback first; `interrupted` on Ctrl-C. Any other exception propagates as it came.
    """
    try:
        code = anyio.run(main, *args, backend="asyncio", backend_options=loop_options())
    except KeyboardInterrupt:
        return interrupted
    except IpcError as exc:
        _say(exc, exc, name, verbose)
        return EXIT_BUS_ERROR
    except BaseExceptionGroup as group:
        # A task group in `main` wraps what its tasks raised; what counts is what is inside.
        _, other = group.split((IpcError, KeyboardInterrupt))
        if other is not None:
            raise
        errors = _leaves(group.subgroup(IpcError))
        if errors:
            _say(group, errors[0], name, verbose)
        return interrupted if group.subgroup(KeyboardInterrupt) is not None else EXIT_BUS_ERROR
    return 0 if code is None else code


def _say(raised: BaseException, error: BaseException, name: str, verbose: bool) -> None:
    if verbose:
        traceback.print_exception(raised)
    print(f"{name}: {error}" if name else str(error), file=sys.stderr, flush=True)


def _leaves(group: BaseExceptionGroup[BaseException] | None) -> list[BaseException]:
    """The exceptions inside `group` and the groups nested in it, in order."""
    if group is None:
        return []
    leaves: list[BaseException] = []
    for exc in group.exceptions:
        leaves += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return leaves
