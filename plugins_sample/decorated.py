"""Decorated: the seeds' example tools declared from functions, with `gates.plugin.Plugin`.

    python -m plugins_sample.decorated --bus tcp://127.0.0.1:37520

The same kind of tools as `plugins_sample.client_sample` (written with the client, the C#-shaped
API) and `plugins_sample.raw_gates` (the gates by hand), but each is a plain function: its name,
description, schema and argument checks come from the function itself, as in
`plugins_sample.myplugin`. Compare `decorated_set_flag` with ClientSample's `set_flag`: the range
check is `Meta(ge=1, le=42)`, and "x" sent as "21.4", or "openMap" for "open_map", is bound all the same.

Tools: `decorated_status` (read-only, a TypedDict result), `decorated_set_flag` (a Struct result,
so an outputSchema and structuredContent), `decorated_find_spots` (a `Listing`, paged with
`limit` / `offset`), `decorated_farm` (long-running: progress, safe to cancel) and
`decorated_restock` (asks the player's approval mid-call, with the price). Unlike MyPlugin, which
acts on the simulated game, it keeps a small world of its own, standing in for the game.
"""

from __future__ import annotations

import enum
from typing import Annotated, TypedDict

import anyio
import msgspec
from msgspec import Meta

from gates.plugin import CallCancelledError, Listing, McpCall, McpToolError, Plugin

NAME = "Decorated"
PRICE_PER_ITEM = 320
SECONDS_PER_KILL = 5.0
"""The pace of the simulated fights (a test sets it lower)."""

plugin = Plugin(NAME)


class Flag(msgspec.Struct, rename="camel"):
    """The flag on the player's map."""

    zone: str
    x: float
    y: float
    name: str | None = None


class FlagPlaced(msgspec.Struct, rename="camel"):
    """Where a flag was placed, and whether the map was opened at it."""

    zone: str
    x: float
    y: float
    map_opened: bool


class Status(TypedDict):
    flag: Flag | None
    kills: int
    gil: int


class Spot(msgspec.Struct):
    name: str
    zone: str
    x: float
    y: float


class Farmed(msgspec.Struct):
    kills: int


class Potion(enum.Enum):
    POTION = "Potion"
    HI_POTION = "Hi-Potion"
    X_POTION = "X-Potion"


class Restocked(msgspec.Struct, rename="camel"):
    bought: int
    item: Potion
    gil: int
    gil_left: int


class World(msgspec.Struct):
    """Decorated's own state, standing in for the game."""

    zone: str = "Kozama'uka"
    flag: Flag | None = None
    kills: int = 0
    gil: int = 100_000
    potions: int = 0


world = World()
SPOTS = [
    Spot("Summit of Ok'hanu", "Kozama'uka", 21.4, 9.8),
    Spot("Earthenshire", "Kozama'uka", 12.0, 13.6),
    Spot("Tuliyollal aetheryte", "Tuliyollal", 12.3, 12.1),
    Spot("Yok Tural market", "Tuliyollal", 14.0, 13.0),
]


@plugin.tool(read_only=True)
def decorated_status() -> Status:
    """Decorated's flag, its kills and its gil, as they are now."""
    return Status(flag=world.flag, kills=world.kills, gil=world.gil)


@plugin.tool(capabilities=["game_ui"])
def decorated_set_flag(
    x: Annotated[float, Meta(ge=1, le=42)],
    y: Annotated[float, Meta(ge=1, le=42)],
    zone: str | None = None,
    open_map: bool = True,
    name: str | None = None,
) -> FlagPlaced:
    """Places the flag on the player's map at map coordinates in any zone, and opens the map at it.

    Only marks the spot: nothing moves. Find named spots with decorated_find_spots.

    Args:
        x: Map X coordinate, as the in-game map shows it (1 to 42).
        y: Map Y coordinate, as the in-game map shows it (1 to 42).
        zone: Zone name or territory id. Default: the zone you are in.
        open_map: Open the map at the flag. Default true.
        name: What the spot is (shown as the map window title).
    """
    world.flag = Flag(zone=zone or world.zone, x=x, y=y, name=name)
    return FlagPlaced(zone=world.flag.zone, x=x, y=y, map_opened=open_map)


@plugin.tool(read_only=True)
def decorated_find_spots(
    query: str = "",
    limit: Annotated[int, Meta(ge=1, le=50)] = 10,
    offset: Annotated[int, Meta(ge=0)] = 0,
) -> Listing[Spot]:
    """Finds saved spots by name or zone, with their map coordinates for decorated_set_flag.

    Args:
        query: Case-insensitive part of the spot's name or zone. Empty matches every spot.
    """
    words = query.casefold()
    found = [s for s in SPOTS if words in s.name.casefold() or words in s.zone.casefold()]
    return Listing.page(found, limit=limit, offset=offset)


@plugin.long_running_tool(capabilities=["move_character", "combat"])
async def decorated_farm(
    call: McpCall,
    minutes: Annotated[int, Meta(ge=1, le=600)] = 60,
    kills: Annotated[int, Meta(ge=1)] | None = None,
) -> Farmed:
    """Farms the current zone until `minutes` have passed or `kills` kills are reached.

    Run it as a job step; safe to pause and resume.

    Args:
        minutes: How long to farm. Default 60.
        kills: Stop after this many kills in all (a target). Default: no target.

    Returns:
        The kills in all, so far.
    """
    deadline = anyio.current_time() + minutes * 60
    try:
        while anyio.current_time() < deadline and (kills is None or world.kills < kills):
            await call.sleep(SECONDS_PER_KILL)  # raises CallCancelledError when cancelled
            world.kills += 1
            call.progress(f"{world.kills} kills")
    except CallCancelledError:
        call.progress(f"Stopped safely after {world.kills} kills.")
        raise
    return Farmed(kills=world.kills)


@plugin.long_running_tool(capabilities=["move_character", "game_ui", "spend_gil"])
async def decorated_restock(
    call: McpCall, item: Potion = Potion.HI_POTION, count: Annotated[int, Meta(ge=1, le=999)] = 10
) -> Restocked:
    """Buys potions from the nearest vendor. Asks the player first, with the price.

    Args:
        item: What to buy. Default: Hi-Potion.
        count: How many. Default 10.
    """
    price = count * PRICE_PER_ITEM
    if price > world.gil:
        raise McpToolError(f"{count} {item.value} cost {price:,} gil but only {world.gil:,} gil are left; buy fewer.")
    if not await call.request_approval("spend_gil", f"Buy {count} {item.value} for {price:,} gil"):
        raise McpToolError("The player declined the purchase; nothing was bought.")
    world.gil -= price
    world.potions += count
    return Restocked(bought=count, item=item, gil=price, gil_left=world.gil)


if __name__ == "__main__":
    plugin.run()
