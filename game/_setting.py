"""`Game.Set` (the player's and the CLI's way to put the world in a state), the test clock, saving, and
`Game.Reset` (a shared test system's world back at its start between tests).

These are the admin gates: they answer only a caller that proves the player key (`_admin`, F4),
which the gates check before any of this runs. `Game.Set {path, value}` records its change with
the capability that path needs, by the process that set it (the command line, a test), as any
other change. A value equal to the current one changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import msgspec

from gates.contract import CapabilityId

from ._args import AdvanceClockArgs, LoginArgs, NoArgs, SaveArgs, SetArgs
from ._clock import TestClock
from ._documents import Change, Currency, Vec3, World
from ._engine import GIL_CAP, MAX_HELD, GameEngine
from ._errors import Refusal, WorldFileError
from ._moving import check_world_point
from ._replies import ChangeReply, ClockReply, ResetReply, SaveReply
from ._social import fight, login, logout, switch_target
from ._world_file import MAX_WALK_SPEED, save_world, world_in_folder

__all__ = ["SET_PATHS", "advance_clock", "reset", "save", "set_value", "world_now"]

SET_PATHS: Final = (
    "gil",
    "position",
    "territory",
    "logged_in",
    "inventory.<itemId>",
    "currencies.<id>",
    "in_combat",
    "target",
    "walk_speed",
)
"""The parts of the world `Game.Set` (`GameClient.set`, `xivmcp game set`) sets, by path:
`inventory.<itemId>` and `currencies.<id>` take the item or currency id, such as `inventory.4554`."""
MAX_ADVANCE: Final = 366 * 24 * 3600.0
"""The most one AdvanceClock moves the clock: a year."""

_Setter = Callable[[GameEngine, Any, str], ChangeReply]


def _describe(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 60 else text[:57] + "..."


def _int(value: Any, path: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refusal(f"`{path}` takes a whole number, not {_describe(value)}")
    if not low <= value <= high:
        raise Refusal(f"`{path}` takes {low:,} to {high:,}, not {value:,}")
    return value


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise Refusal(f"`{path}` takes true or false, not {_describe(value)}")
    return value


def _one(
    engine: GameEngine, by: str, capability: CapabilityId, kind: str, summary: str, apply: Callable[[], None]
) -> ChangeReply:
    return ChangeReply(changes=[engine.record(by, capability, kind, summary, apply)])


def _set_gil(engine: GameEngine, value: Any, by: str) -> ChangeReply:
    gil = _int(value, "gil", 0, GIL_CAP)
    player = engine.world.player
    if gil == player.gil:
        return ChangeReply()
    was = player.gil

    def apply() -> None:
        player.gil = gil

    return _one(engine, by, CapabilityId.SPEND_GIL, "gil", f"set gil to {gil:,} (was {was:,})", apply)


def _point(value: Any) -> tuple[Vec3, bool] | None:
    """{x, z[, y]} or "x,z[,y]" and whether it gave y; None when it is neither."""
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            return None
        if len(numbers) not in (2, 3):
            return None
        value = dict(zip(("x", "z", "y"), numbers, strict=False))
    if not isinstance(value, dict) or not {"x", "z"} <= value.keys() <= {"x", "y", "z"}:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value.values()):
        return None
    return Vec3(x=float(value["x"]), y=float(value.get("y", 0.0)), z=float(value["z"])), "y" in value


def _set_position(engine: GameEngine, value: Any, by: str) -> ChangeReply:
    parsed = _point(value)
    if parsed is None:
        raise Refusal(f'`position` takes {{"x": X, "z": Z}} (and "y") or "X,Z", not {_describe(value)}')
    point, gave_y = parsed
    player = engine.world.player
    if not gave_y:
        point.y = engine.position_now().y
    check_world_point(engine.current_zone, point.x, point.z)
    if point == player.position and not engine.moving:
        return ChangeReply()

    def apply() -> None:
        engine.halt()
        player.position = point

    return _one(engine, by, CapabilityId.MOVE_CHARACTER, "position", f"set position to {engine.place(point)}", apply)


def _set_territory(engine: GameEngine, value: Any, by: str) -> ChangeReply:
    if isinstance(value, str) and not value.strip().isdigit():
        zone = engine.zone_named(value)
    else:
        zone = engine.zone(_int(int(value) if isinstance(value, str) else value, "territory", 1, 2**31))
    player = engine.world.player
    if zone.territory == player.territory:
        return ChangeReply()

    def apply() -> None:
        engine.halt()
        player.territory = zone.territory

    return _one(engine, by, CapabilityId.MOVE_CHARACTER, "zone", f"set zone to {zone.name} ({zone.territory})", apply)


def _set_logged_in(engine: GameEngine, value: Any, by: str) -> ChangeReply:
    """As `Game.Login` (the current character) and `Game.Logout` do it."""
    return login(engine, LoginArgs(), by) if _bool(value, "logged_in") else logout(engine, NoArgs(), by)


def _set_inventory(engine: GameEngine, item_text: str, value: Any, by: str) -> ChangeReply:
    if not item_text.isdigit():
        raise Refusal(f"`inventory.{item_text}`: give the itemId after the dot, such as inventory.4554")
    item = engine.item(int(item_text))
    count = _int(value, f"inventory.{item_text}", 0, MAX_HELD)
    held = engine.held(item.item_id)
    if count == held:
        return ChangeReply()

    def apply() -> None:
        if count > held:
            engine.add_items(item.item_id, count - held)
        else:
            engine.remove_items(item.item_id, held - count)

    summary = f"set {item.name} to {count:,} (was {held:,})"
    return _one(engine, by, CapabilityId.MOVE_ITEMS, "items", summary, apply)


def _set_currency(engine: GameEngine, id_text: str, value: Any, by: str) -> ChangeReply:
    currency: Currency | None = engine.currency(int(id_text)) if id_text.isdigit() else None
    if currency is None:
        known = ", ".join(f"{c.id} ({c.name})" for c in engine.world.currencies) or "none"
        raise Refusal(f"`currencies.{id_text}`: the character has no currency with that id; its currencies are {known}")
    count = _int(value, f"currencies.{id_text}", 0, GIL_CAP)
    if count == currency.count:
        return ChangeReply()
    was, changed = currency.count, currency

    def apply() -> None:
        changed.count = count

    summary = f"set {currency.name} to {count:,} (was {was:,})"
    return _one(engine, by, CapabilityId.SPEND_CURRENCY, "currency", summary, apply)


def _set_walk_speed(engine: GameEngine, value: Any, by: str) -> ChangeReply:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_WALK_SPEED:
        raise Refusal(
            f"`walk_speed` takes yalms per second, more than 0 and at most {MAX_WALK_SPEED:g}, not {_describe(value)}"
        )
    speed = float(value)
    if speed == engine.world.walk_speed:
        return ChangeReply()

    def apply() -> None:
        engine.world.walk_speed = speed
        engine.retime_walk(speed)

    return _one(engine, by, CapabilityId.EDIT_SETTINGS, "settings", f"set walk speed to {speed:g} yalms/s", apply)


def _set_target(engine: GameEngine, value: Any, by: str) -> ChangeReply:
    if value is not None and not isinstance(value, str):
        raise Refusal(f"`target` takes a name or null, not {_describe(value)}")
    return switch_target(engine, value, by)


_SETTERS: Final[dict[str, _Setter]] = {
    "gil": _set_gil,
    "position": _set_position,
    "territory": _set_territory,
    "logged_in": _set_logged_in,
    "in_combat": lambda engine, value, by: fight(engine, _bool(value, "in_combat"), by),
    "target": _set_target,
    "walk_speed": _set_walk_speed,
}


def set_value(engine: GameEngine, args: SetArgs, by: str) -> ChangeReply:
    """Set one part of the world (`path`) to `value`, recorded with the capability that part needs."""
    path = args.path.strip()
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in path)  # loggedIn, inCombat, walkSpeed
    setter = _SETTERS.get(snake)
    if setter is not None:
        return setter(engine, args.value, by)
    head, dot, rest = path.partition(".")
    if dot and head == "inventory":
        return _set_inventory(engine, rest, args.value, by)
    if dot and head == "currencies":
        return _set_currency(engine, rest, args.value, by)
    raise Refusal(f"there is no path {args.path!r} to set; the paths are {', '.join(SET_PATHS)}")


def advance_clock(engine: GameEngine, args: AdvanceClockArgs, _: str) -> ClockReply:
    """Move the test clock on by `seconds`, recording the arrivals on the way."""
    clock = engine.clock
    if not isinstance(clock, TestClock):
        raise Refusal("the game runs on a real clock; start it with --test-clock")
    if not 0 < args.seconds <= MAX_ADVANCE:
        raise Refusal(f"`seconds` is {args.seconds:g}: give more than 0 and at most {MAX_ADVANCE:g} (a year)")
    clock.advance(args.seconds)
    changes: list[Change] = engine.resolve()
    return ClockReply(changes=changes, time=engine.now())


def reset(engine: GameEngine, _: NoArgs, __: str) -> ResetReply:
    """Put the world back as the game started with it, for the next test of a shared system.

    Refused on the real clock: a game on it is a player's (`xivmcp up`), whose world is not a
    test's to throw away.
    """
    if not isinstance(engine.clock, TestClock):
        raise Refusal("the world is put back only for tests: start the game with --test-clock")
    engine.restore_start()
    return ResetReply(seq=engine.log.seq, time=engine.now())


def world_now(engine: GameEngine) -> World:
    """A copy of the world as it is now: the clock's time, and the character where it is (walk kept)."""
    world = msgspec.structs.replace(engine.world, time=engine.now())
    world.player = msgspec.structs.replace(engine.world.player, position=engine.position_now())
    return world


def save(engine: GameEngine, args: SaveArgs, _: str) -> SaveReply:
    """Write the world to a file of the world folder, or to the game's --save file (S5: never elsewhere)."""
    name = (args.path or "").strip()
    try:
        if name:
            if engine.worlds is None:
                raise Refusal(
                    "the game was started without --data-dir, so it has no world folder: start it with one "
                    "(as `xivmcp up` does), or with --save FILE.json and call Game.Save without a path"
                )
            path = world_in_folder(engine.worlds, name)
        elif engine.save_path is not None:
            path = engine.save_path
        else:
            raise Refusal('the game was started without --save, so give a file name: {"path": "world.json"}')
    except WorldFileError as exc:
        raise Refusal(str(exc).rstrip(".")) from None
    try:
        written = save_world(world_now(engine), path)
    except WorldFileError as exc:
        raise Refusal(str(exc).rstrip(".")) from None
    return SaveReply(path=str(written))
