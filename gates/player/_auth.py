"""The player's key proven by challenge and response: it never travels (B8).

Only a process that can read ``DATA_DIR/player.key`` acts as the player. It proves that by an
HMAC over a nonce, and the host proves it too, so a process that took the name `XivMcp` while
the host was down learns nothing: it cannot answer the challenge, and the command line says
"this XivMcp is not your host".

    player ─ PlayerHello(clientNonce) ──────────────────────────────► host
           ◄─ {nonce, proof = HMAC(key, "host" | clientNonce)} ─────
             (checks the proof: a host without the key cannot make it)
           ─ Player({nonce, mac = HMAC(key, "player-of" | nonce | caller | command)}, command) ─►
                 (checks the mac; each nonce is good once, for a minute, for the caller that asked)

The two purposes are tagged, so the host's proof can never serve as a player's mac. The nonces,
the tagged MACs and the proof document are the contract's (`gates.contract`), which the game's
admin gates prove the same key with (F4), under tags of their own.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from gates.contract import NONCE_LIFETIME, DocumentDecoder, KeyProof, ProofPurpose, Wire, new_nonce, tagged_mac

__all__ = [
    "NONCE_LIFETIME",
    "PlayerAuth",
    "PlayerHelloReply",
    "decode_player_auth",
    "host_proof",
    "new_nonce",
    "player_mac",
]

PlayerAuth: TypeAlias = KeyProof
"""`XivMcp.Player`'s first argument: the contract's proof document (`gates.contract._proof`)."""


class PlayerHelloReply(Wire, kw_only=True):
    nonce: str
    proof: str


_AUTH: Final = DocumentDecoder(PlayerAuth, "player proof", '{"nonce": "…", "mac": "…"} (the xivmcp commands send it)')


def decode_player_auth(text: str | bytes) -> PlayerAuth:
    return _AUTH.decode(text)


def host_proof(key: str, client_nonce: str) -> str:
    """What the host answers a challenge with: only the holder of the key can make it."""
    return tagged_mac(key, ProofPurpose.HOST, client_nonce)


def player_mac(key: str, nonce: str, caller: str, command_json: str) -> str:
    """What the player sends with one command: binds the key, the host's nonce, the bus name of the
    process that asked for it and sends the command (`caller`), and the command."""
    return tagged_mac(key, ProofPurpose.PLAYER_OF, nonce, caller, command_json)
