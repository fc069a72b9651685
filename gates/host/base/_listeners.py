"""Callbacks subscribed to one kind of event (registry changes, new audit lines, approvals).

One small class instead of the same list and unsubscribe closure in every module. Like the
services that own them, listeners live on the event loop (see `Host`): no lock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Listeners"]

T = TypeVar("T")

_log = logging.getLogger("gates")


class Listeners(Generic[T]):
    """Callbacks taking one value; `add` returns the function that removes it."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._callbacks: list[Callable[[T], None]] = []

    def add(self, callback: Callable[[T], None]) -> Callable[[], None]:
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def snapshot(self) -> tuple[Callable[[T], None], ...]:
        """The callbacks now: those subscribed when a change was made, to call once it is done."""
        return tuple(self._callbacks)

    def emit(self, value: T, callbacks: tuple[Callable[[T], None], ...] | None = None) -> None:
        """Call each callback (or those of an earlier `snapshot`); one that raises is logged, not propagated."""
        for callback in self.snapshot() if callbacks is None else callbacks:
            try:
                callback(value)
            except Exception:
                _log.exception("A %s callback failed", self._what)
