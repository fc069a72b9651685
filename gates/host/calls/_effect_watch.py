"""The game around each third-party call: a snapshot before it, and the changes after it (A4, W2).

`EffectWatch.begin` gives the game's snapshot and the seq of its newest change just before the
plugin's Invoke; `EffectWatch.end` takes the changes made since then (with who made each) and
returns the `Verdict` of `_side_effects.judge`. Without a game on the bus nothing can be read, so
nothing is checked: the verdict says so, for the audit log.

Neither costs a round trip to the game once the watch is in step with it. The watch follows
`Game.Changed`: it keeps the newest snapshot by applying each change's delta (a delta is exactly
what the change did to the snapshot) and the changes that led there. That is enough for `end`
because the bus keeps order: the game sends a change's message before it answers the gate call
that made it, and the broker forwards both in the order they came. So a plugin's own change
reaches XIV MCP before the plugin's Invoke reply does, whose answer came after the game's.

A message missed or out of turn (a seq that is not the next one), `Game.WorldReset`, or the game
leaving the bus puts the watch out of step: the next call reads the game again. A call during
which the game left or started again is not judged (another game's world says nothing of it). The bus drops a
message only to a process whose queue is full, and a dropped last message leaves no gap to see;
so at most once every `VERIFY_EVERY` seconds a call is judged from the game's own log
(`Game.Changes`) instead, which also checks that the watch saw all of it. A change whose message
went missing is then judged with the call that reads the log (the audit line names who made it),
not with the call, judged before, that made it.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from broker import PluginInterface
from game import (
    CHANGED_MESSAGE,
    CHANGES_LIMIT,
    GAME_NAME,
    Change,
    ChangesReply,
    GameClient,
    GameError,
    GameSnapshot,
    replay,
)

from ..policy._side_effects import Verdict, judge, unchecked

__all__ = ["EffectWatch", "Mark"]

log = logging.getLogger("gates.effects")

VERIFY_EVERY: Final = 1.0
"""Real seconds between calls judged from the game's log rather than from its messages."""


@dataclass(frozen=True, slots=True)
class Mark:
    """The game just before a call."""

    snapshot: GameSnapshot
    seq: int
    game: int
    """Which game on the bus: the watch counts each one that joins (a new one's seq starts again)."""


class EffectWatch:
    """Reads the game around calls, through the game's own gates and messages."""

    def __init__(self, pi: PluginInterface, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._game = GameClient(pi)
        self._pi = pi
        self._clock = clock
        self._latest: Mark | None = None
        """The game now, as its change messages tell (None: out of step, ask the game)."""
        self._recent: deque[Change] = deque(maxlen=CHANGES_LIMIT)
        """The changes that led to `_latest`, oldest first, without a gap."""
        self._early: deque[Change] = deque(maxlen=CHANGES_LIMIT)
        """Changes heard while out of step: a read's reply and the next change can come in one
        frame, the change first, so they are kept for the reply's mark to take up."""
        self._game_count = 0
        self._listening = False
        self._verified_at = -math.inf
        self.reads = 0
        """How many times the game was asked (a snapshot, or its changes): for tests and diagnostics."""

    def _listen(self) -> None:
        """Subscribe once (GameError if the bus refuses: then the next call tries again)."""
        if self._listening:
            return
        stop_changes = self._game.on_change(self._changed)
        try:
            self._game.on_reset(lambda seq: self._out_of_step())
        except GameError:
            stop_changes()
            raise
        self._pi.on_peer_change(self._peer_changed)
        self._listening = True

    def _changed(self, change: Change) -> None:
        latest = self._latest
        if latest is None:
            self._early.append(change)  # for the mark of the read under way, if one is
            return
        if change.seq <= latest.seq:
            return  # a change the snapshot we asked for already holds
        if change.seq != latest.seq + 1:
            self._out_of_step()  # one went missing: ask the game at the next call
            return
        self._latest = Mark(replay(latest.snapshot, (change,)), change.seq, latest.game)
        self._recent.append(change)

    def _peer_changed(self, name: str, joined: bool, reason: str) -> None:
        if name == GAME_NAME:
            self._game_count += 1  # a game that left, or a new one: its seq starts again
            self._out_of_step()

    def _out_of_step(self) -> None:
        self._latest = None
        self._recent.clear()
        self._early.clear()

    def _in_step_at(self, mark: Mark) -> None:
        """Follow the messages from `mark` on, unless the watch already follows from later."""
        if self._latest is None or self._latest.seq < mark.seq:
            self._latest = mark
            self._recent.clear()
            early, self._early = self._early, deque(maxlen=CHANGES_LIMIT)
            for change in early:
                self._changed(change)

    async def begin(self) -> Mark | None:
        """The snapshot before a call, or None when no game can be read."""
        if not self._game.available:
            return None
        if self._latest is not None:
            return self._latest
        self.reads += 1
        try:
            self._listen()
            game = self._game_count
            reply = await self._game.snapshot()
        except GameError as exc:
            log.debug("no snapshot before the call: %s", exc)
            return None
        mark = Mark(reply.snapshot, reply.seq, game)
        if game == self._game_count:  # (else the game left while it answered)
            self._in_step_at(mark)
        return mark

    async def end(self, owner: str, declared: Sequence[str], mark: Mark | None) -> Verdict:
        """What the call did, judged against what its tool declared."""
        if mark is None:
            return unchecked("No game was on the bus when the call started.")
        if mark.game != self._game_count:
            return unchecked("The game left the bus or started again during the call.")
        now = self._clock()
        latest, changes = self._latest, self._changes_since(mark.seq)
        if latest is not None and changes is not None and now - self._verified_at < VERIFY_EVERY:
            return judge(owner, declared, mark.snapshot, latest.snapshot, changes, complete=True)
        self.reads += 1
        self._verified_at = now  # before the read: calls that end meanwhile need not read too
        try:
            reply = await self._game.changes(mark.seq, limit=CHANGES_LIMIT)
        except GameError as exc:
            return unchecked(f"The game could not be read after the call: {exc}")
        if mark.game != self._game_count:
            return unchecked("The game left the bus or started again during the call.")
        self._check(reply)
        complete = reply.complete and not reply.more  # the whole log since the mark, or judge the difference
        return judge(owner, declared, mark.snapshot, reply.snapshot, reply.changes, complete=complete)

    def _changes_since(self, seq: int) -> Sequence[Change] | None:
        """The changes after `seq` as the messages told them, or None if the watch cannot say."""
        latest, recent = self._latest, self._recent
        if latest is None or not latest.seq - len(recent) <= seq <= latest.seq:
            return None
        count = latest.seq - seq  # the newest `count` of `recent`; a deque indexes fast near its ends
        return [recent[-i] for i in range(count, 0, -1)]

    def _check(self, reply: ChangesReply) -> None:
        """The game's own word on the changes: every message before its reply has arrived (the
        bus keeps order), so a watch behind it, or holding another snapshot, missed something."""
        latest = self._latest
        if latest is None:
            self._in_step_at(Mark(reply.snapshot, reply.seq, self._game_count))
        elif latest.seq < reply.seq or (latest.seq == reply.seq and latest.snapshot != reply.snapshot):
            log.warning(
                "%s messages went missing (the game is at change %d, XIV MCP had seen %d); reading the game again",
                CHANGED_MESSAGE,
                reply.seq,
                latest.seq,
            )
            self._out_of_step()
            self._in_step_at(Mark(reply.snapshot, reply.seq, self._game_count))
