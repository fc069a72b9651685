"""The player's side of `XivMcp.Player`: one typed command in, its typed reply out.

    async with broker.connect(bus, "MyCli") as pi:
        player = PlayerClient.for_data_dir(pi, data_dir)
        report = await player.send(ListPlugins())          # PluginsReport, as `xivmcp plugins`
        digest = report.plugins[0].digest
        decision = await player.send(EnablePlugin(plugin="MyPlugin", digest=digest))
        print(decision.message)                            # what `xivmcp enable MyPlugin` prints

Every command first checks that the host on the bus knows the player key (its proof of a fresh
nonce), then sends the command with an HMAC over the host's nonce (`_auth`): the key never
travels, and a process that merely took the name `XivMcp` gets nothing and is named.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import TypeVar, cast

import msgspec

from broker import PluginInterface
from gates.contract import HostReplyError, RefusedError, decode_host_reply, encode_json

from ..datadir._secrets import read_secret
from ._auth import PlayerAuth, PlayerHelloReply, host_proof, new_nonce, player_mac
from ._protocol import PLAYER_GATE, PLAYER_HELLO_GATE, PLAYER_KEY_FILE, Command, ListPlugins

__all__ = ["NotYourHostError", "PlayerClient", "PlayerError", "read_player_key"]

R = TypeVar("R", bound=msgspec.Struct)


def read_player_key(data_dir: Path) -> str:
    return read_secret(data_dir / PLAYER_KEY_FILE, "player key")


class NotYourHostError(RefusedError):
    """Raised when the process answering as `XivMcp` cannot prove it knows the player key."""


class PlayerError(HostReplyError):
    """Raised when XIV MCP refuses one of the player's commands; `message` is the host's, as `xivmcp` prints it."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"XIV MCP refused the player's `{command}`: {message}")
        self.command = command
        """The `xivmcp` command refused (`keep-disabled`, `approve`, `job pause`, ...)."""
        self.message = message
        """The host's own message: what was wrong, and what to do instead."""


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

    async def send(self, command: Command[R]) -> R:
        """One command; the host's answer, of the command's reply type.

        Raises PlayerError with the host's message when it refuses, NotYourHostError when the
        process answering as `XivMcp` cannot prove the key, and InvalidDocumentError when the
        answer does not have the reply's shape (a host of another version).
        """
        nonce = await self._challenge()
        command_json = encode_json(command)
        auth = encode_json(PlayerAuth(nonce=nonce, mac=player_mac(self._key, nonce, self._pi.name, command_json)))
        text = await self._pi.get_ipc_subscriber(PLAYER_GATE).invoke_func(auth, command_json)
        try:
            reply = decode_host_reply(text, type(command).reply_type)
        except HostReplyError as exc:
            raise PlayerError(command.cli_name(), str(exc)) from None
        return cast(R, reply)  # `reply_type` is the R of the command's class (`Command.__init_subclass__`)

    async def digest(self, plugin: str) -> str:
        """The digest of the registration the player would decide on now ("" for an unknown plugin):
        what `EnablePlugin` and `ConsentPlugin` send when the player consents to what is shown now."""
        report = await self.send(ListPlugins(plugin=plugin))  # that card alone, not every plugin's
        return next((card.digest for card in report.plugins if card.name == plugin), "")

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
