"""Where the kit's connections live, and how a test reaches them from its own thread or event loop.

A bus connection, the official MCP client and the game's client each belong to the event loop
they were opened on. The pytest plugin opens them once, on a loop of its own in a thread of its
own (`KitLoop`, an anyio blocking portal), so one system serves every test whatever runs the test:

* a sync test calls `SyncPlayer` and friends, which block on `KitLoop.call`;
* an async test (pytest-asyncio, anyio, trio) awaits `Player` and friends made with
  `KitLoop.link()`: each call runs on the kit's loop, awaited from a worker thread of the test's
  own loop, so the test's loop is never blocked and never touches the kit's sockets;
* code that opened its own connection on its own loop uses `DIRECT` (the work is simply awaited).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager, AbstractContextManager, contextmanager
from typing import Any, Final, Protocol, TypeVar

import anyio.to_thread
from anyio.from_thread import BlockingPortal, start_blocking_portal

from broker import loop_options

__all__ = ["CALL_WAIT", "DIRECT", "DirectLink", "KitLoop", "Link", "PortalLink", "bounded"]

T = TypeVar("T")

CALL_WAIT: Final = 30.0
"""Seconds a tool call may take by default (it runs the plugin's tool and checks the game around it)."""


class Link(Protocol):
    """How an async kit object runs work on the loop its client belongs to."""

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """Await `work()` on the client's loop and return its result (or raise what it raised)."""
        ...


class DirectLink:
    """The client belongs to the caller's own loop: the work is awaited where it is."""

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """Await `work()` here, in the caller's task."""
        return await work()


DIRECT: Final = DirectLink()
"""The link of a kit object on a connection of your own, in your own loop: `Player(..., link=DIRECT)`
awaits each call where it is made. The kit objects default to it."""


class PortalLink:
    """The client belongs to the kit's loop: the work runs there, awaited from a worker thread."""

    def __init__(self, portal: BlockingPortal) -> None:
        self._portal = portal

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run `work()` on the kit's loop and wait for it in a worker thread; cancelling returns at once."""
        # abandon_on_cancel: a test that gives up returns at once; the work itself is bounded on
        # the kit's loop (`bounded`), so it ends there soon after.
        return await anyio.to_thread.run_sync(lambda: self._portal.call(_awaited, work), abandon_on_cancel=True)


async def _awaited(work: Callable[[], Awaitable[T]]) -> T:
    return await work()


async def bounded(seconds: float, what: str, work: Awaitable[T]) -> T:
    """`work`, or TimeoutError saying what did not happen in time (anyio's own says nothing)."""
    try:
        with anyio.fail_after(seconds):
            return await work
    except TimeoutError:
        raise TimeoutError(
            f"{what} did not happen within {seconds:g} s; the processes' logs are in the system's logs folder "
            "(xivmcp_system.harness.logs)."
        ) from None


class KitLoop:
    """An event loop in a thread of its own, on which the kit's connections live."""

    def __init__(self, portal: BlockingPortal) -> None:
        self.portal = portal

    @classmethod
    @contextmanager
    def running(cls) -> Iterator[KitLoop]:
        """Start the loop (asyncio; a selector loop on Windows, which the bus needs) until the block ends."""
        options = loop_options()  # a selector loop on Windows, which the bus needs
        with start_blocking_portal("asyncio", options, name="xivmcp test kit") as portal:
            yield cls(portal)

    def call(self, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Run `work()` on the kit's loop and block until it returns (from any other thread)."""
        return self.portal.call(_awaited, work)

    def start(self, work: Callable[[], Coroutine[Any, Any, T]]) -> Future[T]:
        """Start `work()` on the kit's loop and return at once; cancelling the future cancels it."""
        return self.portal.start_task_soon(work)

    def enter(self, manager: AbstractAsyncContextManager[T]) -> AbstractContextManager[T]:
        """An async context manager of the kit's loop as a blocking one (entered and left in one task)."""
        return self.portal.wrap_async_context_manager(manager)

    def link(self) -> PortalLink:
        """The link that async kit objects for tests on other loops use."""
        return PortalLink(self.portal)
