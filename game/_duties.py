"""The duty the character is in: entering one (`Game.EnterDuty`, as the Duty Finder puts it there)
and leaving it (`Game.LeaveDuty`, the Duty Finder menu's Leave).

A duty is one of the world's zones. Entering takes the character there and remembers where it came
from; leaving takes it back to that spot. Both change the zone, which XIV MCP sees as `moved`, and
are recorded with `combat`, the capability the real host gives leave_duty for it (a duty is where
fights happen). Leaving is refused in combat (the game's Leave waits until the fight is over), and
when the character is in no duty.
"""

from __future__ import annotations

from gates.contract import CapabilityId

from ._args import NoArgs, _Args
from ._documents import Vec3
from ._engine import GameEngine
from ._errors import Refusal
from ._replies import ChangeReply
from ._travel_documents import DutyState

__all__ = ["EnterDutyArgs", "enter_duty", "leave_duty"]


class EnterDutyArgs(_Args, kw_only=True):
    territory: int
    """The duty's zone."""
    name: str | None = None
    """The duty's name (default: its zone's)."""


def enter_duty(engine: GameEngine, args: EnterDutyArgs, by: str) -> ChangeReply:
    engine.require_logged_in("enter a duty")
    world, player = engine.world, engine.world.player
    if world.duty is not None:
        raise Refusal(f"the character is in the duty {world.duty.name} already; leave it first (Game.LeaveDuty)")
    zone = engine.zone(args.territory)
    if zone.territory == player.territory:
        raise Refusal(f"the character is in {zone.name} already: a duty is another zone than the one it stands in")
    here = engine.position_now()
    duty = DutyState(
        name=(args.name or zone.name).strip()[:64] or zone.name,
        territory=zone.territory,
        from_territory=player.territory,
        from_x=here.x,
        from_y=here.y,
        from_z=here.z,
    )

    def enter() -> None:
        engine.halt()
        world.duty = duty
        world.retainer_open = None
        player.territory, player.position, player.target = zone.territory, Vec3(), None

    summary = f"entered the duty {duty.name} ({zone.name})"
    return ChangeReply(changes=[engine.record(by, CapabilityId.COMBAT, "duty", summary, enter)])


def leave_duty(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    engine.require_logged_in("leave a duty")
    world, player = engine.world, engine.world.player
    duty = world.duty
    if duty is None:
        raise Refusal("the character is not in a duty")
    if player.in_combat:
        raise Refusal("the character is in combat and cannot leave the duty until the fight is over (Game.EndCombat)")
    back = engine.zone(duty.from_territory)

    def leave() -> None:
        engine.halt()
        world.duty = None
        player.territory, player.target = back.territory, None
        player.position = Vec3(x=duty.from_x, y=duty.from_y, z=duty.from_z)

    summary = f"left the duty {duty.name}, back in {back.name}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.COMBAT, "duty", summary, leave)])
