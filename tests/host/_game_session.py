"""The host tests' helpers for a system with a game: the assistant and the game's client on the test's
own peer, and what a test reads of the game's world and change log.

Test modules that run XIV MCP's game tools against the simulated game (`xivmcp game --test-clock`)
share these instead of each keeping a copy (or importing one from another test module):

    @pytest.fixture(scope="module")
    def shops(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
        yield start_game_allowing(system, "market", "items_retainers")

    async with fresh(shops) as (assistant, game):     # the world as the game started it
        before, seq = await snapshot(game)
        ...
        assert await made_since(game, seq) == [("XivMcp", "spend_gil", "...")]
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import jsonschema  # type: ignore[import-untyped]  # a dependency of mcp, without stubs

import broker
from game import GameClient, GameSnapshot
from gates.host.tools._core_definitions import OUTPUT_SCHEMAS
from gates.player import CallReply, CallTool, PlayerClient, ProgressEvent, decode_call_event

from ._system import WAIT, XivMcpSystem, player_of, run_in_thread

__all__ = [
    "START",
    "TULIYOLLAL",
    "Assistant",
    "Reply",
    "fresh",
    "made_since",
    "matching_schema",
    "refusals",
    "seq",
    "session",
    "snapshot",
    "start_game_allowing",
]

START = (-20.0, 12.0)
"""Where the default world's character stands in Tuliyollal (world x, z)."""
TULIYOLLAL = 1185


def start_game_allowing(system: XivMcpSystem, *modules: str) -> XivMcpSystem:
    """Start the system's game on the test clock (`xivmcp game --test-clock`) and, as the player
    would, allow the changes of each of `modules` (denied by default, as in the real host)."""
    system.start_game("--test-clock")

    async def allow() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            for module in modules:
                await player.module(module, "changes", "allow")

    if modules:
        run_in_thread(allow)
    return system


class Assistant:
    """The player's `call` command as the assistant's calls, with the call's progress lines on a stream."""

    def __init__(self, pi: broker.PluginInterface, data_dir: Path) -> None:
        self.pi = pi
        self.player = player_of(pi, data_dir)
        self._client = PlayerClient.for_data_dir(pi, data_dir)  # `call` with `notify`, which the kit's Player has not
        self.gate = f"{pi.name}.CallEvents"
        self._lines, self._stream = anyio.create_memory_object_stream[str](100)
        pi.get_ipc_provider(self.gate, params=(str,)).register_action(self._event, callers=("XivMcp",))

    def _event(self, text: str) -> None:
        event = decode_call_event(text)
        if isinstance(event, ProgressEvent):
            self._lines.send_nowait(event.text)

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> CallReply:
        with anyio.fail_after(WAIT * 3):
            return await self._client.send(CallTool(tool=tool, arguments=arguments or {}, notify=self.gate))

    async def result(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        return _result(tool, await self.call(tool, arguments))

    async def error(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        return _error(await self.call(tool, arguments))

    async def progress(self) -> str:
        with anyio.fail_after(WAIT):
            return await self._stream.receive()

    def close(self) -> None:
        self._lines.close()
        self._stream.close()

    def start(self, tg: anyio.abc.TaskGroup, tool: str, arguments: dict[str, Any] | None = None) -> Reply:
        reply = Reply(tool)
        tg.start_soon(reply.take, self.call(tool, arguments))
        return reply


def _result(tool: str, reply: CallReply) -> Any:
    assert not reply.is_error, reply
    return matching_schema(tool, reply.result)


def _error(reply: CallReply) -> str:
    assert reply.is_error and reply.error is not None, reply
    return reply.error


class Reply:
    """A call made in the background: its reply once it came."""

    def __init__(self, tool: str) -> None:
        self._tool = tool
        self._done = anyio.Event()
        self._reply: CallReply | None = None

    async def take(self, call: Awaitable[CallReply]) -> None:
        self._reply = await call
        self._done.set()

    async def _taken(self) -> CallReply:
        with anyio.fail_after(WAIT * 3):
            await self._done.wait()
        assert self._reply is not None
        return self._reply

    async def result(self) -> Any:
        return _result(self._tool, await self._taken())

    async def error(self) -> str:
        return _error(await self._taken())


@asynccontextmanager
async def session(system: XivMcpSystem) -> AsyncIterator[tuple[Assistant, GameClient]]:
    """The assistant and the game, with the character logged in at its start and no flag or window."""
    async with broker.connect(system.endpoint, "Tester") as pi:
        game = GameClient.as_player(pi, system.data_dir)
        assistant = Assistant(pi, system.data_dir)
        await pi.flush()  # the host can send progress lines to the CallEvents gate
        await game.set("logged_in", True)
        await game.end_combat()
        await game.set_position(*START, y=0.5, territory=TULIYOLLAL)
        await game.clear_flag()
        for window in await game.windows():
            await game.close_window(window.name)
        try:
            yield assistant, game
        finally:
            assistant.close()


def matching_schema(tool: str, result: Any) -> Any:
    """The result, once checked against the outputSchema MCP clients check it against (if it has one)."""
    schema = OUTPUT_SCHEMAS.get(tool)
    if schema is not None:
        jsonschema.validate(result, schema)
    return result


async def seq(game: GameClient) -> int:
    return (await game.snapshot()).seq


@asynccontextmanager
async def fresh(system: XivMcpSystem) -> AsyncIterator[tuple[Assistant, GameClient]]:
    """A `session` on the world put back as the game started it (`Game.Reset`)."""
    async with session(system) as (assistant, game):
        with anyio.fail_after(WAIT * 3):
            await game.reset()
            yield assistant, game


async def snapshot(game: GameClient) -> tuple[GameSnapshot, int]:
    """The game's world and the sequence number of its change log now."""
    reply = await game.snapshot()
    return reply.snapshot, reply.seq


async def made_since(game: GameClient, seq: int) -> list[tuple[str, str, str]]:
    """The changes logged after `seq`: who made each, with which capability, and what it was."""
    return [(c.by, c.capability, c.summary) for c in (await game.changes(seq)).changes]


async def refusals(assistant: Assistant, game: GameClient, tool: str, *arguments: dict[str, object]) -> list[str]:
    """The tool's refusals of each set of arguments, each checked to have changed nothing."""
    before = await snapshot(game)
    messages = [await assistant.error(tool, args) for args in arguments]
    assert await snapshot(game) == before
    return messages
