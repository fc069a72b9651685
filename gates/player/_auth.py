"""The player's key proven by challenge and response: it never travels (B8).

Only a process that can read ``DATA_DIR/player.key`` acts as the player. It proves that by an
HMAC over a nonce, and the host proves it too, so a process that took the name `XivMcp` while
the host was down learns nothing: it cannot answer the challenge, and the command line says
"this XivMcp is not your host".

    player ─ PlayerHello(clientNonce) ──────────────────────────────► host
           ◄─ {nonce, proof = HMAC(key, "host" | clientNonce)} ─────
             (checks the proof: a host without the key cannot make it)
           ─ Player({nonce, mac = HMAC(key, "player" | nonce | command)}, command) ─►
                                         (checks the mac; each nonce is good once, for a minute)

The two purposes are tagged, so the host's proof can never serve as a player's mac.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

from gates.contract import DocumentDecoder, Wire

__all__ = [
    "NONCE_LIFETIME",
    "PlayerAuth",
    "PlayerHelloReply",
    "decode_player_auth",
    "host_proof",
    "new_nonce",
    "player_mac",
]

NONCE_LIFETIME: Final = 60.0
"""Seconds a host's nonce stays good for one command."""


class PlayerAuth(Wire, kw_only=True, forbid_unknown_fields=True):
    """`XivMcp.Player`'s first argument."""

    nonce: str
    mac: str


class PlayerHelloReply(Wire, kw_only=True):
    nonce: str
    proof: str


_AUTH: Final = DocumentDecoder(PlayerAuth, "player proof", '{"nonce": "…", "mac": "…"} (the xivmcp commands send it)')


def decode_player_auth(text: str | bytes) -> PlayerAuth:
    return _AUTH.decode(text)


def new_nonce() -> str:
    return secrets.token_hex(16)


def _mac(key: str, purpose: bytes, *parts: str) -> str:
    message = purpose + b"\x00" + b"\x00".join(p.encode() for p in parts)
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def host_proof(key: str, client_nonce: str) -> str:
    """What the host answers a challenge with: only the holder of the key can make it."""
    return _mac(key, b"xivmcp-host", client_nonce)


def player_mac(key: str, nonce: str, command_json: str) -> str:
    """What the player sends with one command: binds the key, the host's nonce and the command."""
    return _mac(key, b"xivmcp-player", nonce, command_json)
