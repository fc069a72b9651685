"""The console's logins: a one-time ticket (`xivmcp console`) becomes a session cookie.

The player proves the player key over the bus (`OpenConsole`, as every player command) and gets a
ticket; the login page redeems it once (`ConsoleTickets`, kept by the host) for a session: a
random id in an HttpOnly, SameSite=Strict cookie named after the port (two hosts on one machine do
not share a login), and a CSRF token the page sends with every change. Sessions live in the host's
memory: a host that restarts logs everyone out, and `xivmcp console` gives a new link.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

__all__ = ["MAX_SESSIONS", "SESSION_IDLE", "ConsoleSession", "Sessions", "cookie_name"]

MAX_SESSIONS: Final = 32
"""Sessions at once; logging in again past this forgets the one idle longest."""
SESSION_IDLE: Final = 12 * 3600.0
"""Seconds a session lasts without a request (a player's evening)."""


def cookie_name(port: int) -> str:
    """The session cookie's name: browsers keep cookies by host, not port, so the port is in the name."""
    return f"xivmcp_console_{port}"


@dataclass(slots=True)
class ConsoleSession:
    """One browser's login: its cookie value, and the token its changes must carry."""

    id: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    seen: float = 0.0
    """When it was last used, on the clock of its `Sessions`."""

    def csrf_matches(self, sent: str | None) -> bool:
        return sent is not None and hmac.compare_digest(sent.encode(), self.csrf.encode())


class Sessions:
    """The logged-in browsers, by cookie value, on a real monotonic clock."""

    def __init__(
        self, *, limit: int = MAX_SESSIONS, idle: float = SESSION_IDLE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._limit = limit
        self._idle = idle
        self._clock = clock
        self._open: OrderedDict[str, ConsoleSession] = OrderedDict()

    def start(self) -> ConsoleSession:
        session = ConsoleSession(seen=self._clock())
        self._open[session.id] = session
        while len(self._open) > self._limit:
            self._open.popitem(last=False)
        return session

    def find(self, cookie: str | None) -> ConsoleSession | None:
        """The session of this cookie value, if it is one and not idle too long (it is seen now)."""
        if not cookie:
            return None
        session = next((s for key, s in self._open.items() if hmac.compare_digest(key.encode(), cookie.encode())), None)
        if session is None:
            return None
        now = self._clock()
        if now - session.seen > self._idle:
            del self._open[session.id]
            return None
        session.seen = now
        self._open.move_to_end(session.id)
        return session

    def alive(self, session: ConsoleSession) -> bool:
        """Whether `session` is still logged in (not ended, not idle too long); it is not seen by this."""
        return self._open.get(session.id) is session and self._clock() - session.seen <= self._idle

    def end(self, session: ConsoleSession) -> None:
        self._open.pop(session.id, None)

    def __len__(self) -> int:
        return len(self._open)
