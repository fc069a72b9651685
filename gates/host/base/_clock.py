"""Time as the host core sees it: a monotonic clock it can be handed, so tests never sleep.

Deadlines (the two-minute approval window) are measured with :class:`Clock`; wall-clock stamps
for the audit log use a separate ``Callable[[], datetime]`` because they answer a different
question ("when", not "how long").
"""

from __future__ import annotations

import time
from typing import Protocol

__all__ = ["Clock", "ManualClock", "SystemClock"]


class Clock(Protocol):
    """A monotonic clock in seconds. Only differences between readings mean anything."""

    def now(self) -> float: ...


class SystemClock:
    """The process's monotonic clock (``time.monotonic``)."""

    def now(self) -> float:
        return time.monotonic()


class ManualClock:
    """A clock that only moves when told to: for tests and simulations."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Moves the clock forward; a negative step is refused, since the clock is monotonic."""
        if seconds < 0:
            raise ValueError(f"A monotonic clock can't go back (advance({seconds!r})).")
        self._now += seconds
