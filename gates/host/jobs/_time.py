"""Time for jobs: sleeping on the host's clock, the `wait` step's arguments, and the stamps of
steps and log lines (UTC)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

import anyio

from gates.contract import RefusedError, quote

from ..base._audit import utc_stamp
from ..base._clock import Clock

__all__ = ["MAX_WAIT_SECONDS", "HostTimers", "now_stamp", "parse_stamp", "wait_seconds"]

MAX_WAIT_SECONDS: Final = 7 * 24 * 3600.0


class HostTimers:
    """Sleeps on the host's clock: a manual clock in tests moves only when told, and `tick` (which
    the host calls with its other deadlines) wakes the sleepers whose time has come."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._timers: list[tuple[float, anyio.Event]] = []

    def tick(self) -> None:
        now = self._clock.now()
        due = [event for deadline, event in self._timers if deadline <= now]
        self._timers = [(d, e) for d, e in self._timers if d > now]
        for event in due:
            event.set()

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        timer = (self._clock.now() + seconds, anyio.Event())
        self._timers.append(timer)
        try:
            await timer[1].wait()
        finally:  # a cancelled sleep (its step paused, its call given up) leaves no timer behind
            if timer in self._timers:
                self._timers.remove(timer)


def wait_seconds(args: dict[str, Any], now: datetime) -> float:
    """`wait`'s arguments: `seconds` (0 to 7 days) or `until` (ISO 8601, UTC), as seconds from now."""
    seconds, until = args.get("seconds"), args.get("until")
    if (seconds is None) == (until is None):
        raise RefusedError("wait takes 'seconds' (0 to 604800) or 'until' (ISO 8601 UTC), one of the two.")
    if until is not None:
        try:
            moment = datetime.fromisoformat(str(until).replace("Z", "+00:00"))
        except ValueError:
            raise RefusedError(
                f"'until' must be an ISO 8601 time such as 2026-12-01T18:00:00Z; got {quote(until)}."
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = max(0.0, (moment - now).total_seconds())
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds <= MAX_WAIT_SECONDS:
        raise RefusedError(
            f"'seconds' must be a number from 0 to {MAX_WAIT_SECONDS:.0f} (7 days); got {quote(seconds)}."
        )
    return float(seconds)


def now_stamp() -> str:
    return utc_stamp(datetime.now(UTC))


def parse_stamp(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
