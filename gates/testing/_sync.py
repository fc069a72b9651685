"""The blocking twins of `Assistant` and `Game`, for sync tests, and calls left running in the background.

Each method runs its async twin's on the kit's loop and blocks until it returns (`KitLoop.call`),
with the same name, arguments and result, so a test reads the same whether it is `def` or
`async def`. A call that waits for the player (an approval) would block a sync test forever, so it
can be started in the background instead (`start_call_tool`) and its result taken afterwards.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from game import Change, GameClient, GameSnapshot, JsonValue, World

from ._game import Game
from ._link import CALL_WAIT, KitLoop

if TYPE_CHECKING:  # the `mcp` client loads in half a second: only a test with an assistant pays for it
    import mcp_types as types
    from mcp import Client

    from ._assistant import Assistant, ToolResult

__all__ = ["BackgroundCall", "SyncAssistant", "SyncGame"]

T = TypeVar("T")


class BackgroundCall(Generic[T]):
    """A call running on the kit's loop while a sync test goes on (to answer its approval, say)."""

    def __init__(self, future: concurrent.futures.Future[T], what: str) -> None:
        self._future = future
        self.what = what

    @property
    def done(self) -> bool:
        """Whether the call has ended (with a result, an exception, or cancelled); never waits."""
        return self._future.done()

    def result(self, within: float = CALL_WAIT) -> T:
        """Wait up to `within` seconds for the call to end; its result (or its exception)."""
        try:
            return self._future.result(within)
        except concurrent.futures.TimeoutError:
            raise TimeoutError(
                f"{self.what} did not end within {within:g} s; does it wait for an approval "
                "(player.wait_approval, then approve or decline)?"
            ) from None

    def cancel(self) -> None:
        """Give up the call (the app gives up: XIV MCP cancels it). The kit does this at the test's end."""
        self._future.cancel()


class SyncAssistant:
    """`Assistant`, blocking: for sync tests (the `assistant` fixture)."""

    def __init__(self, loop: KitLoop, assistant: Assistant) -> None:
        self._loop = loop
        self._assistant = assistant
        self._background: list[BackgroundCall[Any]] = []

    def run(self, work: Callable[[Client], Awaitable[T]]) -> T:
        """`Assistant.run`: `work(client)` with the official client itself, awaited on the kit's loop."""
        return self._loop.call(lambda: self._assistant.run(work))

    def list_tools(self) -> list[types.Tool]:
        """Every tool offered now, all pages, asked afresh."""
        return self._loop.call(self._assistant.list_tools)

    def tool_names(self) -> list[str]:
        """The names of the tools offered now."""
        return self._loop.call(self._assistant.tool_names)

    def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, within: float | None = None
    ) -> ToolResult:
        """Call a tool as the assistant would; a refused or failed call is a result with `is_error`."""
        return self._loop.call(lambda: self._assistant.call_tool(name, arguments, within=within))

    def start_call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, within: float | None = None
    ) -> BackgroundCall[ToolResult]:
        """`call_tool` in the background: returns at once; `.result()` waits for the call to end."""
        future = self._loop.start(lambda: self._assistant.call_tool(name, arguments, within=within))
        call: BackgroundCall[ToolResult] = BackgroundCall(future, f"the assistant's call of {name}")
        self._background.append(call)
        return call

    def search_tools(self, query: str = "", toolset: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """`search_tools`: the tools that may run now matching every word of `query`."""
        return self._loop.call(lambda: self._assistant.search_tools(query, toolset, limit))

    def list_resources(self) -> list[types.Resource]:
        """The resources offered (XIV MCP's caches)."""
        return self._loop.call(self._assistant.list_resources)

    def read_resource(self, uri: str) -> str:
        """The text of a resource, such as ``xiv://cache/plugins``."""
        return self._loop.call(lambda: self._assistant.read_resource(uri))

    def read_json(self, uri: str) -> Any:
        """A resource's text as JSON."""
        return self._loop.call(lambda: self._assistant.read_json(uri))

    def cancel_background(self) -> None:
        """Give up every call started in the background that is still running (the test is over)."""
        for call in self._background:
            call.cancel()


class SyncGame:
    """`Game`, blocking: for sync tests (the `game` fixture)."""

    def __init__(self, loop: KitLoop, game: Game) -> None:
        self._loop = loop
        self._game = game

    @property
    def since(self) -> int:
        """The seq after which `changes()` begins (the newest change when the test began)."""
        return self._game.since

    def run(self, work: Callable[[GameClient], Awaitable[T]]) -> T:
        """`Game.run`: `work(client)` with the game's client itself, for any gate not covered here."""
        return self._loop.call(lambda: self._game.run(work))

    def state(self) -> World:
        """The whole world as it is now."""
        return self._loop.call(self._game.state)

    def snapshot(self) -> GameSnapshot:
        """What XIV MCP reads around a call."""
        return self._loop.call(self._game.snapshot)

    def set(self, path: str, value: JsonValue) -> list[Change]:
        """`Game.Set` one part of the world; the changes it made."""
        return self._loop.call(lambda: self._game.set(path, value))

    def changes(self) -> list[Change]:
        """Every change since the test began, oldest first."""
        return self._loop.call(self._game.changes)

    def changes_since(self, seq: int) -> list[Change]:
        """Every change after the change numbered `seq`, oldest first."""
        return self._loop.call(lambda: self._game.changes_since(seq))

    @contextmanager
    def changes_during(self) -> Iterator[list[Change]]:
        """The changes made while the block ran: the list is filled when the block ends."""
        before = self.run(lambda client: client.snapshot()).seq
        made: list[Change] = []
        yield made
        made += self.changes_since(before)
