"""A bus in memory, for tests: a `Router` that peers reach through a `Connector` with no socket.

    bus = MemoryBroker()
    async with bus.connect("Prov") as prov, bus.connect("Caller") as caller:
        ...                                  # the same PluginInterface as over ZeroMQ

`MemoryBroker` plays the broker process on the test's event loop. What a peer sends reaches the
router on a later turn of the loop, and what the router sends reaches each peer the same way, so
a peer sees events in the order a socket gives them (a send returns before anything is handled)
without a socket, a thread or a port. A peer's transport that closes is noticed as the broker
notices a closed connection: every peer is probed, and one whose transport is gone is removed.
There is no liveness beacon (nothing on one event loop is frozen while the others run); the
router's sweep runs when a test asks (`sweep`), on `clock`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from ._config import BrokerConfig
from ._peer import PluginInterface, connect_with
from ._router import Outgoing, Router
from ._transport_base import OnFrame, OnRefused, OnUnsent, Packer, TransportBusyError

__all__ = ["MemoryBroker"]

_GONE = "its connection is gone"


class MemoryBroker:
    """A `Router` and the in-memory transports of the peers connected to it."""

    def __init__(self, config: BrokerConfig | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.router = Router(config)
        self.endpoint = f"memory://{self.router.incarnation[:8]}"
        self._clock = clock
        self._transports: dict[bytes, _MemoryTransport] = {}
        self._opened = 0

    def connect(self, name: str, *, connect_timeout: float = 5.0) -> AbstractAsyncContextManager[PluginInterface]:
        """`broker.connect(endpoint, name)`, to this broker."""
        return connect_with(self, self.endpoint, name, connect_timeout=connect_timeout)

    def sweep(self) -> None:
        """Run the router's liveness sweep now (at `clock()`)."""
        self._deliver(self.router.sweep(self._clock()))

    # --- the Connector ---------------------------------------------------------------------

    def open(
        self, endpoint: str, on_frame: OnFrame, max_frame: int, on_unsent: OnUnsent, on_refused: OnRefused
    ) -> _MemoryTransport:
        self._opened += 1
        identity = b"\x00memory-%d" % self._opened  # as a ROUTER names a connection: opaque bytes
        transport = _MemoryTransport(self, identity, on_frame)
        self._transports[identity] = transport
        return transport

    def beacon(
        self, endpoint: str, make_frame: Callable[[], bytes], on_reply: OnFrame, interval: float, name: str
    ) -> None:
        return None

    # --- the broker's side -----------------------------------------------------------------

    def _receive(self, identity: bytes, frame: bytes) -> None:
        self._deliver(self.router.handle(identity, [frame], self._clock()))

    def _disconnected(self, identity: bytes) -> None:
        del self._transports[identity]
        self._deliver(self.router.probe())

    def _deliver(self, items: list[Outgoing]) -> None:
        router = self.router
        by_identity = router.by_identity
        while items:
            failed: list[Outgoing] = []
            for item in items:
                transport = self._transports.get(item.identity)
                if transport is None:
                    failed += router.undeliverable(item, _GONE, gone=True)
                    continue
                transport.deliver(item.frame)
                peer = by_identity.get(item.identity)
                if peer is not None:
                    peer.sent += len(item.frame)
                    if peer.sent >= peer.next_mark:
                        failed += router.mark(peer)  # as the broker process does (S2)
            items = failed


class _MemoryTransport:
    """A peer's end: `send` hands a frame to the broker, `deliver` one to the peer, each on the
    loop's next turn."""

    def __init__(self, broker: MemoryBroker, identity: bytes, on_frame: OnFrame) -> None:
        self.pack: Packer | None = None
        """Ignored: the router's frames reach a peer one message each, which every peer reads."""
        self._broker = broker
        self._identity = identity
        self._on_frame = on_frame
        self._loop = asyncio.get_running_loop()
        self._closed = False

    def send(self, frame: bytes, waiter: asyncio.Future[Any] | None = None) -> None:
        if self._closed:
            raise TransportBusyError
        self._loop.call_soon(self._broker._receive, self._identity, frame)

    def deliver(self, frame: bytes) -> None:
        self._loop.call_soon(self._take, frame)

    def _take(self, frame: bytes) -> None:
        if not self._closed:
            self._on_frame(frame)

    def settled(self) -> None:
        """Nothing to stop: a connection in memory has no handshake to fail."""

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._loop.call_soon(self._broker._disconnected, self._identity)
