"""MyPlugin: the seeds' example tools, written with the plugin-side client.

    python -m plugins_sample.myplugin --bus tcp://127.0.0.1:37520

Tools: `myplugin_status` (read-only), `myplugin_set_flag` (checks its arguments as the seed
does), `myplugin_follow` / `myplugin_stop`, `myplugin_farm` (long-running: progress, safe to
cancel), `myplugin_restock` (asks the player's approval mid-call, with the price).
The plugin keeps its own small world (whom it follows, the flag, kills, gil); the simulated
game takes that role once it exists. It prints a line on stdout for each tool XIV MCP accepted
(with the plugin's state) and when farming starts and stops, for people and for tests.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import anyio

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

NAME = "MyPlugin"

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

PRICE_PER_ITEM = 320


@dataclass
class World:
    """MyPlugin's own state, standing in for the game."""

    zone: str = "Kozama'uka"
    target: str = "Wuk Lamat"
    following: str | None = None
    flag: dict[str, Any] | None = None
    kills: int = 0
    gil: int = 100_000
    potions: int = 0


def _number(args: dict[str, Any], key: str) -> float:
    value = args.get(key)
    if value is None:
        raise McpToolError(f"'{key}' is required.")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise McpToolError(f"'{key}' must be a number, such as 21.4; got {value!r}.")
    return float(value)


def build(client: XivMcpClient, world: World, seconds_per_kill: float) -> None:
    def status(args: dict[str, Any]) -> dict[str, Any]:
        return {"following": world.following, "flag": world.flag, "kills": world.kills, "gil": world.gil}

    def set_flag(args: dict[str, Any]) -> dict[str, Any]:
        x, y = _number(args, "x"), _number(args, "y")
        if not (1 <= x <= 42 and 1 <= y <= 42):
            raise McpToolError(f"({x:g}, {y:g}) is off the map: map coordinates run from 1 to 42.")
        zone = args.get("zone")
        open_map = args.get("open_map", True)
        if zone is not None and not isinstance(zone, str):
            raise McpToolError(f"'zone' must be a zone name or territory id as a string; got {zone!r}.")
        if not isinstance(open_map, bool):
            raise McpToolError(f"'open_map' must be true or false; got {open_map!r}.")
        world.flag = {"zone": zone or world.zone, "x": x, "y": y, "name": args.get("name")}
        return {"zone": zone, "x": x, "y": y, "mapOpened": open_map}

    def follow(args: dict[str, Any]) -> dict[str, Any]:
        world.following = world.target
        return {"following": world.following}

    def stop(args: dict[str, Any]) -> dict[str, Any]:
        was, world.following = world.following, None
        return {"stopped": was is not None}

    async def farm(call: McpCall) -> dict[str, Any]:
        minutes = call.args.get("minutes", 60)
        target = call.args.get("kills")
        if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= 600:
            raise McpToolError(f"'minutes' must be a whole number from 1 to 600; got {minutes!r}.")
        if target is not None and (not isinstance(target, int) or isinstance(target, bool) or target < 1):
            raise McpToolError(f"'kills' must be a whole number of at least 1; got {target!r}.")
        deadline = anyio.current_time() + minutes * 60
        say(f"{NAME}: farming ({call.id})")
        try:
            while anyio.current_time() < deadline and (target is None or world.kills < target):
                await call.sleep(seconds_per_kill)  # raises CallCancelledError when cancelled
                world.kills += 1
                call.progress(f"{world.kills} kills")
            return {"kills": world.kills}
        except CallCancelledError:
            call.progress(f"Stopped safely after {world.kills} kills.")
            say(f"{NAME}: stopped farming safely after {world.kills} kills ({call.id})")
            raise

    async def restock(call: McpCall) -> dict[str, Any]:
        item = call.args.get("item", "Hi-Potion")
        count = call.args.get("count", 10)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 999:
            raise McpToolError(f"'count' must be a whole number from 1 to 999; got {count!r}.")
        price = count * PRICE_PER_ITEM
        if price > world.gil:
            raise McpToolError(f"{count} {item} cost {price:,} gil but only {world.gil:,} gil are left; buy fewer.")
        if not await call.request_approval("spend_gil", f"Buy {count} {item} for {price:,} gil"):
            raise McpToolError("The player declined the purchase; nothing was bought.")
        world.gil -= price
        world.potions += count
        return {"bought": count, "item": item, "gil": price, "gilLeft": world.gil}

    client.add_tool(
        ToolDefinition(
            name="myplugin_status",
            description="Whom My Plugin is following right now, if anyone, with its flag, kills and gil.",
            read_only=True,
        ),
        status,
    )
    client.add_tool(
        ToolDefinition(
            name="myplugin_set_flag",
            description="Places the flag on the player's map at map coordinates in any zone, and opens "
            "the map at it. Only marks the spot: nothing moves.",
            capabilities=["game_ui"],
            input_schema=FLAG_SCHEMA,
        ),
        set_flag,
    )
    client.add_tool(
        ToolDefinition(
            name="myplugin_follow",
            description="Follows the current target on foot until myplugin_stop is called.",
            capabilities=["move_character"],
        ),
        follow,
    )
    client.add_tool(
        ToolDefinition(
            name="myplugin_stop",
            description="Stops following (see myplugin_follow).",
            capabilities=["move_character"],
        ),
        stop,
    )
    client.add_long_running_tool(
        ToolDefinition(
            name="myplugin_farm",
            description="Farms the current zone until 'minutes' have passed or 'kills' kills are reached. "
            "Run it as a job step; safe to pause and resume.",
            capabilities=["move_character", "combat"],
            input_schema=FARM_SCHEMA,
        ),
        farm,
    )
    client.add_long_running_tool(
        ToolDefinition(
            name="myplugin_restock",
            description="Buys potions from the nearest vendor. Asks the player with the price first.",
            capabilities=["move_character", "game_ui", "spend_gil"],
            input_schema=RESTOCK_SCHEMA,
        ),
        restock,
    )


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds-per-kill", type=float, default=5.0, help="farming pace (default 5 s)")
    parser.add_argument(
        "--job", action="store_true", help='once registered, start the job "Farm, then report" (needs MyPlugin enabled)'
    )


async def farm_then_report(client: XivMcpClient) -> None:
    """A job of two steps: farm 3 kills, then report them; the report's text comes from the farm
    step's result through a placeholder."""
    await client.wait_registered()
    try:
        job = await client.start_job(
            "Farm, then report",
            JobStep(id="farm", tool="myplugin_farm", args={"kills": 3}),
            JobStep(id="report", tool="echo", args={"text": "Farmed {{farm.kills}} kills"}),
        )
    except HostReplyError as exc:
        say(f"{NAME}: the job was not started: {exc}")
        return
    say(f"{NAME}: started job {job.id} ({job.name})")


def main() -> None:
    args = parse_args("myplugin", _extra)

    async def serve() -> None:
        async with XivMcpClient(NAME, bus=args.bus) as client:
            client.on_registration_failed(lambda message: say(f"{NAME}: XIV MCP rejected a tool: {message}"))
            client.on_registered(lambda tool, state: say(f"{NAME}: registered {tool} ({state})"))
            build(client, World(), args.seconds_per_kill)
            say(f"{NAME}: connected to {client.pi.endpoint}")
            if args.job:
                await farm_then_report(client)
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
