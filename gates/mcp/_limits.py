"""The endpoint's hold on its connections (S5): how many it keeps, and how long a request head may take.

uvicorn bounds neither the way the endpoint needs. Its `limit_concurrency` answers 503 once that
many connections are open, idle ones included, so a few hundred connections that never send a
byte would starve a real client; and its keep-alive timeout starts only after a first response
and stops at the first byte, so a client that sends its headers a byte at a time holds a
connection forever. `bounded_h11` is uvicorn's h11 protocol with two rules added:

* **a head deadline**: a connection that has not sent a whole request head (request line and
  headers) within `header_seconds` of opening, or of its previous response, is closed;
* **a connection cap**: at `max_connections`, a new connection closes the oldest one that is still
  waiting for its head; when every connection is busy with a request, the new request is answered
  503 (uvicorn's `limit_concurrency`, set to the same number).

A connection busy with a request (a long call, a GET event stream) is never closed by either rule.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar, Final, cast

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_SECONDS", "MAX_CONNECTIONS", "HttpLimits", "bounded_h11"]

MAX_CONNECTIONS: Final = 128
"""Connections the endpoint keeps open at once (an AI app uses one or two, plus an event stream)."""
HEADER_SECONDS: Final = 10.0
"""Seconds a connection has to send a whole request head (a real client sends it in one packet)."""


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """The bounds of one HTTP server (S5); tests make them small."""

    max_connections: int = MAX_CONNECTIONS
    header_seconds: float = HEADER_SECONDS


class _BoundedH11(H11Protocol):
    limits: ClassVar[HttpLimits]
    open: ClassVar[dict[_BoundedH11, None]]
    """This server's connections, oldest first (a dict keeps insertion order)."""
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()
        excess = len(self.open) + 1 - self.limits.max_connections
        if excess > 0:
            idle = [other for other in self.open if other._waiting_for_head()][:excess]
            for other in idle:
                other._drop()
        self.open[self] = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._waiting_for_head():
            self._stop_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._waiting_for_head() and not self.transport.is_closing():
            self._await_head()  # keep-alive: the next head has the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        self.open.pop(self, None)
        super().connection_lost(exc)

    def _waiting_for_head(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _await_head(self) -> None:
        self._stop_head_timer()
        self._head_timer = self.loop.call_later(self.limits.header_seconds, self._head_overdue)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self._waiting_for_head():
            self._drop()

    def _drop(self) -> None:
        """Close a connection that holds no request: at once, and out of the count at once."""
        self._stop_head_timer()
        self.open.pop(self, None)
        self.connections.discard(self)  # uvicorn discards it again when the close is done
        if not self.transport.is_closing():
            self.transport.close()


def bounded_h11(limits: HttpLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with `limits`, for one server (the class holds that server's connections)."""
    return cast(type[H11Protocol], type("BoundedH11", (_BoundedH11,), {"limits": limits, "open": {}}))
