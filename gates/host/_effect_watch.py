"""The game around each third-party call: a snapshot before it, and the changes after it (A4, W2).

`EffectWatch.begin` reads the game's snapshot and the seq of its newest change just before the
plugin's Invoke; `EffectWatch.end` reads the changes made since then (with who made each) and the
snapshot after, and returns the `Verdict` of `_side_effects.judge`. Without a game on the bus
nothing can be read, so nothing is checked: the verdict says so, for the audit log.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from broker import PluginInterface
from game import GameClient, GameError, GameSnapshot

from ._side_effects import Verdict, judge, unchecked

__all__ = ["EffectWatch", "Mark"]

log = logging.getLogger("gates.effects")

CHANGES_LIMIT: Final = 10_000
"""The most changes one call may make and still be attributed change by change."""


@dataclass(frozen=True, slots=True)
class Mark:
    """The game just before a call."""

    snapshot: GameSnapshot
    seq: int


class EffectWatch:
    """Reads the game around calls, through the game's own gates."""

    def __init__(self, pi: PluginInterface) -> None:
        self._game = GameClient(pi)

    async def begin(self) -> Mark | None:
        """The snapshot before a call, or None when no game can be read."""
        try:
            reply = await self._game.snapshot()
        except GameError as exc:
            log.debug("no snapshot before the call: %s", exc)
            return None
        return Mark(reply.snapshot, reply.seq)

    async def end(self, owner: str, declared: Sequence[str], mark: Mark | None) -> Verdict:
        """What the call did, judged against what its tool declared."""
        if mark is None:
            return unchecked("No game was on the bus when the call started.")
        try:
            reply = await self._game.changes(mark.seq, limit=CHANGES_LIMIT)
        except GameError as exc:
            return unchecked(f"The game could not be read after the call: {exc}")
        complete = reply.complete and not reply.more  # the whole log since the mark, or judge the difference
        return judge(owner, declared, mark.snapshot, reply.snapshot, reply.changes, complete=complete)
