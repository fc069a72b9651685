"""The account's characters and the worlds they can visit.

    Game.GetCharacters   the account's characters (the current one first, with where each is) and the
                         public worlds with their data centres: read, nothing recorded
    Game.TravelToWorld   visit another world (World Visit on the data centre, Data Center Travel to
                         another), or go home: the character's current world changes

A visit is recorded with `move_character`: XIV MCP sees the world change as `moved`, which the real
host's visit_world declares (with `spend_gil`). It is refused while logged out, in a duty or in
combat. `check_travel` says why a world file's worlds or duty cannot run, naming the field.
"""

from __future__ import annotations

from gates.contract import CapabilityId

from ._args import NoArgs, _Args
from ._documents import PlayerInfo, World
from ._engine import GameEngine
from ._errors import Refusal
from ._replies import ChangeReply, _Reply
from ._travel_documents import GameWorld

__all__ = ["CharactersReply", "TravelArgs", "characters", "check_travel", "current_world", "travel_to_world"]


class TravelArgs(_Args, kw_only=True):
    world: str
    """The world to visit (any case); the home world goes home."""


class CharactersReply(_Reply, kw_only=True):
    """`Game.GetCharacters`: the account's characters and the public worlds they can visit."""

    characters: list[PlayerInfo]
    """The account's characters, the current one first."""
    worlds: list[GameWorld]


def current_world(player: PlayerInfo) -> tuple[int, str]:
    """The world the character is on now: (id, name)."""
    if player.current_world_id is None or player.current_world is None:
        return player.world_id, player.world
    return player.current_world_id, player.current_world


def characters(engine: GameEngine, _: NoArgs, __: str) -> CharactersReply:
    world = engine.world
    return CharactersReply(characters=[world.player, *world.characters], worlds=world.worlds)


def _find_world(world: World, name: str) -> GameWorld:
    wanted = name.strip().casefold()
    found = next((w for w in world.worlds if w.name.casefold() == wanted), None)
    if found is None:
        known = ", ".join(w.name for w in world.worlds) or "none"
        raise Refusal(f"there is no public world named {name!r}; this game's worlds are {known}")
    return found


def travel_to_world(engine: GameEngine, args: TravelArgs, by: str) -> ChangeReply:
    engine.require_logged_in("travel to another world")
    world, player = engine.world, engine.world.player
    if world.duty is not None:
        raise Refusal(f"the character is in the duty {world.duty.name} and cannot travel; leave it first")
    if player.in_combat:
        raise Refusal("the character is in combat and cannot travel; end the fight first")
    target = _find_world(world, args.world)
    was_id, was = current_world(player)
    if target.id == was_id:
        return ChangeReply()
    home = target.id == player.world_id

    def travel() -> None:
        engine.halt()
        world.retainer_open = None
        player.current_world = None if home else target.name
        player.current_world_id = None if home else target.id

    summary = f"travelled from {was} to {target.name} ({target.data_center})" + (", home" if home else "")
    return ChangeReply(changes=[engine.record(by, CapabilityId.MOVE_CHARACTER, "world", summary, travel)])


def check_travel(world: World) -> str | None:
    """Why the world's worlds, the characters' current worlds or the duty cannot run, or None."""
    ids = [w.id for w in world.worlds]
    names = [w.name.casefold() for w in world.worlds]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        return "`$.worlds` lists a world twice: each world needs an id and a name of its own"
    for index, character in enumerate([world.player, *world.characters]):
        where = "$.player" if index == 0 else f"$.characters[{index - 1}]"
        if (character.current_world is None) != (character.current_world_id is None):
            return f"`{where}.currentWorld` and `{where}.currentWorldId` go together: give both, or neither"
        if character.current_world_id is not None and character.current_world_id not in ids:
            return f"`{where}.currentWorldId` is {character.current_world_id}, not one of `$.worlds`"
    duty = world.duty
    zones = {zone.territory for zone in world.zones}
    if duty is not None and (duty.territory not in zones or duty.from_territory not in zones):
        return f"`$.duty` names the territories {duty.territory} and {duty.from_territory}: both must be zones here"
    if duty is not None and world.player.territory != duty.territory:
        return f"`$.duty.territory` is {duty.territory}, but the character stands in {world.player.territory}"
    return None
