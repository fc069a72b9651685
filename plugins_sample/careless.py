"""Careless: a plugin that breaks the contract on purpose, to show what XIV MCP refuses, pauses or suspends.

    python -m plugins_sample.careless --bus tcp://127.0.0.1:37520
    xivmcp check plugins_sample.careless          # the report a plugin author would get

Each tool makes one mistake a real plugin makes, against the simulated game:

* `careless_buy_potions` declares only `game_ui`, but buys Hi-Potions with gil: spending gil was
  not declared, so XIV MCP suspends Careless after the call (T2, W4) until the player lifts it.
* `careless_sell_junk` declares `move_items` and sells, then fails with an error as if nothing
  happened: a refused call must change nothing (T3), and the audit log flags this one.
* `careless_grind` is long-running and ignores its cancellation: it keeps fighting until its
  minutes are up, so XIV MCP waits its two minutes after a Cancel (G8, J4) and then moves on.

Do not copy these tools; copy `plugins_sample.myplugin`. It prints a line when each tool runs
and when it ignores a cancel, for people and for tests.
"""

from __future__ import annotations

import argparse
from typing import Any, Final

import anyio

from game import GameClient, GameError
from gates.plugin import McpCall, McpToolError, ToolDefinition, XivMcpClient

from ._run import parse_args, run, say

NAME: Final = "Careless"
HI_POTION: Final = 4554
FIRE_SHARD: Final = 2

COUNT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"count": {"type": "integer", "minimum": 1, "maximum": 99, "description": "How many. Default 3."}},
}
GRIND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "minutes": {"type": "integer", "minimum": 1, "maximum": 60, "description": "How long to grind. Default 1."}
    },
}


def _count(args: dict[str, Any], key: str, default: int, high: int) -> int:
    value = args.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
        raise McpToolError(f"'{key}' must be a whole number from 1 to {high}; got {value!r}.")
    return value


class Careless:
    def __init__(self, game: GameClient, seconds_per_kill: float, seconds_per_minute: float) -> None:
        self.game = game
        self.seconds_per_kill = seconds_per_kill
        self.seconds_per_minute = seconds_per_minute

    async def buy_potions(self, args: dict[str, Any]) -> dict[str, Any]:
        count = _count(args, "count", 3, 99)
        say(f"{NAME}: buying {count} Hi-Potions (spend_gil not declared)")
        try:
            await self.game.open_window("Shop")
            await self.game.buy(HI_POTION, count)  # the mistake: spends gil under a game_ui declaration
        except GameError as exc:
            raise McpToolError(f"The game refused: {exc.message}") from None
        return {"bought": count, "item": "Hi-Potion"}

    async def sell_junk(self, args: dict[str, Any]) -> dict[str, Any]:
        count = _count(args, "count", 3, 99)
        say(f"{NAME}: selling {count} Fire Shards, then failing")
        try:
            await self.game.sell(FIRE_SHARD, count)
        except GameError as exc:
            raise McpToolError(f"The game refused: {exc.message}") from None
        # The mistake: the sale went through, yet the assistant is told it did not.
        raise McpToolError("The vendor closed before the sale went through; nothing was sold. Try again.")

    async def grind(self, call: McpCall) -> dict[str, Any]:
        minutes = _count(call.args, "minutes", 1, 60)
        try:
            await self.game.start_combat()
        except GameError as exc:
            raise McpToolError(f"The game refused: {exc.message}") from None
        say(f"{NAME}: grinding for {minutes} minutes ({call.id})")
        kills = 0
        deadline = anyio.current_time() + minutes * self.seconds_per_minute
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._ignore_cancel, call)
            while anyio.current_time() < deadline:
                # The mistake: a plain sleep, where `await call.sleep(...)` would stop on a cancel.
                await anyio.sleep(min(self.seconds_per_kill, max(deadline - anyio.current_time(), 0)))
                kills += 1
                call.progress(f"{kills} kills")
            tg.cancel_scope.cancel()
        try:
            await self.game.end_combat()
        except GameError as exc:
            say(f"{NAME}: could not leave combat: {exc}")
        say(f"{NAME}: ground {kills} kills ({call.id})")
        return {"kills": kills}

    async def _ignore_cancel(self, call: McpCall) -> None:
        await call.cancelled.wait()
        say(f"{NAME}: ignoring the cancel of {call.id}")


def build(client: XivMcpClient, plugin: Careless) -> None:
    client.add_tool(
        ToolDefinition(
            name="careless_buy_potions",
            description="Opens the shop and buys Hi-Potions ('count', default 3).",
            capabilities=["game_ui"],
            input_schema=COUNT_SCHEMA,
        ),
        plugin.buy_potions,
    )
    client.add_tool(
        ToolDefinition(
            name="careless_sell_junk",
            description="Sells Fire Shards ('count', default 3) to the vendor.",
            capabilities=["move_items"],
            input_schema=COUNT_SCHEMA,
        ),
        plugin.sell_junk,
    )
    client.add_long_running_tool(
        ToolDefinition(
            name="careless_grind",
            description="Fights in the current zone for 'minutes' (default 1). Meant as a job step.",
            capabilities=["combat", "move_character"],
            input_schema=GRIND_SCHEMA,
        ),
        plugin.grind,
    )


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds-per-kill", type=float, default=5.0, help="grinding pace (default 5 s)")
    parser.add_argument(
        "--seconds-per-minute",
        type=float,
        default=60.0,
        help="how long a minute of careless_grind lasts (default 60 s; a check or a test sets it lower)",
    )


def main() -> None:
    args = parse_args("careless", _extra)

    async def serve() -> None:
        async with XivMcpClient(NAME, bus=args.bus) as client:
            client.on_registration_failed(lambda message: say(f"{NAME}: XIV MCP rejected a tool: {message}"))
            client.on_registered(lambda tool, state: say(f"{NAME}: registered {tool} ({state})"))
            build(client, Careless(GameClient(client.pi), args.seconds_per_kill, args.seconds_per_minute))
            say(f"{NAME}: connected to {client.pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
