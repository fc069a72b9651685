"""The change log (W2): every change of the world, numbered, with who made it and what it did.

A change's `delta` is the difference between the snapshot just before it and just after it, so
replaying the deltas of some changes onto a snapshot gives exactly what those changes did (the
host does this to tell a plugin's own effects from everyone else's). The log keeps the newest
`MAX_CHANGES`; a reader asking from before the oldest kept one is told its list is not complete.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable
from typing import Final

import msgspec

from ._documents import Change, GameSnapshot, SnapshotDelta

__all__ = ["MAX_CHANGES", "MAX_SUMMARY", "ChangeLog", "ChangesPage", "delta_between", "replay"]

MAX_CHANGES: Final = 10_000
"""Changes the log keeps (B7): the oldest is dropped when a new one comes."""
MAX_SUMMARY: Final = 200
"""Characters of a change's summary; longer ones are cut (names in it come from callers)."""

_encode = msgspec.json.Encoder().encode


def delta_between(before: GameSnapshot, after: GameSnapshot) -> SnapshotDelta:
    """What changed from `before` to `after`: amounts added (negative: removed), or the new value."""
    currencies = {
        currency: after.currencies.get(currency, 0) - before.currencies.get(currency, 0)
        for currency in dict.fromkeys([*before.currencies, *after.currencies])
        if after.currencies.get(currency, 0) != before.currencies.get(currency, 0)
    }
    return SnapshotDelta(
        gil=after.gil - before.gil,
        currencies=currencies,
        item_total=after.item_total - before.item_total,
        chat_sent=after.chat_sent - before.chat_sent,
        territory=after.territory if after.territory != before.territory else None,
        world=after.world if after.world != before.world else None,
        logged_in=after.logged_in if after.logged_in != before.logged_in else None,
        content_id=after.content_id if after.content_id != before.content_id else None,
    )


def replay(before: GameSnapshot, changes: Iterable[Change]) -> GameSnapshot:
    """The snapshot `before` would become with only these changes applied: `delta_between`'s inverse."""
    logged_in, content_id, territory, world = before.logged_in, before.content_id, before.territory, before.world
    gil, item_total, chat_sent = before.gil, before.item_total, before.chat_sent
    currencies = dict(before.currencies)
    for change in changes:
        delta = change.delta
        gil += delta.gil
        item_total += delta.item_total
        chat_sent += delta.chat_sent
        for currency, amount in delta.currencies.items():
            currencies[currency] = currencies.get(currency, 0) + amount
        if delta.territory is not None:
            territory = delta.territory
        if delta.world is not None:
            world = delta.world
        if delta.logged_in is not None:
            logged_in = delta.logged_in
        if delta.content_id is not None:
            content_id = delta.content_id
    return GameSnapshot(
        logged_in=logged_in,
        content_id=content_id,
        territory=territory,
        world=world,
        gil=gil,
        currencies=currencies,
        item_total=item_total,
        chat_sent=chat_sent,
    )


class ChangesPage(msgspec.Struct, frozen=True, kw_only=True):
    changes: list[Change]
    complete: bool
    more: bool


class ChangeLog:
    """The newest `keep` changes, oldest first; `seq` is the newest change's number (0: none yet)."""

    def __init__(self, keep: int = MAX_CHANGES) -> None:
        self._changes: deque[Change] = deque(maxlen=keep)
        self.seq = 0

    def append(self, *, at: float, by: str, capability: str, kind: str, summary: str, delta: SnapshotDelta) -> Change:
        if len(summary) > MAX_SUMMARY:
            summary = summary[: MAX_SUMMARY - 1] + "…"
        self.seq += 1
        change = Change(seq=self.seq, at=at, by=by, capability=capability, kind=kind, summary=summary, delta=delta)
        self._changes.append(change)
        return change

    def since(self, since: int, limit: int, budget: int) -> ChangesPage:
        """The changes after `since`, oldest first: at most `limit`, and at most `budget` bytes of JSON."""
        oldest = self._changes[0].seq if self._changes else self.seq + 1
        # complete: nothing between `since` and the first change listed was dropped, and `since`
        # is one of this log's numbers (a larger one comes from a game that ran before this one)
        complete = oldest - 1 <= since <= self.seq
        start = max(0, since - oldest + 1) if complete else 0
        if since > self.seq:
            start = len(self._changes)
        picked: list[Change] = []
        used = 0
        for change in itertools.islice(self._changes, start, None):
            size = len(_encode(change)) + 1
            if len(picked) >= limit or used + size > budget:
                return ChangesPage(changes=picked, complete=complete, more=True)
            picked.append(change)
            used += size
        return ChangesPage(changes=picked, complete=complete, more=False)
