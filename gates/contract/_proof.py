"""Proving the player key without sending it (B8): nonces, tagged MACs and the proof document.

The player key (`DATA_DIR/player.key`, made by the host, mode 0600) is proven by challenge and
response to two peers: the host, on `XivMcp.Player` (`gates.player`), and the simulated game, on
its admin gates (`game`, F4). Both sides of both compute these MACs, so they live in the contract,
which the game may import (it imports only `broker` and the contract).

Every MAC is tagged with its purpose, so one made for one purpose never serves another:

    host        the host's answer to a challenge     HMAC(key, "xivmcp-host" | clientNonce)
    player      (retired: a nonce good for any caller) HMAC(key, "xivmcp-player" | nonce | command)
    player-of   one player command of one process    HMAC(key, "xivmcp-player-of" | nonce | caller | command)
    game        the game's answer to a challenge     HMAC(key, "xivmcp-game" | clientNonce)
    game-admin  one call of a game admin gate        HMAC(key, "xivmcp-game-admin" | nonce | gate | args)

The tag and each part are joined by a NUL byte. No tag followed by NUL begins another tag, so the
host's answer to a challenge (which any peer can ask for, with a client nonce it chooses) is never
a player's MAC, nor the game's answer, nor a game admin MAC.

`player-of` names the process that asked for the nonce (its bus name, which the broker vouches
for), so a nonce serves only that process's commands; it replaced `player`, whose MACs the host no
longer takes (the documents on the wire are the same: only what the MAC covers changed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from enum import StrEnum
from typing import Final

from ._documents import Wire

__all__ = [
    "MAX_NONCE",
    "NONCE_LIFETIME",
    "PLAYER_KEY_FILE",
    "KeyProof",
    "ProofPurpose",
    "canonical_json",
    "new_nonce",
    "tagged_mac",
]

PLAYER_KEY_FILE: Final = "player.key"
"""The player key's file in the data dir: whoever can read it acts as the player."""
NONCE_LIFETIME: Final = 60.0
"""Seconds a nonce handed out for one proof stays good."""
MAX_NONCE: Final = 128
"""The longest client nonce a challenge takes."""


class ProofPurpose(StrEnum):
    """What a MAC proves; its tag. Names are API: never change one, only add."""

    HOST = "xivmcp-host"
    PLAYER = "xivmcp-player"
    """Retired: the host takes `PLAYER_OF` MACs only. Kept so the tag is never given another use."""
    PLAYER_OF = "xivmcp-player-of"
    GAME = "xivmcp-game"
    GAME_ADMIN = "xivmcp-game-admin"


class KeyProof(Wire, kw_only=True, forbid_unknown_fields=True):
    """`{"nonce": "…", "mac": "…"}`: a nonce the prover was handed, and the MAC over it and what it proves."""

    nonce: str
    mac: str


def new_nonce() -> str:
    """A random nonce (128 bits, hex)."""
    return secrets.token_hex(16)


def tagged_mac(key: str, purpose: ProofPurpose, *parts: str) -> str:
    """HMAC-SHA256 (hex) with `key` over the purpose's tag and `parts`, NUL between each."""
    message = b"\x00".join([purpose.value.encode(), *(p.encode() for p in parts)])
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def canonical_json(value: object) -> str:
    """One text for one JSON value, whoever encoded it: keys sorted, no spaces, ASCII only.

    What a MAC over a JSON document covers, so that prover and checker agree on it after it has
    crossed the bus (each decodes the sent text, then takes this). ValueError for NaN or infinity,
    which JSON has no text for."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
