"""The game's clock: real by default, manual with `--test-clock` (W1).

Both count seconds of game time from the world's `time`, so a saved world carries on where it
stopped. Nothing ticks: the game asks the clock for the time whenever it needs it.
"""

from __future__ import annotations

import time
from typing import Protocol

__all__ = ["Clock", "RealClock", "TestClock"]


class Clock(Protocol):
    manual: bool

    def now(self) -> float: ...


class RealClock:
    """The world's `time` plus the seconds since the game started (monotonic: never goes back)."""

    manual = False

    def __init__(self, start: float) -> None:
        self._start = start
        self._started = time.monotonic()

    def now(self) -> float:
        return self._start + (time.monotonic() - self._started)


class TestClock:
    """Stands still until `advance` moves it: tests decide when time passes."""

    __test__ = False  # not a pytest test class, whatever its name says
    manual = True

    def __init__(self, start: float) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        self._now += seconds
        return self._now
