"""What a peer needs of its transport: the small interface between a `PluginInterface` and the
sockets, so that a peer runs on ZeroMQ (`_transport.ZMQ`, the default) or in memory
(`_memory.MemoryBroker`, for tests) with the same code.

A `Connector` opens two things for a peer: its `PeerTransport`, which carries every frame to and
from the broker, and its liveness `Beacon`, which tells the broker the process is alive whatever
its event loop does (or no beacon, where nothing can freeze, as in memory). Nothing here names a
socket: a transport hands each received frame to `on_frame`, raises `TransportBusyError` when it
cannot take a frame, and tells `on_refused` why if the broker refuses the connection before any
frame (a CURVE handshake that failed, S4) until the peer says it is `settled` (its Welcome came).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from typing_extensions import Buffer

Packer = Callable[[list[bytes]], Iterator[tuple[bytes, int]]]
"""Joins queued messages into the frames to send, each with how many messages it carries."""
OnFrame = Callable[["Buffer"], None]
"""Called with every frame the broker sends."""
OnUnsent = Callable[[list[asyncio.Future[Any]]], None]
"""Called with the waiters of frames that were queued and then could not be sent."""
OnRefused = Callable[[str], None]
"""Called once, with a sentence saying why, if the broker refused the connection itself (S4)."""


class ServerKeys(Protocol):
    """A CURVE broker's keys, Z85-encoded, and which clients it admits (`_keys.CurveServer`)."""

    @property
    def public(self) -> str: ...
    @property
    def secret(self) -> str: ...
    def admits(self, key: str) -> bool: ...


class ClientKeys(Protocol):
    """A CURVE client's pair and its broker's public key, Z85-encoded (`_keys.CurveClient`)."""

    @property
    def server(self) -> str: ...
    @property
    def public(self) -> str: ...
    @property
    def secret(self) -> str: ...


class TransportBusyError(Exception):
    """A send could not be queued: no connection, or the peer is not keeping up."""


class PeerTransport(Protocol):
    """A peer's connection to the broker, on the running event loop."""

    pack: Packer | None
    """How to join queued messages into batch frames (set while the broker reads them); None:
    one frame each."""

    def send(self, frame: bytes, waiter: asyncio.Future[Any] | None = None) -> None:
        """Send `frame` or raise `TransportBusyError`; `waiter`, if given, is handed to
        `on_unsent` if the frame was queued and then could not be sent."""
        ...

    def settled(self) -> None:
        """The broker answered (a Welcome): stop watching for a refused handshake (`on_refused`)."""
        ...

    def close(self) -> None: ...


class Beacon(Protocol):
    """A process's liveness beacon (`_transport.LivenessBeacon`)."""

    interval: float
    """Seconds between two Alive frames; may be changed while it runs."""

    def close(self) -> None: ...


class Connector(Protocol):
    """How a peer reaches a broker."""

    def open(
        self, endpoint: str, on_frame: OnFrame, max_frame: int, on_unsent: OnUnsent, on_refused: OnRefused
    ) -> PeerTransport:
        """The connection to the broker at `endpoint`; frames over `max_frame` bytes are dropped, and
        `on_refused` hears if the broker refuses it before it is `settled`."""
        ...

    def beacon(
        self, endpoint: str, make_frame: Callable[[], bytes], on_reply: OnFrame, interval: float, name: str
    ) -> Beacon | None:
        """Start a beacon that sends `make_frame()` every `interval` seconds and hands each answer
        to `on_reply` (in a thread of its own: `on_reply` only sets plain attributes or hands over
        thread-safely); None if this transport needs none."""
        ...
