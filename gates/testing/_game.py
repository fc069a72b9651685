"""`Game`: the simulated world as a test reads and sets it, and the changes a call made.

    async with game.changes_during() as changes:
        await assistant.call_tool("restock_buy", {"count": 3})
    assert [c.by for c in changes] == ["Restock"]     # each change says which process made it (W2)
    assert (await game.state()).player.gil == 9_040

Built on `game.GameClient` (the game's gates). `changes()` are the changes since the test began
(the kit resets the world before each test of a shared system, and the change log's numbers go
on, so "since the test began" is a seq). `set(path, value)` is `Game.Set`, recorded as the test's
own change, as `xivmcp game set` is the player's: the game answers it only for the player key, so
the client is the player's (`GameClient.as_player(pi, data_dir)`), never a plugin's (F4).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Final, TypeVar

from game import Change, GameClient, GameSnapshot, JsonValue, World

from ._link import DIRECT, Link, bounded

__all__ = ["GAME_WAIT", "Game"]

T = TypeVar("T")

GAME_WAIT: Final = 10.0
"""Seconds one read or change of the game may take."""


class Game:
    """The simulated game of a test's system: its world, set and read, and the changes made in it."""

    def __init__(self, client: GameClient, *, since: int = 0, link: Link = DIRECT, within: float = GAME_WAIT) -> None:
        """`client` reaches the game; `since` is the seq of the newest change before the test began."""
        self._client = client
        self._link = link
        self.since = since
        """The seq after which `changes()` begins (the newest change when the test began)."""
        self.within = within

    async def run(self, work: Callable[[GameClient], Awaitable[T]]) -> T:
        """`await work(client)` with the game's client itself, for any gate this class does not cover."""
        client = self._client
        return await self._link.run(lambda: bounded(self.within, "the game's answer", work(client)))

    async def state(self) -> World:
        """The whole world as it is now (`Game.State`)."""
        return await self.run(lambda client: client.state())

    async def snapshot(self) -> GameSnapshot:
        """What XIV MCP reads around a call: logged in, zone, gil, currencies, items, chat lines sent."""
        return (await self.run(lambda client: client.snapshot())).snapshot

    async def set(self, path: str, value: JsonValue) -> list[Change]:
        """`Game.Set`: one part of the world (gil, position, territory, logged_in, inventory.<itemId>,
        currencies.<id>, in_combat, target, walk_speed); the changes it made (none if it already was so)."""
        return (await self.run(lambda client: client.set(path, value))).changes

    async def changes(self) -> list[Change]:
        """Every change since the test began, oldest first, whoever made it."""
        return await self.changes_since(self.since)

    async def changes_since(self, seq: int) -> list[Change]:
        """Every change after the change numbered `seq`, oldest first (all pages of `Game.Changes`)."""

        async def every_page(client: GameClient) -> list[Change]:
            found: list[Change] = []
            after = seq
            while True:
                page = await client.changes(after)
                found += page.changes
                if not page.more or not page.changes:
                    return found
                after = page.changes[-1].seq

        return await self.run(every_page)

    @asynccontextmanager
    async def changes_during(self) -> AsyncIterator[list[Change]]:
        """The changes made while the block ran: the list is filled when the block ends.

        Whoever made them: a change's `by` names the process (the plugin, the test, XIV MCP).
        """
        before = (await self.run(lambda client: client.snapshot())).seq
        made: list[Change] = []
        yield made
        made += await self.changes_since(before)
