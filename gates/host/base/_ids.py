"""Ids the host hands out (calls `c…`, approvals `a…`, jobs `j…`), unique across host processes (B5).

Each host process draws a random tag at start, so an id of one host is never an id of the next:
a late `CompleteCall` for a call of a host that has since restarted cannot finish a new call of
the same plugin, and the host can tell an id it never issued from one that ended.

Call and approval ids are also unguessable (S1): each holds 64 random bits of its own, so an id
seen says nothing of the next one, and no process can name a call or an approval it was not
told of. Job ids stay counted (``j3-3f9a1b``): the player and the assistant type them, and every
job gate checks its owner.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Container

__all__ = ["IdMaker", "process_tag"]

RANDOM_BYTES = 8
"""Random bytes in an unguessable id: 16 hex digits, 64 bits."""


def process_tag() -> str:
    """A fresh random tag for one host process (six hex digits)."""
    return secrets.token_hex(3)


class IdMaker:
    """``{letter}{n}-{tag}`` (``c1-3f9a1b``, ``c2-3f9a1b``, …), or with `unguessable`
    ``{letter}{16 random hex digits}-{tag}`` (``c9f2c41d07be35a18-3f9a1b``)."""

    def __init__(self, letter: str, tag: str | None = None, *, unguessable: bool = False) -> None:
        self.letter = letter
        self.tag = tag or process_tag()
        self.unguessable = unguessable
        self._counter = itertools.count(1)
        self._suffix = f"-{self.tag}"

    def next(self, taken: Container[str] = ()) -> str:
        """A new id, never one of `taken` (the ids still in use: a random id is drawn again on the
        rare collision, so ids in use stay unique however many were drawn)."""
        if not self.unguessable:
            return f"{self.letter}{next(self._counter)}{self._suffix}"
        while True:
            value = f"{self.letter}{secrets.token_hex(RANDOM_BYTES)}{self._suffix}"
            if value not in taken:
                return value

    def issued_here(self, value: str) -> bool:
        """Whether `value` is an id of this kind that this process could have issued."""
        return value.startswith(self.letter) and value.endswith(self._suffix)
