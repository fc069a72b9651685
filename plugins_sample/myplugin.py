"""MyPlugin: the seeds' example tools, declared with the plugin kit's decorator API, on the simulated game.

    python -m plugins_sample.myplugin --bus tcp://127.0.0.1:37520

Tools: `myplugin_status` (read-only), `myplugin_set_flag` (checks its arguments as the seed does),
`myplugin_follow` / `myplugin_stop`, `myplugin_farm` (long-running: progress, safe to cancel),
`myplugin_restock` (buys from the vendor the character stands at, through the game's purchase path,
after the player's approval mid-call, with the price).

This is the sample to copy. Each tool is a plain function under `@plugin.tool` or
`@plugin.long_running_tool` (`gates.plugin.Plugin`): its name, description (the docstring, whose
`Args` document the parameters), inputSchema and argument checks (the type hints, with
`Annotated[int, Meta(ge=1)]` for bounds) and outputSchema (the result's Struct) come from the
function. `plugins_sample.client_sample` is the same plugin on the C#-shaped `XivMcpClient`, for
code ported to the game; `plugins_sample.raw_gates` shows the raw gates, and `plugins_sample.careless`
what not to do.

Every change is the game's (`GameClient(plugin.client.pi)`: this process's own bus connection), so
the game records it as MyPlugin's and XIV MCP checks it against what each tool declared (T2).
MyPlugin itself remembers only whom it follows and how many kills it farmed. Without a game on the
bus a tool that acts says so ("start it with `xivmcp game`"); `myplugin_status` and `myplugin_stop`
still answer, since there is nothing to read or to stop. It prints a line on stdout for each tool
XIV MCP accepted (with the plugin's state), each walk and purchase, and when farming starts and
stops, for people and for tests.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Annotated, Final, TypeVar

import anyio
import msgspec
from msgspec import Meta

from game import GameClient, GameError, GameUnavailableError, Zone
from gates.plugin import CallCancelledError, HostReplyError, JobStep, McpCall, McpToolError, Plugin, XivMcpClient

from ._run import parse_args, run, say
from ._vendors import VENDOR, check_near, find_vendor, sold_for_gil

NAME: Final = "MyPlugin"
FOLLOW_RANGE: Final = 2.0
"""Yalms MyPlugin stops short of whom it follows (a walk to a point goes all the way)."""
T = TypeVar("T")

plugin = Plugin(NAME, display_name="My Plugin", version="1.0.0", repo="https://example.com/myplugin/repo.json")


@dataclass
class Memory:
    """What MyPlugin itself remembers between calls; everything else is the game's."""

    following: str | None = None
    kills: int = 0


@dataclass
class Settings:
    """What the command line sets (`--seconds-per-kill`)."""

    seconds_per_kill: float = 5.0


memory = Memory()
settings = Settings()


class Flag(msgspec.Struct):
    zone: str
    x: float
    y: float
    name: str | None


class Status(msgspec.Struct):
    """What MyPlugin knows, and what the game says (null while the game is not running)."""

    following: str | None
    kills: int
    flag: Flag | None = None
    gil: int | None = None
    zone: str | None = None
    moving: bool | None = None
    game: str = "running"
    """Why the game could not be read, or "running"."""


class FlagPlaced(msgspec.Struct, rename="camel"):
    zone: str | None
    x: float
    y: float
    map_opened: bool


class Point(msgspec.Struct):
    x: float
    z: float


class Following(msgspec.Struct):
    following: str | None
    to: Point
    distance: float
    eta: float


class Stopped(msgspec.Struct):
    stopped: bool


class Farmed(msgspec.Struct):
    kills: int


class Restocked(msgspec.Struct, rename="camel"):
    bought: int
    item: str
    gil: int
    gil_left: int


async def on_game(action: Awaitable[T]) -> T:
    """The game's answer, or an error the assistant can act on (the game's own messages are for authors)."""
    try:
        return await action
    except GameUnavailableError:
        raise McpToolError(
            "The game is not running, so MyPlugin can't act on it. Start it with `xivmcp game` "
            "(or `xivmcp up`), then call again."
        ) from None
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None


def _zone(zones: list[Zone], wanted: str) -> Zone:
    text = wanted.strip()
    for zone in zones:
        if (text.isdigit() and zone.territory == int(text)) or zone.name.lower() == text.lower():
            return zone
    names = ", ".join(z.name for z in zones)
    raise McpToolError(f"There is no zone called {wanted!r}. Use one of: {names} (or a territory id).")


@plugin.tool(read_only=True)
async def myplugin_status() -> Status:
    """Whom My Plugin is following right now, if anyone, with the kills it farmed, the map flag
    and the character's gil.

    Returns:
        Whom it follows and the kills; flag, gil, zone, moving (null without a game); game ("running" or why not).
    """
    game = GameClient(plugin.client.pi)  # the simulated game, over the plugin's own connection
    answer = Status(following=memory.following, kills=memory.kills)
    try:
        flag, player = await game.flag(), await game.player()
    except GameError as exc:  # still worth answering: what MyPlugin itself knows
        answer.game = str(exc)
        return answer
    answer.flag = None if flag is None else Flag(zone=flag.zone, x=flag.x, y=flag.y, name=flag.name)
    answer.gil, answer.zone, answer.moving = player.player.gil, player.zone, player.moving
    return answer


@plugin.tool(capabilities=["game_ui"])
async def myplugin_set_flag(
    x: float, y: float, zone: str | None = None, open_map: bool = True, name: str | None = None
) -> FlagPlaced:
    """Places the flag on the player's map at map coordinates in any zone, and opens the map at it.
    Only marks the spot: nothing moves.

    Args:
        x: Map X coordinate, as the in-game map shows it (about 1 to 42).
        y: Map Y coordinate, as the in-game map shows it.
        zone: Zone name or territory id. Default: the zone you are in.
        open_map: Open the map at the flag. Default true.
        name: What the spot is (shown as the map window title).

    Returns:
        The flag's zone, x and y, and whether the map was opened (mapOpened).
    """
    # Checked here rather than with Meta(ge=1, le=42), to keep the seed's words for it.
    if not (1 <= x <= 42 and 1 <= y <= 42):
        raise McpToolError(f"({x:g}, {y:g}) is off the map: map coordinates run from 1 to 42.")
    game = GameClient(plugin.client.pi)
    territory = None
    if zone is not None:
        territory = _zone(await on_game(game.zones()), zone).territory
    await on_game(game.set_flag(x, y, territory=territory, name=name or None))
    flag = await on_game(game.flag())
    placed = flag.zone if flag is not None else zone
    if open_map:
        await on_game(game.open_window("Map", text=name or f"{placed} ({x:.1f}, {y:.1f})"))
    return FlagPlaced(zone=placed, x=x, y=y, map_opened=open_map)


@plugin.tool(capabilities=["move_character"])
async def myplugin_follow(x: float | None = None, z: float | None = None) -> Following:
    """Walks the character up to the current target (an aetheryte in this simulated game), or to a
    world point 'x', 'z', until it arrives or myplugin_stop is called.

    Args:
        x: World X of a point to walk to instead, in yalms (with z).
        z: World Z of that point, in yalms (with x).

    Returns:
        Whom it follows (null for a point), where it walks to, the distance and the seconds to arrive (eta).
    """
    if (x is None) != (z is None):
        given, missing = ("z", "x") if x is None else ("x", "z")
        raise McpToolError(f"'{missing}' is required with '{given}' (a world point); pass both, or neither.")
    game = GameClient(plugin.client.pi)  # after the checks that need no game, which plugin.call runs without a bus
    if x is not None and z is not None:
        goal_x, goal_z, following, stop_short = x, z, None, 0.0
    else:
        goal_x, goal_z, following = await _target(game)
        stop_short = FOLLOW_RANGE
    here = (await on_game(game.position())).position
    distance = math.hypot(goal_x - here.x, goal_z - here.z)
    eta = 0.0
    if distance > stop_short:
        share = (distance - stop_short) / distance
        to_x, to_z = here.x + (goal_x - here.x) * share, here.z + (goal_z - here.z) * share
        walk = await on_game(game.move_to(to_x, to_z))
        say(f"{NAME}: walking to ({to_x:.1f}, {to_z:.1f})")
        eta = walk.eta
    memory.following = following
    return Following(following=following, to=Point(x=goal_x, z=goal_z), distance=round(distance, 1), eta=eta)


async def _target(game: GameClient) -> tuple[float, float, str]:
    """Where the current target is (an aetheryte of this zone: what the simulated game places), and its name."""
    player = await on_game(game.player())
    target = player.player.target
    if target is None:
        raise McpToolError(
            "Nobody is targeted. Target someone in the game first, or pass 'x' and 'z' (a world point, "
            "in yalms) to walk there."
        )
    zones = await on_game(game.zones())
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
            f"MyPlugin can't see where {target} is: in {zone.name} the game places only its aetherytes "
            f"({seen}). Target one of them, or pass 'x' and 'z' to walk to a point."
        )
    return spot.position.x, spot.position.z, target


@plugin.tool(capabilities=["move_character"])
async def myplugin_stop() -> Stopped:
    """Stops following (see myplugin_follow): the character stops where it is.

    Returns:
        Whether there was anything to stop (stopped).
    """
    game = GameClient(plugin.client.pi)
    was_following, memory.following = memory.following, None
    try:
        movement = (await game.state()).movement
        walking = movement is not None and movement.by == NAME  # someone else's walk is not ours to stop
        if walking:
            await game.stop()
    except GameUnavailableError:
        walking = False  # no game: nothing walks
    except GameError as exc:
        raise McpToolError(f"The game refused to stop: {exc.message}") from None
    return Stopped(stopped=walking or was_following is not None)


@plugin.long_running_tool(capabilities=["move_character", "combat"])
async def myplugin_farm(
    call: McpCall,
    minutes: Annotated[int, Meta(ge=1, le=600)] = 60,
    kills: Annotated[int, Meta(ge=1)] | None = None,
) -> Farmed:
    """Farms the current zone until 'minutes' have passed or 'kills' kills are reached. Run it as a
    job step; safe to pause and resume.

    Args:
        call: The running call: progress, cancellation (not an argument the assistant sends).
        minutes: How long to farm. Default 60.
        kills: Stop after this many kills in all (a target).

    Returns:
        The kills farmed in all.
    """
    game = GameClient(plugin.client.pi)
    # A fight someone else started (AutoDuty, the player) is not MyPlugin's to end afterwards.
    started_fight = bool((await on_game(game.start_combat())).changes)
    deadline = anyio.current_time() + minutes * 60
    say(f"{NAME}: farming ({call.id})")
    try:
        while anyio.current_time() < deadline and (kills is None or memory.kills < kills):
            await call.sleep(settings.seconds_per_kill)  # raises CallCancelledError when cancelled
            memory.kills += 1
            call.progress(f"{memory.kills} kills")
        return Farmed(kills=memory.kills)
    except CallCancelledError:
        call.progress(f"Stopped safely after {memory.kills} kills.")
        say(f"{NAME}: stopped farming safely after {memory.kills} kills ({call.id})")
        raise
    finally:
        if started_fight:
            with anyio.move_on_after(5, shield=True):  # also when the call is cancelled under it
                try:
                    await game.end_combat()
                except GameError as exc:
                    say(f"{NAME}: could not leave combat: {exc}")


@plugin.long_running_tool(capabilities=["spend_gil", "move_items"])
async def myplugin_restock(
    call: McpCall,
    item: str = "Hi-Potion",
    count: Annotated[int, Meta(ge=1, le=999)] = 10,
    vendor: str = VENDOR,
) -> Restocked:
    """Buys potions with gil from a vendor the character stands at (walk there first, for example with
    navigate_to destination=npc). Asks the player with the price first.

    Args:
        call: The running call: the player's approval mid-call (not an argument the assistant sends).
        item: What to buy. Default: Hi-Potion.
        count: How many. Default 10.
        vendor: The vendor NPC to buy from. Default: the Material Supplier in Tuliyollal.

    Returns:
        How many of which item were bought, the gil they cost and the gil left (gilLeft).
    """
    game = GameClient(plugin.client.pi)
    shop = find_vendor(await on_game(game.vendors()), vendor)
    sold, unit = sold_for_gil(await on_game(game.items()), shop, item)
    check_near(await on_game(game.position()), await on_game(game.zones()), shop)
    price = count * unit
    gil = (await on_game(game.player())).player.gil
    if price > gil:
        raise McpToolError(f"{count} {sold.name} cost {price:,} gil but only {gil:,} gil are left; buy fewer.")
    if not await call.request_approval("spend_gil", f"Buy {count} {sold.name} for {price:,} gil"):
        raise McpToolError("The player declined the purchase; nothing was bought.")
    # The game's purchase path, as XIV MCP's buy_item takes it: it records spend_gil and the items received.
    await on_game(game.vendor_buy(shop.npc, sold.item_id, count))
    left = (await on_game(game.player())).player.gil
    say(f"{NAME}: bought {count} {sold.name} for {price:,} gil from {shop.npc}")
    return Restocked(bought=count, item=sold.name, gil=price, gil_left=left)


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds-per-kill", type=float, default=5.0, help="farming pace (default 5 s)")
    parser.add_argument(
        "--job", action="store_true", help='once registered, start the job "Farm, then report" (needs MyPlugin enabled)'
    )


async def farm_then_report(client: XivMcpClient) -> None:
    """A job of two steps: farm 3 kills, then report them (the text takes the farm step's result)."""
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
    settings.seconds_per_kill = args.seconds_per_kill

    async def serve() -> None:
        async with plugin.connected(args.bus) as client:
            client.on_registration_failed(lambda message: say(f"{NAME}: XIV MCP rejected a tool: {message}"))
            client.on_registered(lambda tool, state: say(f"{NAME}: registered {tool} ({state})"))
            say(f"{NAME}: connected to {client.pi.endpoint}")
            if args.job:
                await farm_then_report(client)
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
