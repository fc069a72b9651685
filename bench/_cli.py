"""The command line the benches share: a child's hidden `--role`, the defaults `--quick` shortens,
the subset of setups to run, and the exit codes: 0 when the run is done (a missed target is a
figure, not a failure), 1 when a child failed, 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from ._proc import ChildError

Role = Callable[[argparse.Namespace], None]


def run_role(args: argparse.Namespace, roles: Mapping[str, Role]) -> bool:
    """Log warnings to stderr, then run `--role` if this process is a child (True: done)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    if args.role is None:
        return False
    roles[args.role](args)
    return True


def fill_defaults(args: argparse.Namespace, **defaults: tuple[float, float]) -> None:
    """Each option left unset gets its default: the first with `--quick`, the second without."""
    for name, (quick, full) in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)


def make_absolute(args: argparse.Namespace, *names: str) -> None:
    """The named folder options, made absolute: the children run in the project root."""
    for name in names:
        if getattr(args, name):
            setattr(args, name, os.path.abspath(getattr(args, name)))


def refuse(message: str) -> int:
    """Say what is wrong with the arguments; the exit code for it."""
    print(f"bench: {message}", file=sys.stderr)
    return 2


def subset(text: str, known: Sequence[str], what: str) -> list[str] | None:
    """The names in the comma-separated `text`, in its order; None (said on stderr) if one is unknown."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        refuse(f"unknown {what}(s) {', '.join(unknown)}; choose from {', '.join(known)}")
        return None
    return names


def run_parent(run_all: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """`run_all(args)`; a child that failed or did not answer is said on stderr, exit code 1."""
    try:
        return run_all(args)
    except ChildError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 1
