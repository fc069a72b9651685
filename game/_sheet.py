"""A character's sheet: what it has grown into, as a world file holds it (W1).

    CharacterSheet   one character's (by content id): classes and jobs, gear worn, gearsets (and what each wears),
                     quests in the journal, favourite aetherytes, HP and MP
    ClassJobLevel    a class or job's level ("WAR" 100); a job and its class share one
    EquippedItem     one slot of the gear worn ("MainHand", ... "SoulCrystal")
    Gearset          a saved gearset, numbered as in the game's Gear Set list
    QuestState       an accepted quest and the step it is on

A character with no sheet in the world has every class and job at level 0 but its current one,
wears nothing, and has no gearsets or quests. The current job's level is the character's own
(`PlayerInfo.level`). None of it is in the snapshot XIV MCP reads around a call: reading it
changes nothing; `Game.EquipGearset` (`_gearsets`) changes the gear worn and the job.
"""

from __future__ import annotations

from typing import Final

import msgspec

__all__ = [
    "EQUIP_SLOTS",
    "CharacterSheet",
    "ClassJobLevel",
    "EquippedItem",
    "Gearset",
    "Glamour",
    "QuestState",
    "Stain",
]

EQUIP_SLOTS: Final = (
    "MainHand",
    "OffHand",
    "Head",
    "Body",
    "Hands",
    "Waist",
    "Legs",
    "Feet",
    "Ears",
    "Neck",
    "Wrists",
    "RightRing",
    "LeftRing",
    "SoulCrystal",
)
"""The slots of the equipped-items container, in the game's order."""


class _Doc(msgspec.Struct, rename="camel", kw_only=True):
    """snake_case in Python, camelCase on the wire, as every document of the game."""


class ClassJobLevel(_Doc):
    """A class or job's level on the sheet ("WAR" 100), with the experience into it."""

    job: str
    """An abbreviation ("WAR") or a name ("Warrior") of the game's classes and jobs."""
    level: int
    exp: int = 0
    """Experience into the level."""
    desynthesis: float = 0.0
    """A crafter's desynthesis skill."""


class Stain(_Doc):
    """A dye."""

    id: int
    name: str


class Glamour(_Doc):
    """The item a piece of gear is glamoured to look like."""

    item_id: int
    name: str


class EquippedItem(_Doc):
    """The gear worn in one slot: the item, its levels, its state, materia, dyes and glamour."""

    slot: str
    """One of `EQUIP_SLOTS`."""
    item_id: int
    name: str
    item_level: int = 0
    equip_level: int = 1
    hq: bool = False
    spiritbond: float = 0.0
    """Percent."""
    condition: float = 100.0
    """Percent."""
    materia: list[str] = []
    dyes: list[Stain] = []
    glamour: Glamour | None = None


class Gearset(_Doc):
    """A saved gearset, numbered as in the game's Gear Set list: its job and the gear it puts on."""

    number: int
    """1 to 100, as the Gear Set list numbers it."""
    name: str
    job: str
    """The class or job it equips (abbreviation or name)."""
    item_level: int = 0
    missing_items: int = 0
    """Items of the set that are in none of the character's containers."""
    items: list[EquippedItem] = []
    """What equipping it wears, slot by slot (`Game.EquipGearset`); a slot it leaves out is emptied."""


class QuestState(_Doc):
    """An accepted quest and the step it is on."""

    quest_id: int
    """The game's quest row id (65536 and up)."""
    name: str
    sequence: int = 1
    """The step it is on; 255: ready to turn in."""
    genre: str | None = None
    """The journal's genre ("Dawntrail", "Side Quests", ...)."""
    level: int = 0
    hidden: bool = False
    priority: bool = False


class CharacterSheet(_Doc):
    """What one character has grown into: classes and jobs, the gear worn, gearsets, quests and allowances."""

    content_id: int
    """Whose sheet: a character of the world (the player's, or one of `characters`)."""
    class_jobs: list[ClassJobLevel] = []
    equipment: list[EquippedItem] = []
    gearsets: list[Gearset] = []
    gearset: int = 0
    """The number of the gearset worn (0: none)."""
    quests: list[QuestState] = []
    daily_allowances: int = 12
    """Daily (tribal) quests it may still accept today."""
    leve_allowances: int = 0
    favourite_aetherytes: list[int] = []
    """Aetheryte ids."""
    max_hp: int = 0
    max_mp: int = 10_000
