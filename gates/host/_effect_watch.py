"""The game around each third-party call: a snapshot before it, and the changes after it (A4, W2).

`EffectWatch.begin` gives the game's snapshot and the seq of its newest change just before the
plugin's Invoke; `EffectWatch.end` reads the changes made since then (with who made each) and the
snapshot after, and returns the `Verdict` of `_side_effects.judge`. Without a game on the bus
nothing can be read, so nothing is checked: the verdict says so, for the audit log.

`begin` costs no round trip once the watch is in step with the game: it keeps the newest
snapshot by applying each `Game.Changed` message's delta (a change's delta is exactly what it did
to the snapshot). A message missed or out of turn (a seq that is not the next one), or the game
leaving the bus, puts it out of step, and the next `begin` asks the game again. A "before" that
lags behind the game is harmless: `end` reads every change since its seq, and each one is judged
by who made it. `end` always asks the game, so no change the plugin made is missed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from broker import PluginInterface
from game import GAME_NAME, Change, GameClient, GameError, GameSnapshot

from ._side_effects import Verdict, judge, replay, unchecked

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
        self._latest: Mark | None = None
        """The game now, as its change messages tell (None: out of step, ask the game)."""
        self._listening = False
        self._pi = pi

    def _listen(self) -> None:
        if not self._listening:
            self._listening = True
            self._game.on_change(self._changed)
            self._pi.on_peer_change(self._peer_changed)

    def _changed(self, change: Change) -> None:
        latest = self._latest
        if latest is None or change.seq <= latest.seq:
            return  # out of step already, or a change the snapshot we asked for already holds
        if change.seq != latest.seq + 1:
            self._latest = None  # one went missing: ask the game at the next call
            return
        self._latest = Mark(replay(latest.snapshot, (change,)), change.seq)

    def _peer_changed(self, name: str, joined: bool, reason: str) -> None:
        if name == GAME_NAME:
            self._latest = None  # a game that left, or a new one: its seq starts again

    async def begin(self) -> Mark | None:
        """The snapshot before a call, or None when no game can be read."""
        if not self._game.available:
            return None
        if self._latest is not None:
            return self._latest
        self._listen()
        try:
            reply = await self._game.snapshot()
        except GameError as exc:
            log.debug("no snapshot before the call: %s", exc)
            return None
        mark = Mark(reply.snapshot, reply.seq)
        if self._latest is None or self._latest.seq < mark.seq:
            self._latest = mark
        return mark

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
