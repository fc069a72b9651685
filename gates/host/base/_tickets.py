"""One-time tickets to the player's web console (`xivmcp console`), kept by the host.

The player's command `console` (proven by the player key over the bus, as every player command)
gets a ticket; the console's login page (`gates.console`) redeems it once for a session cookie.
A ticket is good for one login within `TICKET_LIFETIME` real seconds; the host keeps at most
`MAX_TICKETS`, forgetting the oldest, so asking for many costs nothing but the asker's own.
"""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict
from typing import Final

from ._clock import Clock

__all__ = ["MAX_TICKETS", "TICKET_LIFETIME", "ConsoleTickets"]

TICKET_LIFETIME: Final = 120.0
"""Seconds a console link works: enough to paste it into a browser, too short to be worth stealing."""
MAX_TICKETS: Final = 16
"""Open tickets at once; the oldest goes first."""


class ConsoleTickets:
    """The open tickets, each good for one login before its deadline (on a real clock)."""

    def __init__(self, clock: Clock, *, lifetime: float = TICKET_LIFETIME, limit: int = MAX_TICKETS) -> None:
        self._clock = clock
        self._lifetime = lifetime
        self._limit = limit
        self._open: OrderedDict[str, float] = OrderedDict()

    @property
    def lifetime(self) -> float:
        return self._lifetime

    def issue(self) -> str:
        """A fresh ticket: 32 random bytes, URL-safe."""
        ticket = secrets.token_urlsafe(32)
        self._open[ticket] = self._clock.now() + self._lifetime
        while len(self._open) > self._limit:
            self._open.popitem(last=False)
        return ticket

    def redeem(self, ticket: str) -> bool:
        """Whether `ticket` is open and in time; it is used up either way."""
        found = next((t for t in self._open if hmac.compare_digest(t.encode(), ticket.encode())), None)
        if found is None:
            return False
        deadline = self._open.pop(found)
        return deadline >= self._clock.now()
