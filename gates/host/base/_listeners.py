"""Callbacks subscribed to one kind of event (registry changes, new audit lines, approvals).

One small class instead of the same list, lock and unsubscribe closure in every module.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Listeners"]

T = TypeVar("T")

_log = logging.getLogger("gates")


class Listeners(Generic[T]):
    """Thread-safe callbacks taking one value; `add` returns the function that removes it."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._callbacks: list[Callable[[T], None]] = []
        self._lock = threading.Lock()

    def add(self, callback: Callable[[T], None]) -> Callable[[], None]:
        with self._lock:
            self._callbacks.append(callback)

        def remove() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return remove

    def snapshot(self) -> tuple[Callable[[T], None], ...]:
        """The callbacks now, to call outside the caller's own lock."""
        with self._lock:
            return tuple(self._callbacks)

    def emit(self, value: T, callbacks: tuple[Callable[[T], None], ...] | None = None) -> None:
        """Call each callback (or those of an earlier `snapshot`); one that raises is logged, not propagated."""
        for callback in self.snapshot() if callbacks is None else callbacks:
            try:
                callback(value)
            except Exception:
                _log.exception("A %s callback failed", self._what)
