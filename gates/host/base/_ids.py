"""Ids the host hands out (calls `c…`, approvals `a…`), unique across host processes (B5).

Each host process draws a random tag at start, so ``c12-3f9a1b`` of one host is never an id of
the next: a late `CompleteCall` for a call of a host that has since restarted cannot finish a
new call of the same plugin, and the host can tell an id it never issued from one that ended.
"""

from __future__ import annotations

import itertools
import secrets

__all__ = ["IdMaker", "process_tag"]


def process_tag() -> str:
    """A fresh random tag for one host process (six hex digits)."""
    return secrets.token_hex(3)


class IdMaker:
    """``{letter}{n}-{tag}``: ``c1-3f9a1b``, ``c2-3f9a1b``, …"""

    def __init__(self, letter: str, tag: str | None = None) -> None:
        self.letter = letter
        self.tag = tag or process_tag()
        self._counter = itertools.count(1)
        self._suffix = f"-{self.tag}"

    def next(self) -> str:
        return f"{self.letter}{next(self._counter)}{self._suffix}"

    def issued_here(self, value: str) -> bool:
        """Whether `value` is an id of this kind that this process could have issued."""
        return value.startswith(self.letter) and value.endswith(self._suffix)
