"""Shared start-up of the sample plugins: arguments, logging, the event loop."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio


def parse_args(name: str, extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=f"python -m plugins_sample.{name}")
    parser.add_argument("--bus", default=os.environ.get("XIVMCP_BUS"), help="bus endpoint (default $XIVMCP_BUS)")
    parser.add_argument("-v", "--verbose", action="store_true")
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
    return args


def run(main: Callable[[], Awaitable[None]]) -> None:
    """Run on asyncio (a selector loop on Windows, which the bus needs); Ctrl-C ends quietly."""
    options: dict[str, Any] = {}
    if sys.platform == "win32":
        options["loop_factory"] = asyncio.SelectorEventLoop
    try:
        anyio.run(main, backend="asyncio", backend_options=options)
    except KeyboardInterrupt:
        pass


def say(text: str) -> None:
    """A status line on stdout, flushed, for people and for tests that read it."""
    print(text, flush=True)
