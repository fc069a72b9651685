"""Helpers of the game tests, on the shipped harness (`gates.testing`): a broker and a game as processes.

    with game_system(tmp_path) as system:           # broker + `xivmcp game --test-clock`, free port
        async with game_peer(system) as (pi, game):     # the test's own peer "Tester" and a GameClient
            reply = await game.buy(4554, 2)

There is no host: the system's player key is made by the harness (`XivMcpSystem.player_key`), and
the test's GameClient proves it, so `game.set(...)` and the other admin gates answer it (F4);
`game_peer(system, player=False)` is a plugin's client, without the key.

Every process is killed by pid by the harness (`XivMcpSystem.close`), whatever the test did;
a test waits for a line, a message or a state under a timeout, never for time to pass.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

import broker
from game import GameClient, GameError, GameGate
from gates.contract import PLAYER_KEY_FILE, ProofPurpose, canonical_json, new_nonce, tagged_mac
from gates.testing import XivMcpSystem, xivmcp_argv
from tests._gates import refused

__all__ = [
    "ROOT",
    "TESTER",
    "WAIT",
    "call",
    "fresh",
    "game_system",
    "proven",
    "refusal",
    "refused",
    "run_cli",
    "game_peer",
]

ROOT = Path(__file__).resolve().parents[2]
WAIT = 10.0
"""Seconds any one awaited event may take (a loaded 2-core machine starts processes slowly)."""
TESTER = "Tester"
"""The test's own peer: the `by` of every change it makes."""


@contextlib.contextmanager
def game_system(root: Path, *game_args: str, start_game: bool = True) -> Iterator[XivMcpSystem]:
    """A broker and (unless told otherwise) a game on the test clock; all killed by pid on the way out."""
    with XivMcpSystem(root, cwd=ROOT) as system:
        system.start_broker()
        system.player_key()  # no host makes it here: the harness does, and the game checks it (F4)
        if start_game:
            system.start_game("--test-clock", *game_args)
        yield system


@asynccontextmanager
async def game_peer(
    system: XivMcpSystem, name: str = TESTER, *, player: bool = True
) -> AsyncIterator[tuple[broker.PluginInterface, GameClient]]:
    """The test's own peer on the system's bus, and a `GameClient` over it: with the player key, as
    the harness's (`player=False`: a plugin's, without it)."""
    async with system.connect(name) as pi:
        yield pi, GameClient.as_player(pi, system.data_dir) if player else GameClient(pi)


async def call(pi: broker.PluginInterface, gate: str, argument: object) -> dict[str, Any]:
    """Call a game gate with a raw argument and decode its JSON reply."""
    with anyio.fail_after(WAIT):
        text = await pi.get_ipc_subscriber(gate).invoke_func(argument)
    assert isinstance(text, str), text
    reply = json.loads(text)
    assert isinstance(reply, dict)
    return reply


async def proven(pi: broker.PluginInterface, data_dir: Path, gate: str, argument: str) -> str:
    """`argument` of an admin gate with the proof of the player key of `data_dir`, made as the game's
    docs say (not by GameClient, so the protocol itself is tested): a nonce from Game.AdminHello,
    mac = HMAC(key, "xivmcp-game-admin" | nonce | gate | the arguments as canonical JSON)."""
    key = (data_dir / PLAYER_KEY_FILE).read_text(encoding="utf-8").strip()
    hello = await call(pi, GameGate.ADMIN_HELLO, json.dumps({"nonce": new_nonce()}))
    arguments = json.loads(argument)
    mac = tagged_mac(key, ProofPurpose.GAME_ADMIN, hello["nonce"], gate, canonical_json(arguments))
    return json.dumps({**arguments, "proof": {"nonce": hello["nonce"], "mac": mac}})


def run_cli(system: XivMcpSystem, *args: str, data_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `xivmcp ARGS --bus ENDPOINT --data-dir DIR` (as the player: the system's key, or that of
    `data_dir`) to its end (killed if it outlives the timeout), output captured."""
    argv = xivmcp_argv(*args, "--bus", system.endpoint, "--data-dir", str(data_dir or system.data_dir))
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=WAIT * 3, check=False)


@asynccontextmanager
async def fresh(system: XivMcpSystem) -> AsyncIterator[tuple[broker.PluginInterface, GameClient]]:
    """The test's peer and game client, on the default world as the game started with it."""
    async with game_peer(system) as (pi, game):
        with anyio.fail_after(WAIT):
            await game.reset()
            yield pi, game


async def refusal(call: Awaitable[object]) -> str:
    """The game's message for a call it refuses (the test fails if the call succeeds)."""
    with pytest.raises(GameError) as caught:
        await call
    return caught.value.message
