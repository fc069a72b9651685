"""The player's side of `XivMcp.Player`, as the `xivmcp` commands (and tests) use it.

    async with broker.connect(bus, "MyCli") as pi:
        player = PlayerClient.for_data_dir(pi, data_dir)
        await player.enable("MyPlugin")                     # what `xivmcp enable MyPlugin` does
        reply = await player.command("plugins")             # {"ok": true, "plugins": [...]}

Every command first checks that the host on the bus knows the player key (its proof of a fresh
nonce), then sends the command with an HMAC over the host's nonce (`gates.player`): the key
never travels, and a process that merely took the name `XivMcp` gets nothing and is named.
"""

from __future__ import annotations

import hmac
import json
from pathlib import Path
from typing import Any

from broker import PluginInterface
from gates.contract import RefusedError, decode_host_reply, encode_json

from ..datadir._secrets import read_secret
from ._auth import PlayerAuth, PlayerHelloReply, host_proof, new_nonce, player_mac
from ._protocol import PLAYER_GATE, PLAYER_HELLO_GATE, PLAYER_KEY_FILE

__all__ = ["NotYourHostError", "PlayerClient", "read_player_key"]


def read_player_key(data_dir: Path) -> str:
    return read_secret(data_dir / PLAYER_KEY_FILE, "player key")


class NotYourHostError(RefusedError):
    """Raised when the process answering as `XivMcp` cannot prove it knows the player key."""


class PlayerClient:
    """Sends the player's commands to the host, proving the key without sending it."""

    def __init__(self, pi: PluginInterface, key: str, *, key_file: Path | None = None) -> None:
        self._pi = pi
        self._key = key
        self._key_file = key_file or Path("DATA_DIR") / PLAYER_KEY_FILE

    @classmethod
    def for_data_dir(cls, pi: PluginInterface, data_dir: Path) -> PlayerClient:
        """With the key of `data_dir` (FileNotFoundError saying what to do if no host ever made it)."""
        return cls(pi, read_player_key(data_dir), key_file=data_dir / PLAYER_KEY_FILE)

    async def command(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """One command (``{"cmd": cmd, **fields}``); the host's reply, `{"ok": …}`, as a dict."""
        nonce = await self._challenge()
        command_json = json.dumps({"cmd": cmd, **fields})
        auth = encode_json(PlayerAuth(nonce=nonce, mac=player_mac(self._key, nonce, command_json)))
        text = await self._pi.get_ipc_subscriber(PLAYER_GATE).invoke_func(auth, command_json)
        reply: dict[str, Any] = json.loads(text)
        return reply

    async def enable(self, plugin: str, digest: str | None = None, *, cmd: str = "enable") -> dict[str, Any]:
        """Enable (`cmd="consent"`: consent again to) the registration shown now, or the one whose
        `digest` the player saw; a registration that grew since is refused with what is new."""
        if digest is None:
            digest = await self.digest(plugin)
        return await self.command(cmd, plugin=plugin, digest=digest)

    async def digest(self, plugin: str) -> str:
        """The digest of the registration the player would decide on now ("" for an unknown plugin)."""
        reply = await self.command("plugins", plugin=plugin)  # that card alone, not every plugin's
        cards = [card for card in reply.get("plugins", []) if card.get("name") == plugin]
        return str(cards[0]["digest"]) if cards else ""

    async def _challenge(self) -> str:
        """Check the host's proof of the key; the nonce it handed out for one command."""
        client_nonce = new_nonce()
        text = await self._pi.get_ipc_subscriber(PLAYER_HELLO_GATE).invoke_func(client_nonce)
        hello = decode_host_reply(text, PlayerHelloReply)
        if not hmac.compare_digest(hello.proof, host_proof(self._key, client_nonce)):
            raise NotYourHostError(
                f"This XivMcp is not your host (it does not know {self._key_file}): another process has "
                "the name XivMcp on this bus, or the host runs with another data dir. Nothing was sent; "
                "check --bus and --data-dir (or stop that process and start `xivmcp host`)."
            )
        return hello.nonce
