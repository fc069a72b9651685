"""The host's half of the player's proof (B8): the nonces it hands out, each good for one command.

The wire documents and the MACs both sides compute are `gates.player`'s; this is the state only
the host keeps, on its own clock.
"""

from __future__ import annotations

import hmac
from collections import OrderedDict
from typing import Final

from gates.player import NONCE_LIFETIME, PlayerAuth, new_nonce, player_mac

from .base._clock import Clock

__all__ = ["MAX_OPEN_CHALLENGES", "Challenges"]

MAX_OPEN_CHALLENGES: Final = 256
"""Nonces the host keeps waiting for a command at once (B7): the oldest is forgotten first."""


class Challenges:
    """The host's open nonces: each good for one command within `NONCE_LIFETIME` seconds."""

    def __init__(self, clock: Clock, *, lifetime: float = NONCE_LIFETIME, limit: int = MAX_OPEN_CHALLENGES) -> None:
        self._clock = clock
        self._lifetime = lifetime
        self._limit = limit
        self._open: OrderedDict[str, float] = OrderedDict()

    def issue(self) -> str:
        nonce = new_nonce()
        self._open[nonce] = self._clock.now() + self._lifetime
        while len(self._open) > self._limit:
            self._open.popitem(last=False)
        return nonce

    def redeem(self, key: str, auth: PlayerAuth, command_json: str) -> bool:
        """Whether `auth` proves the key for this command; the nonce is used up either way."""
        deadline = self._open.pop(auth.nonce, None)
        if deadline is None or deadline < self._clock.now():
            return False
        # bytes: a mac that is not ASCII is refused, not a TypeError out of compare_digest (G2)
        return hmac.compare_digest(auth.mac.encode(), player_mac(key, auth.nonce, command_json).encode())
