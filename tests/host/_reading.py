"""Helpers of the reading tools' tests (test_reading_tools, test_surroundings): the player as the
assistant and the game's client on a system with a game, the world as the game started, and a check
that a block records no change in the game."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import anyio

from game import GameClient
from gates.testing import Player

from ._system import WAIT, XivMcpSystem, player_of

__all__ = ["LOGGED_OUT", "session", "unchanged"]

LOGGED_OUT: Final = "No character is currently logged in."
"""The real host's refusal while no character is logged in (`XivMcp/Util/Game.cs`, RunLoggedIn)."""


@asynccontextmanager
async def session(system: XivMcpSystem) -> AsyncIterator[tuple[Player, GameClient]]:
    """The player (whose `call` reaches the gate as the assistant's, as `xivmcp call` does) and the game
    with the player key, the world put back as the game started it (`Game.Reset`)."""
    async with system.connect("Tester") as pi:
        game = GameClient.as_player(pi, system.data_dir)
        with anyio.fail_after(WAIT):
            await game.reset()
        yield player_of(pi, system.data_dir), game


@asynccontextmanager
async def unchanged(game: GameClient) -> AsyncIterator[None]:
    """The block reads the game and records no change in it: no change logged, the same snapshot."""
    before = await game.snapshot()
    yield
    assert (await game.changes(before.seq)).changes == [] and (await game.snapshot()) == before
