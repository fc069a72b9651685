"""ClientSample: MyPlugin's tools on the plugin kit's `XivMcpClient`, the C#-shaped API, acting on
the simulated game.

    python -m plugins_sample.client_sample --bus tcp://127.0.0.1:37520

This is the XivMcpClient (C#-shaped) version of `plugins_sample.myplugin`, for people porting to
the game: a `ToolDefinition` with a hand-written inputSchema per tool, handlers that read an `args`
dict and check it themselves, `client.add_tool` / `client.add_long_running_tool`, as
`XivMcpClient.cs` has them. New Python plugins should copy `plugins_sample.myplugin` (the decorator
API) instead.

Tools: `clientsample_status` (read-only), `clientsample_set_flag` (checks its arguments as the seed
does), `clientsample_follow` / `clientsample_stop`, `clientsample_farm` (long-running: progress,
safe to cancel), `clientsample_restock` (asks the player's approval mid-call, with the price).

Every change is the game's (`game.GameClient` over this process's own bus connection), so the game
records it as ClientSample's and XIV MCP checks it against what each tool declared (T2).
ClientSample itself remembers only whom it follows and how many kills it farmed. Without a game on
the bus a tool that acts says so ("start it with `xivmcp game`"); `clientsample_status` and
`clientsample_stop` still answer, since there is nothing to read or to stop. It prints a line on
stdout for each tool XIV MCP accepted (with the plugin's state), each walk and purchase, and when
farming starts and stops, for people and for tests.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio

from game import GameClient, GameError, GameUnavailableError, ItemInfo, Zone
from gates.plugin import (
    CallCancelledError,
    HostReplyError,
    JobStep,
    McpCall,
    McpToolError,
    ToolDefinition,
    XivMcpClient,
)

from ._run import parse_args, run, say

NAME: Final = "ClientSample"
FOLLOW_RANGE: Final = 2.0
"""Yalms ClientSample stops short of whom it follows (a walk to a point goes all the way)."""
GIL: Final = 1
"""The catalog's currency id of gil."""
T = TypeVar("T")

FLAG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "x": {"type": "number", "description": "Map X coordinate, as the in-game map shows it (about 1 to 42)."},
        "y": {"type": "number", "description": "Map Y coordinate, as the in-game map shows it."},
        "zone": {"type": "string", "description": "Zone name or territory id. Default: the zone you are in."},
        "open_map": {"type": "boolean", "description": "Open the map at the flag. Default true."},
        "name": {"type": "string", "description": "What the spot is (shown as the map window title)."},
    },
    "required": ["x", "y"],
}

FOLLOW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "x": {"type": "number", "description": "World X of a point to walk to instead, in yalms (with z)."},
        "z": {"type": "number", "description": "World Z of that point, in yalms (with x)."},
    },
}

FARM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "minutes": {"type": "integer", "minimum": 1, "maximum": 600, "description": "How long to farm. Default 60."},
        "kills": {"type": "integer", "minimum": 1, "description": "Stop after this many kills in all (a target)."},
    },
}

RESTOCK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "item": {"type": "string", "description": "What to buy. Default: Hi-Potion."},
        "count": {"type": "integer", "minimum": 1, "maximum": 999, "description": "How many. Default 10."},
    },
}


@dataclass
class Memory:
    """What ClientSample itself remembers between calls; everything else is the game's."""

    following: str | None = None
    kills: int = 0


async def on_game(action: Awaitable[T]) -> T:
    """The game's answer, or an error the assistant can act on (the game's own messages are for authors)."""
    try:
        return await action
    except GameUnavailableError:
        raise McpToolError(
            "The game is not running, so ClientSample can't act on it. Start it with `xivmcp game` "
            "(or `xivmcp up`), then call again."
        ) from None
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None


def _number(args: dict[str, Any], key: str) -> float:
    value = args.get(key)
    if value is None:
        raise McpToolError(f"'{key}' is required.")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise McpToolError(f"'{key}' must be a number, such as 21.4; got {value!r}.")
    return float(value)


def _whole(args: dict[str, Any], key: str, low: int, high: int | None = None) -> int | None:
    """A whole-number argument within its bounds, or None when it was left out."""
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise McpToolError(f"'{key}' must be a whole number {bounds}; got {value!r}.")
    return value


def _zone(zones: list[Zone], wanted: str) -> Zone:
    text = wanted.strip()
    for zone in zones:
        if (text.isdigit() and zone.territory == int(text)) or zone.name.lower() == text.lower():
            return zone
    names = ", ".join(z.name for z in zones)
    raise McpToolError(f"There is no zone called {wanted!r}. Use one of: {names} (or a territory id).")


def _item(items: list[ItemInfo], wanted: str) -> ItemInfo:
    sold = [i for i in items if i.price > 0 and i.currency == GIL]
    for item in sold:
        if item.name.lower() == wanted.strip().lower():
            return item
    names = ", ".join(i.name for i in sold)
    raise McpToolError(f"The vendor sells no {wanted!r} for gil. It sells: {names}.")


class ClientSample:
    """The tools' handlers, over the game."""

    def __init__(self, game: GameClient, seconds_per_kill: float) -> None:
        self.game = game
        self.memory = Memory()
        self.seconds_per_kill = seconds_per_kill

    async def status(self, args: dict[str, Any]) -> dict[str, Any]:
        memory = self.memory
        answer: dict[str, Any] = {
            "following": memory.following,
            "kills": memory.kills,
            "flag": None,
            "gil": None,
            "zone": None,
            "moving": None,
        }
        try:
            flag, player = await self.game.flag(), await self.game.player()
        except GameError as exc:  # still worth answering: what ClientSample itself knows
            return {**answer, "game": str(exc)}
        if flag is not None:
            answer["flag"] = {"zone": flag.zone, "x": flag.x, "y": flag.y, "name": flag.name}
        return {**answer, "gil": player.player.gil, "zone": player.zone, "moving": player.moving, "game": "running"}

    async def set_flag(self, args: dict[str, Any]) -> dict[str, Any]:
        x, y = _number(args, "x"), _number(args, "y")
        if not (1 <= x <= 42 and 1 <= y <= 42):
            raise McpToolError(f"({x:g}, {y:g}) is off the map: map coordinates run from 1 to 42.")
        zone_arg, open_map, name = args.get("zone"), args.get("open_map", True), args.get("name")
        if zone_arg is not None and not isinstance(zone_arg, str):
            raise McpToolError(f"'zone' must be a zone name or territory id as a string; got {zone_arg!r}.")
        if not isinstance(open_map, bool):
            raise McpToolError(f"'open_map' must be true or false; got {open_map!r}.")
        if name is not None and not isinstance(name, str):
            raise McpToolError(f"'name' must be a string, such as \"Summit\"; got {name!r}.")
        territory = None
        if zone_arg is not None:
            territory = _zone(await on_game(self.game.zones()), zone_arg).territory
        await on_game(self.game.set_flag(x, y, territory=territory, name=name or None))
        flag = await on_game(self.game.flag())
        zone = flag.zone if flag is not None else zone_arg
        if open_map:
            await on_game(self.game.open_window("Map", text=name or f"{zone} ({x:.1f}, {y:.1f})"))
        return {"zone": zone, "x": x, "y": y, "mapOpened": open_map}

    async def follow(self, args: dict[str, Any]) -> dict[str, Any]:
        """Walk toward the target (an aetheryte of this zone: what the simulated game places), or a point."""
        if "x" in args or "z" in args:
            goal_x, goal_z, following, stop_short = _number(args, "x"), _number(args, "z"), None, 0.0
        else:
            player = await on_game(self.game.player())
            target = player.player.target
            if target is None:
                raise McpToolError(
                    "Nobody is targeted. Target someone in the game first, or pass 'x' and 'z' (a world point, "
                    "in yalms) to walk there."
                )
            zones = await on_game(self.game.zones())
            zone = next((z for z in zones if z.territory == player.player.territory), None)
            if zone is None:
                raise McpToolError(
                    f"The game has no zone {player.player.territory}, where the character is; "
                    "start it with a world whose zones include it."
                )
            spot = next((a for a in zone.aetherytes if a.name.lower() == target.lower()), None)
            if spot is None:
                seen = ", ".join(a.name for a in zone.aetherytes) or "none"
                raise McpToolError(
                    f"ClientSample can't see where {target} is: in {zone.name} the game places only its aetherytes "
                    f"({seen}). Target one of them, or pass 'x' and 'z' to walk to a point."
                )
            goal_x, goal_z, following, stop_short = spot.position.x, spot.position.z, target, FOLLOW_RANGE
        here = (await on_game(self.game.position())).position
        distance = math.hypot(goal_x - here.x, goal_z - here.z)
        if distance > stop_short:
            share = (distance - stop_short) / distance
            to_x, to_z = here.x + (goal_x - here.x) * share, here.z + (goal_z - here.z) * share
            walk = await on_game(self.game.move_to(to_x, to_z))
            say(f"{NAME}: walking to ({to_x:.1f}, {to_z:.1f})")
            eta = walk.eta
        else:
            eta = 0.0
        self.memory.following = following
        return {"following": following, "to": {"x": goal_x, "z": goal_z}, "distance": round(distance, 1), "eta": eta}

    async def stop(self, args: dict[str, Any]) -> dict[str, Any]:
        was_following, self.memory.following = self.memory.following, None
        try:
            movement = (await self.game.state()).movement
            walking = movement is not None and movement.by == NAME  # someone else's walk is not ours to stop
            if walking:
                await self.game.stop()
        except GameUnavailableError:
            walking = False  # no game: nothing walks
        except GameError as exc:
            raise McpToolError(f"The game refused to stop: {exc.message}") from None
        return {"stopped": walking or was_following is not None}

    async def farm(self, call: McpCall) -> dict[str, Any]:
        minutes = _whole(call.args, "minutes", 1, 600)
        minutes = 60 if minutes is None else minutes
        target = _whole(call.args, "kills", 1)
        memory = self.memory
        # A fight someone else started (AutoDuty, the player) is not ClientSample's to end afterwards.
        started_fight = bool((await on_game(self.game.start_combat())).changes)
        deadline = anyio.current_time() + minutes * 60
        say(f"{NAME}: farming ({call.id})")
        try:
            while anyio.current_time() < deadline and (target is None or memory.kills < target):
                await call.sleep(self.seconds_per_kill)  # raises CallCancelledError when cancelled
                memory.kills += 1
                call.progress(f"{memory.kills} kills")
            return {"kills": memory.kills}
        except CallCancelledError:
            call.progress(f"Stopped safely after {memory.kills} kills.")
            say(f"{NAME}: stopped farming safely after {memory.kills} kills ({call.id})")
            raise
        finally:
            if started_fight:
                with anyio.move_on_after(5, shield=True):  # also when the call is cancelled under it
                    try:
                        await self.game.end_combat()
                    except GameError as exc:
                        say(f"{NAME}: could not leave combat: {exc}")

    async def restock(self, call: McpCall) -> dict[str, Any]:
        wanted = call.args.get("item", "Hi-Potion")
        if not isinstance(wanted, str):
            raise McpToolError(f"'item' must be an item's name, such as \"Hi-Potion\"; got {wanted!r}.")
        count = _whole(call.args, "count", 1, 999)
        count = 10 if count is None else count
        item = _item(await on_game(self.game.items()), wanted)
        price = count * item.price
        gil = (await on_game(self.game.player())).player.gil
        if price > gil:
            raise McpToolError(f"{count} {item.name} cost {price:,} gil but only {gil:,} gil are left; buy fewer.")
        if not await call.request_approval("spend_gil", f"Buy {count} {item.name} for {price:,} gil"):
            raise McpToolError("The player declined the purchase; nothing was bought.")
        await on_game(self.game.buy(item.item_id, count))
        left = (await on_game(self.game.player())).player.gil
        say(f"{NAME}: bought {count} {item.name} for {price:,} gil")
        return {"bought": count, "item": item.name, "gil": price, "gilLeft": left}


def build(client: XivMcpClient, plugin: ClientSample) -> None:
    client.add_tool(
        ToolDefinition(
            name="clientsample_status",
            description="Whom ClientSample is following right now, if anyone, with the kills it farmed, "
            "the map flag and the character's gil.",
            read_only=True,
        ),
        plugin.status,
    )
    client.add_tool(
        ToolDefinition(
            name="clientsample_set_flag",
            description="Places the flag on the player's map at map coordinates in any zone, and opens "
            "the map at it. Only marks the spot: nothing moves.",
            capabilities=["game_ui"],
            input_schema=FLAG_SCHEMA,
        ),
        plugin.set_flag,
    )
    client.add_tool(
        ToolDefinition(
            name="clientsample_follow",
            description="Walks the character up to the current target (an aetheryte in this simulated game), "
            "or to a world point 'x', 'z', until it arrives or clientsample_stop is called.",
            capabilities=["move_character"],
            input_schema=FOLLOW_SCHEMA,
        ),
        plugin.follow,
    )
    client.add_tool(
        ToolDefinition(
            name="clientsample_stop",
            description="Stops following (see clientsample_follow): the character stops where it is.",
            capabilities=["move_character"],
        ),
        plugin.stop,
    )
    client.add_long_running_tool(
        ToolDefinition(
            name="clientsample_farm",
            description="Farms the current zone until 'minutes' have passed or 'kills' kills are reached. "
            "Run it as a job step; safe to pause and resume.",
            capabilities=["move_character", "combat"],
            input_schema=FARM_SCHEMA,
        ),
        plugin.farm,
    )
    client.add_long_running_tool(
        ToolDefinition(
            name="clientsample_restock",
            description="Buys potions from the vendor with gil. Asks the player with the price first.",
            capabilities=["spend_gil", "move_items"],
            input_schema=RESTOCK_SCHEMA,
        ),
        plugin.restock,
    )


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds-per-kill", type=float, default=5.0, help="farming pace (default 5 s)")
    parser.add_argument(
        "--job",
        action="store_true",
        help='once registered, start the job "Farm, then report" (needs ClientSample enabled)',
    )


async def farm_then_report(client: XivMcpClient) -> None:
    """A job of two steps: farm 3 kills, then report them; the report's text comes from the farm
    step's result through a placeholder."""
    await client.wait_registered()
    try:
        job = await client.start_job(
            "Farm, then report",
            JobStep(id="farm", tool="clientsample_farm", args={"kills": 3}),
            JobStep(id="report", tool="echo", args={"text": "Farmed {{farm.kills}} kills"}),
        )
    except HostReplyError as exc:
        say(f"{NAME}: the job was not started: {exc}")
        return
    say(f"{NAME}: started job {job.id} ({job.name})")


def main() -> None:
    args = parse_args("client_sample", _extra)

    async def serve() -> None:
        async with XivMcpClient(NAME, bus=args.bus) as client:
            client.on_registration_failed(lambda message: say(f"{NAME}: XIV MCP rejected a tool: {message}"))
            client.on_registered(lambda tool, state: say(f"{NAME}: registered {tool} ({state})"))
            build(client, ClientSample(GameClient(client.pi), args.seconds_per_kill))
            say(f"{NAME}: connected to {client.pi.endpoint}")
            if args.job:
                await farm_then_report(client)
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
