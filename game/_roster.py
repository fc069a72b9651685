"""The reading gates of who and what is around the character, and of its sheet: nothing is recorded.

    Game.GetCharacterSheet   the current character's sheet (`_sheet.CharacterSheet`), its job and level
    Game.GetParty            the other members of its party
    Game.GetObjects          the game's object table in the current zone, and what the character targets

The object table is what stands in the character's zone, as the game lists it to plugins: the
zone's objects (NPCs, summoning bells, enemies, ...), its aetherytes, and the party members who are
in the zone, each with the game's ObjectKind name (`OBJECT_KINDS`), ids and position. The ids are
the simulator's own, fixed for a world: a player's comes from its content id, anything else's from
its zone and place in the zone's lists.
"""

from __future__ import annotations

from typing import Final

from ._args import NoArgs
from ._documents import PartyMember, Vec3, World, WorldObject, Zone, _Doc
from ._engine import GameEngine
from ._sheet import CharacterSheet

__all__ = [
    "NO_ENTITY",
    "OBJECT_KINDS",
    "CHARACTER_KINDS",
    "GameObject",
    "ObjectsReply",
    "PartyReply",
    "SheetReply",
    "character_sheet",
    "objects",
    "object_kind",
    "object_table",
    "party",
    "player_entity_id",
    "sheet_of",
]

OBJECT_KINDS: Final = (
    "None",
    "Pc",
    "BattleNpc",
    "EventNpc",
    "Treasure",
    "Aetheryte",
    "GatheringPoint",
    "EventObj",
    "Mount",
    "Companion",
    "Retainer",
    "AreaObject",
    "HousingEventObject",
    "Cutscene",
    "ReactionEventObject",
    "Ornament",
    "CardStand",
)
"""The game's ObjectKind names, by value (0 to 16)."""
CHARACTER_KINDS: Final = frozenset({"Pc", "BattleNpc", "EventNpc", "Companion", "Retainer"})
"""Kinds that are characters: they have a level, a class or job and HP."""
NO_ENTITY: Final = 0xE0000000
"""The entity id of an object that is not a character (the game's "no id")."""
_PLAYER_IDS: Final = 0x10000000


class _Reply(_Doc):
    ok: bool = True


class GameObject(_Doc):
    """One entry of the object table."""

    name: str
    kind: str
    """One of `OBJECT_KINDS`."""
    game_object_id: int
    entity_id: int
    position: Vec3
    base_id: int = 0
    targetable: bool = True
    dead: bool = False
    level: int | None = None
    """Characters only (`CHARACTER_KINDS`), as `class_job`, HP and MP."""
    class_job: str | None = None
    """An abbreviation or name of the game's classes and jobs (None: an NPC's, which has none)."""
    hp: int | None = None
    max_hp: int | None = None
    mp: int | None = None
    max_mp: int | None = None
    home_world: str | None = None
    """Players only."""
    home_world_id: int | None = None


class SheetReply(_Reply, kw_only=True):
    """`Game.GetCharacterSheet`: the current character's sheet, with its class or job and level now."""

    sheet: CharacterSheet
    job: str
    """The character's current class or job (`PlayerInfo.job`)."""
    level: int


class PartyReply(_Reply, kw_only=True):
    """`Game.GetParty`: the other members of the character's party (empty: not in one)."""

    members: list[PartyMember]
    """The other members, in the party list's order (the character itself is not among them)."""


class ObjectsReply(_Reply, kw_only=True):
    """`Game.GetObjects`: the object table of the character's zone, where it is, and what it targets."""

    territory: int
    position: Vec3
    """Where the character is now."""
    objects: list[GameObject]
    """Everything in its zone but the character itself."""
    target: str | None
    """The name of what the character targets (None: nothing)."""


def player_entity_id(content_id: int) -> int:
    """A player character's entity id (and game object id): the simulator's own, from its content id."""
    return _PLAYER_IDS | (content_id & 0xFFFFFF)


def sheet_of(world: World) -> CharacterSheet:
    """The current character's sheet (an empty one when the world has none for it)."""
    content_id = world.player.content_id
    found = next((s for s in world.sheets if s.content_id == content_id), None)
    return found if found is not None else CharacterSheet(content_id=content_id)


def object_kind(thing: WorldObject) -> str:
    if thing.object_kind is not None:
        return thing.object_kind
    return "EventNpc" if thing.kind == "npc" else "EventObj"


def _zone_object(zone: Zone, index: int, thing: WorldObject) -> GameObject:
    kind = object_kind(thing)
    object_id = zone.territory * 1000 + index + 1
    if kind not in CHARACTER_KINDS:
        return GameObject(
            name=thing.name, kind=kind, game_object_id=object_id, entity_id=NO_ENTITY, position=thing.position
        )
    return GameObject(
        name=thing.name,
        kind=kind,
        game_object_id=object_id,
        entity_id=object_id if kind == "BattleNpc" else NO_ENTITY,
        position=thing.position,
        level=thing.level,
        hp=thing.hp,
        max_hp=thing.hp,
        mp=0,
        max_mp=0,
    )


def _member(member: PartyMember) -> GameObject:
    object_id = player_entity_id(member.content_id)
    return GameObject(
        name=member.name,
        kind="Pc",
        game_object_id=object_id,
        entity_id=object_id,
        position=member.position,
        level=member.level,
        class_job=member.job,
        hp=member.max_hp,
        max_hp=member.max_hp,
        mp=member.max_mp,
        max_mp=member.max_mp,
        home_world=member.world,
        home_world_id=member.world_id,
    )


def object_table(engine: GameEngine) -> list[GameObject]:
    """Everything in the character's zone but the character, as the game lists it."""
    zone = engine.current_zone
    table = [  # a fishing spot is a place on the water, not a game object
        _zone_object(zone, index, thing) for index, thing in enumerate(zone.objects) if thing.kind != "fishing_spot"
    ]
    for index, aetheryte in enumerate(zone.aetherytes):
        table.append(
            GameObject(
                name=aetheryte.name,
                kind="Aetheryte",
                game_object_id=zone.territory * 1000 + 500 + index,
                entity_id=NO_ENTITY,
                base_id=aetheryte.id,
                position=aetheryte.position,
            )
        )
    table.extend(_member(m) for m in engine.world.party if m.territory == zone.territory)
    return table


def character_sheet(engine: GameEngine, _: NoArgs, __: str) -> SheetReply:
    player = engine.world.player
    return SheetReply(sheet=sheet_of(engine.world), job=player.job, level=player.level)


def party(engine: GameEngine, _: NoArgs, __: str) -> PartyReply:
    return PartyReply(members=engine.world.party)


def objects(engine: GameEngine, _: NoArgs, __: str) -> ObjectsReply:
    player = engine.world.player
    return ObjectsReply(
        territory=player.territory, position=engine.position_now(), objects=object_table(engine), target=player.target
    )
