"""`xivmcp game`: run the simulated game, or look at it and change it as the player.

    xivmcp game [--world FILE.json] [--seed N] [--test-clock] [--save FILE.json]   the game on the bus
    xivmcp game state [--json]             the world, readably (--json: the World document)
    xivmcp game set PATH VALUE             gil, position, territory, logged_in, inventory.<itemId>, ...
    xivmcp game changes [--since N] [--limit N] [--json]
    xivmcp game advance SECONDS            the test clock
    xivmcp game save NAME|PATH             write the world: NAME into DATA_DIR/worlds, a PATH from here

The game checks the player key of its --data-dir for `set`, `advance` and `save` (its admin gates,
F4), and these commands prove the key of theirs: the same data dir, as `xivmcp up` gives both.

Exit 0 done, 1 when the game refuses (its message on stderr), 2 when there is no game (or no
bus) to talk to.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec

from broker import connect
from game import (
    Change,
    GameClient,
    GameConfig,
    GameError,
    GameUnavailableError,
    World,
    WorldFileError,
    add_game_options,
    run_game,
    save_world,
    to_map,
)
from gates.contract import escaped, escaped_json

from ._common import bus_curve, cli_peer_name, print_err, run_async

CHANGES_SHOWN = 20
"""Changes `xivmcp game changes` shows without --since."""


def _late_common() -> argparse.ArgumentParser:
    """The common options again for the actions, without defaults: `xivmcp game --bus X state`
    keeps the --bus given before the action (an action's defaults would overwrite it)."""
    late = argparse.ArgumentParser(add_help=False)
    late.add_argument("--bus", default=argparse.SUPPRESS, help="bus endpoint")
    late.add_argument("--data-dir", default=argparse.SUPPRESS, help="the host's data dir (to find its bus)")
    late.add_argument(
        "--curve", action="store_true", default=argparse.SUPPRESS, help="join a bus that admits only known CURVE keys"
    )
    late.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    return late


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "game",
        parents=[common],
        help="run the simulated game (InternalName Game), or look at it and change it",
        description="Without an action: run the simulated game on the bus. With one: talk to the running game.",
        epilog="Exit codes: 0 done, 1 the game refuses (its message on stderr), 2 no game or no bus to talk to.",
    )
    add_game_options(p)
    p.set_defaults(func=cmd_game, finds_system=True)
    actions = p.add_subparsers(dest="game_action", metavar="ACTION")
    late = _late_common()
    a = actions.add_parser("state", parents=[late], help="the world: player, zone, gil, bags, flag, windows, chat")
    a.add_argument("--json", action="store_true", help="print the World document")
    a.set_defaults(func=cmd_state)
    a = actions.add_parser("set", parents=[late], help="set PATH (gil, position, inventory.<itemId>, ...) to VALUE")
    a.add_argument("path")
    a.add_argument("value", help='JSON if it parses (5000, true, null, {"x": 1, "z": 2}), else a string')
    a.set_defaults(func=cmd_set)
    a = actions.add_parser("changes", parents=[late], help="the changes the game recorded: seq, by, capability")
    a.add_argument("--since", type=int, default=None, help=f"after this seq (default: the last {CHANGES_SHOWN})")
    a.add_argument("--limit", type=int, default=None, help="at most this many")
    a.add_argument("--json", action="store_true", help="print the game's reply")
    a.set_defaults(func=cmd_changes)
    a = actions.add_parser("advance", parents=[late], help="move the test clock on by SECONDS")
    a.add_argument("seconds", type=float)
    a.set_defaults(func=cmd_advance)
    a = actions.add_parser(
        "save", parents=[late], help="write the world: a NAME.json into DATA_DIR/worlds, or to PATH (a .json file)"
    )
    a.add_argument("file", type=Path, metavar="NAME|PATH")
    a.set_defaults(func=cmd_save)


def cmd_game(args: argparse.Namespace) -> int:
    logging.getLogger("xivmcp.bus").setLevel(logging.NOTSET)  # a long-running peer's bus warnings are worth seeing
    return run_game(
        GameConfig(
            bus=args.bus,
            world_file=args.world,
            seed=args.seed,
            test_clock=args.test_clock,
            save_file=args.save,
            bus_curve=bus_curve(args),
            data_dir=Path(args.data_dir),  # its player key: the admin gates answer only the player (F4)
        )
    )


def _with_game(args: argparse.Namespace, act: Callable[[GameClient], Awaitable[int]]) -> int:
    async def run() -> int:
        async with connect(args.bus, cli_peer_name(), curve=bus_curve(args)) as pi:
            try:
                return await act(GameClient.as_player(pi, Path(args.data_dir)))  # set, advance, save: the player's
            except GameUnavailableError as exc:
                print_err(str(exc))
                return 2
            except GameError as exc:
                print_err(str(exc))
                return 1

    return run_async(run, verbose=args.verbose)


def _print_changes(changes: list[Change]) -> None:
    for change in changes:
        line = f"{change.seq:>6}  {change.at:>9.1f} s  {change.by:<18} {change.capability:<15} {change.summary}"
        print(escaped(line))  # who made it and the summary are a peer's words (S3)


def cmd_state(args: argparse.Namespace) -> int:
    async def act(game: GameClient) -> int:
        world = await game.state()
        if args.json:
            print(escaped_json(msgspec.json.format(msgspec.json.encode(world), indent=2).decode()))
        else:
            print(describe_world(world, (await game.time()).test_clock))
        return 0

    return _with_game(args, act)


def describe_world(world: World, test_clock: bool) -> str:
    """The world as the player reads it, one line per part."""
    p = world.player
    zones = {z.territory: z for z in world.zones}
    zone = zones[p.territory]
    map_x, map_y = to_map(zone.map, p.position.x, p.position.z)
    pos = p.position
    at_world = f"world ({pos.x:.1f}, {pos.y:.1f}, {pos.z:.1f})"
    lines = [
        ("player", f"{p.name} of {p.world}, {p.job} {p.level}, {'logged in' if p.logged_in else 'logged out'}"),
        ("zone", f"{zone.name} ({zone.territory}) at map ({map_x:.1f}, {map_y:.1f}), {at_world}"),
    ]
    walk = world.movement
    if walk is None:
        lines.append(("moving", "no"))
    else:
        to_x, to_y = to_map(zone.map, walk.destination.x, walk.destination.z)
        distance = ((walk.destination.x - walk.origin.x) ** 2 + (walk.destination.z - walk.origin.z) ** 2) ** 0.5
        left = walk.started_at + distance / walk.speed - world.time
        lines.append(("moving", f"walking to map ({to_x:.1f}, {to_y:.1f}), arrives in {max(0.0, left):.1f} s"))
    lines.append(("gil", f"{p.gil:,}"))
    lines.append(("currencies", " · ".join(f"{c.name} {c.count:,}" for c in world.currencies) or "none"))
    total = sum(i.count for i in world.inventory)
    held = ", ".join(f"{i.count:,} × {i.name} ({i.item_id})" for i in world.inventory)
    lines.append(("inventory", f"{total:,} items: {held}" if held else "empty"))
    flag = world.flag
    flagged = "none" if flag is None else f"{flag.zone} map ({flag.x:.1f}, {flag.y:.1f}) {flag.name or ''}".rstrip()
    lines.append(("flag", flagged))
    windows = ", ".join(f"{w.name!r}{' (Yes/No)' if w.kind == 'yesno' else ''}" for w in world.windows)
    lines.append(("windows", windows or "none"))
    lines.append(("target", p.target or "none"))
    lines.append(("combat", "yes" if p.in_combat else "no"))
    lines.extend(("chat", f"[{line.channel}] {line.by}: {line.text}") for line in world.chat[-5:])
    lines.append(("time", f"{world.time:.1f} s ({'test clock' if test_clock else 'real clock'})"))
    return "\n".join(f"{name:<11} {escaped(text)}" for name, text in lines)  # names and chat are the game's (S3)


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_set(args: argparse.Namespace) -> int:
    async def act(game: GameClient) -> int:
        reply = await game.set(args.path, _parse_value(args.value))
        if not reply.changes:
            print(f"{args.path} is already {args.value}; nothing changed")
        _print_changes(reply.changes)
        return 0

    return _with_game(args, act)


def cmd_changes(args: argparse.Namespace) -> int:
    async def act(game: GameClient) -> int:
        since = args.since
        if since is None:
            since = max(0, (await game.snapshot()).seq - (args.limit or CHANGES_SHOWN))
        reply = await game.changes(since, args.limit)
        if args.json:
            print(escaped_json(msgspec.json.format(msgspec.json.encode(reply), indent=2).decode()))
            return 0
        if not reply.complete:
            print(f"(changes after {since} are no longer all kept: the list starts at the oldest the game has)")
        if not reply.changes:
            print(f"no changes after {since} (the newest is {reply.seq})")
        _print_changes(reply.changes)
        if reply.more:
            print(f"(more after {reply.changes[-1].seq if reply.changes else since}: ask with --since)")
        return 0

    return _with_game(args, act)


def cmd_advance(args: argparse.Namespace) -> int:
    async def act(game: GameClient) -> int:
        reply = await game.advance_clock(args.seconds)
        print(f"the clock is at {reply.time:.1f} s")
        _print_changes(reply.changes)
        return 0

    return _with_game(args, act)


def cmd_save(args: argparse.Namespace) -> int:
    """A bare name goes to the game's world folder (`Game.Save`); a path is written by this process,
    where the player said (S5: the game writes nowhere a caller names)."""
    file: Path = args.file

    async def act(game: GameClient) -> int:
        if str(file) == file.name:
            reply = await game.save(file.name)
            print(f"saved the world to {reply.path}")
            return 0
        try:
            written = save_world(await game.state(), file)
        except WorldFileError as exc:
            print_err(str(exc))
            return 1
        print(f"saved the world to {written}")
        return 0

    return _with_game(args, act)
