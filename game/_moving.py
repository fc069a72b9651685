"""The gates that move the character: walking, stopping, placing it, teleporting (capability move_character).

Walking to a world point or a map point starts a walk at the world's walk speed; the arrival is
a change of its own, when the clock gets there. `SetPosition` is the player's own walking,
instant (tests, `xivmcp game set position`). A teleport changes zone and costs its aetheryte's gil.
"""

from __future__ import annotations

from gates.contract import CapabilityId

from ._args import MoveToArgs, MoveToMapArgs, NoArgs, SetPositionArgs, TeleportArgs
from ._documents import Change, Vec3, Zone
from ._engine import GameEngine
from ._errors import Refusal
from ._maps import on_map, to_map, to_world
from ._replies import ChangeReply, MoveReply, StopReply

__all__ = ["check_on_map", "check_world_point", "move_to", "move_to_map", "set_position", "stop", "teleport"]


def check_on_map(x: float, y: float) -> None:
    if not on_map(x, y):
        raise Refusal(f"({x:g}, {y:g}) is off the map: map coordinates run from 1 to 42.")


def check_world_point(zone: Zone, x: float, z: float, hint: str = "") -> None:
    """Refuse a world point (x, z) off the map of `zone`; `hint` ends the refusal (what to use instead)."""
    map_x, map_y = to_map(zone.map, x, z)
    if not on_map(map_x, map_y):
        raise Refusal(
            f"the world point ({x:g}, {z:g}) is off the map of {zone.name} (map {map_x:.1f}, {map_y:.1f}): "
            f"map coordinates run from 1 to 42{hint}"
        )


def _walk(engine: GameEngine, by: str, destination: Vec3) -> MoveReply:
    engine.require_logged_in("walk")
    change, distance, seconds = engine.walk_to(by, destination)
    arrival = engine.arrival_time()
    return MoveReply(
        changes=[] if change is None else [change],
        destination=destination,
        distance=distance,
        eta=seconds,
        arrives_at=engine.now() if arrival is None else arrival,
    )


def move_to(engine: GameEngine, args: MoveToArgs, by: str) -> MoveReply:
    """Walk to the world point (x, z) in the current zone; `y` defaults to the current height."""
    engine.require_logged_in("walk")
    check_world_point(engine.current_zone, args.x, args.z, "; Game.MoveToMap takes map coordinates")
    y = engine.position_now().y if args.y is None else args.y
    return _walk(engine, by, Vec3(x=args.x, y=y, z=args.z))


def move_to_map(engine: GameEngine, args: MoveToMapArgs, by: str) -> MoveReply:
    """Walk to the map coordinates (x, y) of the current zone."""
    engine.require_logged_in("walk")
    zone = engine.current_zone
    check_on_map(args.x, args.y)
    world_x, world_z = to_world(zone.map, args.x, args.y)
    return _walk(engine, by, Vec3(x=world_x, y=engine.position_now().y, z=world_z))


def stop(engine: GameEngine, _: NoArgs, by: str) -> StopReply:
    """Stop walking where the character is now (nothing to record when it was not walking)."""
    here = engine.position_now()
    if not engine.moving:
        return StopReply(stopped=False, position=here)
    change = engine.record(by, CapabilityId.MOVE_CHARACTER, "position", f"stopped at {engine.place(here)}", engine.halt)
    return StopReply(changes=[change], stopped=True, position=here)


def set_position(engine: GameEngine, args: SetPositionArgs, by: str) -> ChangeReply:
    """Put the character at (x, y, z), in `territory` if given: instant, as the player's own walking."""
    player = engine.world.player
    territory = player.territory if args.territory is None else args.territory
    zone = engine.zone(territory)
    y = player.position.y if args.y is None else args.y
    destination = Vec3(x=args.x, y=y, z=args.z)
    check_world_point(zone, args.x, args.z)
    if territory == player.territory and not engine.moving and destination == player.position:
        return ChangeReply()

    def place() -> None:
        engine.halt()
        player.position = destination
        player.territory = territory

    kind = "zone" if territory != player.territory else "position"
    summary = f"placed at {engine.place(destination, territory)}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.MOVE_CHARACTER, kind, summary, place)])


def teleport(engine: GameEngine, args: TeleportArgs, by: str) -> ChangeReply:
    """Teleport to an aetheryte (by name or id): changes zone and position, and costs its gil."""
    engine.require_logged_in("teleport")
    player = engine.world.player
    if player.in_combat:
        raise Refusal("the character is in combat and cannot teleport; end the fight first (Game.EndCombat)")
    zone, aetheryte = engine.find_aetheryte(args.aetheryte)
    if aetheryte.cost > player.gil:
        raise Refusal(
            f"teleporting to {aetheryte.name} costs {aetheryte.cost:,} gil and the character has "
            f"{player.gil:,}; get more gil first (`xivmcp game set gil N`), or teleport somewhere cheaper"
        )

    def arrive() -> None:
        engine.halt()
        player.territory = zone.territory
        player.position = aetheryte.position

    def pay() -> None:
        player.gil -= aetheryte.cost

    changes: list[Change] = [
        engine.record(by, CapabilityId.MOVE_CHARACTER, "zone", f"teleported to {aetheryte.name} ({zone.name})", arrive)
    ]
    if aetheryte.cost > 0:
        summary = f"paid {aetheryte.cost:,} gil to teleport to {aetheryte.name}"
        changes.append(engine.record(by, CapabilityId.SPEND_GIL, "gil", summary, pay))
    return ChangeReply(changes=changes)
