"""The game's admin gates answer only the player (F4): the player key, proven as the player's commands prove it.

`Game.Set`, `Game.AdvanceClock`, `Game.Save` and `Game.Reset` (`ADMIN_GATES`) rewrite the world
rather than act in it as a character would. A plugin that could call them would hide its own
effects from XIV MCP's before/after verdict (spend gil, then set it back) or write files anywhere.
So each call proves the player key, `DATA_DIR/player.key`, which the host makes and the game reads
from the data dir it was started with (`--data-dir`) each time it checks:

    caller ─ Game.AdminHello {"nonce": clientNonce} ────────────────────────► game
           ◄─ {nonce, proof = HMAC(key, "xivmcp-game" | clientNonce)} ───────
             (the caller checks the proof: a game that checks another key, or none, cannot make it)
           ─ Game.Set {"path": "gil", "value": 5000, "proof": {"nonce": …, "mac": …}} ─►
             mac = HMAC(key, "xivmcp-game-admin" | nonce | "Game.Set" | the arguments without
                        "proof", as `canonical_json` gives them)
             (the nonce was handed to this caller, is good once, for a minute)

The key never travels (B8), and the MACs have tags of their own (`gates.contract.ProofPurpose`): a
player's command MAC, or the host's answer to a challenge, never serves as the game's. Without a
valid proof nothing changes, and the refusal says who may call and how a plugin acts instead. A
game started without a data dir has no key to check, and its admin gates refuse saying so.
"""

from __future__ import annotations

import hmac
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Final

import msgspec

from gates.contract import (
    MAX_NONCE,
    NONCE_LIFETIME,
    KeyProof,
    ProofPurpose,
    canonical_json,
    new_nonce,
    tagged_mac,
)

from ._args import AdminHelloArgs
from ._errors import Refusal
from ._names import GameGate
from ._replies import AdminHelloReply

__all__ = ["MAX_OPEN_NONCES", "MAX_OPEN_PER_CALLER", "AdminDoor", "admin_mac", "game_proof", "wire_arguments"]

MAX_OPEN_PER_CALLER: Final = 16
"""Nonces one caller may hold at once (B7): its oldest is forgotten first, nobody else's."""
MAX_OPEN_NONCES: Final = 1024
"""Nonces the game keeps at once, whoever holds them: the oldest is forgotten first."""
_HOW: Final = {
    GameGate.SET: "`xivmcp game set PATH VALUE`",
    GameGate.ADVANCE_CLOCK: "`xivmcp advance-clock SECONDS`",
    GameGate.SAVE: "`xivmcp game save FILE`",
    GameGate.RESET: "the test kit, between tests",
}
"""How the player reaches each admin gate, for the refusal to say."""


def game_proof(key: str, client_nonce: str) -> str:
    """What the game answers a challenge with: only a game that reads the player key can make it."""
    return tagged_mac(key, ProofPurpose.GAME, client_nonce)


def admin_mac(key: str, nonce: str, gate: str, arguments: object) -> str:
    """The MAC of one admin call: binds the key, the game's nonce, the gate and its arguments
    (the JSON value, without "proof"). ValueError for a value JSON has no text for (NaN)."""
    return tagged_mac(key, ProofPurpose.GAME_ADMIN, nonce, gate, canonical_json(arguments))


def wire_arguments(text: str | bytes) -> object:
    """The JSON value of `text` as the game reads it: what both sides take the MAC over."""
    return msgspec.json.decode(text)


class AdminDoor:
    """The check in front of the admin gates: the nonces handed out, and the player key they prove."""

    def __init__(
        self,
        key_file: Path | None,
        *,
        now: Callable[[], float] = time.monotonic,
        lifetime: float = NONCE_LIFETIME,
        per_caller: int = MAX_OPEN_PER_CALLER,
        limit: int = MAX_OPEN_NONCES,
    ) -> None:
        """`key_file`: the player key to check against (None: the game has none; every admin call is
        refused). `now`: real time, not the game's clock, which a test moves by hours."""
        self.key_file = key_file
        self._now = now
        self._lifetime = lifetime
        self._per_caller = per_caller
        self._limit = limit
        self._open: OrderedDict[str, tuple[str, float]] = OrderedDict()
        """nonce -> (the caller it was handed to, when it stops being good), oldest first."""
        self._held: Counter[str] = Counter()

    def hello(self, args: AdminHelloArgs, caller: str) -> AdminHelloReply:
        """`Game.AdminHello`: prove the game reads the key, and hand `caller` a nonce for one admin call."""
        if not 0 < len(args.nonce) <= MAX_NONCE:
            raise Refusal(f"`nonce` takes a random nonce of 1 to {MAX_NONCE} characters (GameClient sends one)")
        key = self._key()
        return AdminHelloReply(nonce=self._issue(caller), proof=game_proof(key, args.nonce))

    def admit(self, gate: GameGate, text: str | None, caller: str) -> str:
        """The arguments of an admin call without its proof (a JSON object in a string), if the
        proof holds; a `Refusal` saying who may call otherwise. The nonce is used up either way."""
        key = self._key()
        try:
            value = wire_arguments(text or "{}")
        except msgspec.DecodeError:
            value = None
        proof = self._proof(value)
        if not isinstance(value, dict) or proof is None or not self._redeem(key, proof, gate, value, caller):
            raise Refusal(
                f"only the player rewrites the world this way ({_HOW[gate]}, or a test harness with the "
                "player key); a plugin acts in the world through the game's other gates, as a character "
                "would (Game.Buy, Game.MoveTo, Game.SendChat, ...). Nothing was changed. A caller with the "
                "player key asks Game.AdminHello for a nonce and sends its proof with the call "
                "(GameClient.as_player does both)"
            )
        return msgspec.json.encode(value).decode()

    def _key(self) -> str:
        """The player key as the data dir holds it now (the host may have made it after the game started)."""
        path = self.key_file
        if path is None:
            raise Refusal(
                "this game was started without a data dir, so it has no player key to tell the player from "
                "a plugin, and refuses every admin gate; start it with --data-dir DATA_DIR, XIV MCP's data "
                "dir (`xivmcp up` does)"
            )
        try:
            key = path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            key = ""
        except OSError as exc:
            raise Refusal(
                f"the game cannot read the player key at {path} ({exc.strerror or exc}); it must be this "
                "user's own file, as XIV MCP makes it"
            ) from None
        if not key:
            raise Refusal(
                f"there is no player key at {path} yet, so the game cannot tell the player from a plugin; "
                f"start XIV MCP once with this data dir (`xivmcp up --data-dir {path.parent}`), which makes "
                "it, then call again"
            )
        return key

    @staticmethod
    def _proof(value: object) -> KeyProof | None:
        """The call's proof, taken out of its arguments (None when there is none, or it is no proof)."""
        if not isinstance(value, dict):
            return None
        try:
            return msgspec.convert(value.pop("proof", None), KeyProof)
        except msgspec.ValidationError:
            return None

    def _issue(self, caller: str) -> str:
        now = self._now()
        while self._open:
            oldest, (_, deadline) = next(iter(self._open.items()))
            if deadline > now:
                break
            self._forget(oldest)  # deadlines come in the order the nonces were handed out
        if self._held[caller] >= self._per_caller:
            self._forget(next(n for n, (holder, _) in self._open.items() if holder == caller))
        if len(self._open) >= self._limit:
            self._forget(next(iter(self._open)))
        nonce = new_nonce()
        self._open[nonce] = (caller, now + self._lifetime)
        self._held[caller] += 1
        return nonce

    def _forget(self, nonce: str) -> None:
        caller, _ = self._open.pop(nonce)
        self._held[caller] -= 1
        if self._held[caller] <= 0:
            del self._held[caller]

    def _redeem(self, key: str, proof: KeyProof, gate: GameGate, arguments: object, caller: str) -> bool:
        """Whether `proof` proves the key for this call by this caller; its nonce is used up if it was the caller's."""
        issued = self._open.get(proof.nonce)
        if issued is None or issued[0] != caller:  # another caller's nonce is not this one's to use up
            return False
        self._forget(proof.nonce)
        if issued[1] <= self._now():
            return False
        try:
            expected = admin_mac(key, proof.nonce, gate.value, arguments)
        except ValueError:  # NaN or infinity: no JSON text, so no MAC either
            return False
        return hmac.compare_digest(proof.mac.encode(), expected.encode())  # bytes: any text compares
