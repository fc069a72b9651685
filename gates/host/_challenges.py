"""The host's half of the player's proof (B8): the nonces it hands out, each good for one command.

The wire documents and the MACs both sides compute are `gates.player`'s; this is the state only
the host keeps, on its own clock.

Any peer may ask `XivMcp.PlayerHello` for a nonce, so the nonces are kept per caller (B7): each
process has its own few, and a plugin that asks for thousands forgets only its own oldest, never
the player's. A nonce is good only for the process that asked for it: the host looks it up among
that caller's, and the player's MAC covers the caller's name (`player_mac`).
"""

from __future__ import annotations

import hmac
from collections import OrderedDict
from typing import Final

from gates.player import NONCE_LIFETIME, PlayerAuth, new_nonce, player_mac

from .base._clock import Clock

__all__ = ["MAX_OPEN_CHALLENGES", "Challenges"]

MAX_OPEN_CHALLENGES: Final = 16
"""Nonces one caller keeps waiting for a command at once (B7): its oldest is forgotten first.

A command asks for one nonce and uses it at once; 16 lets one process send commands side by side."""


class Challenges:
    """The host's open nonces, by caller: each good for one command of that caller within
    `NONCE_LIFETIME` seconds. Callers are as many as the processes on the bus (the broker bounds
    them); a caller's nonces go when it leaves (`forget`)."""

    def __init__(self, clock: Clock, *, lifetime: float = NONCE_LIFETIME, limit: int = MAX_OPEN_CHALLENGES) -> None:
        self._clock = clock
        self._lifetime = lifetime
        self._limit = limit
        self._open: dict[str, OrderedDict[str, float]] = {}

    def issue(self, caller: str) -> str:
        """A fresh nonce for `caller` alone."""
        mine = self._open.setdefault(caller, OrderedDict())
        nonce = new_nonce()
        mine[nonce] = self._clock.now() + self._lifetime
        while len(mine) > self._limit:
            mine.popitem(last=False)
        return nonce

    def redeem(self, key: str, caller: str, auth: PlayerAuth, command_json: str) -> bool:
        """Whether `auth` proves the key for this command of `caller`; the nonce is used up either way.

        A nonce another process asked for is not `caller`'s: it is refused, and stays its asker's."""
        mine = self._open.get(caller)
        deadline = None if mine is None else mine.pop(auth.nonce, None)
        if mine is not None and not mine:
            del self._open[caller]
        if deadline is None or deadline < self._clock.now():
            return False
        expected = player_mac(key, auth.nonce, caller, command_json)
        # bytes: a mac that is not ASCII is refused, not a TypeError out of compare_digest (G2)
        return hmac.compare_digest(auth.mac.encode(), expected.encode())

    def forget(self, caller: str) -> None:
        """`caller` left the bus: its nonces go with it."""
        self._open.pop(caller, None)

    def open_count(self, caller: str) -> int:
        """How many nonces `caller` holds now."""
        return len(self._open.get(caller, ()))
