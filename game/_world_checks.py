"""The checks of a world file's characters, sheets, party, objects and weather (W1).

`check_people(world)` says why those parts of a world cannot run, naming the field
(`$.sheets[0].classJobs[2].level`), or None; `_world_file.check_world` asks it after its own checks,
so a hand-edited file gets one line saying what to fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from ._classjobs import MAX_LEVEL, ClassJob, find_class_job, shares_level
from ._documents import PlayerInfo, World
from ._roster import OBJECT_KINDS
from ._sheet import EQUIP_SLOTS, CharacterSheet

__all__ = ["MAX_GEARSETS", "MAX_PARTY", "check_people"]

MAX_PARTY: Final = 7
"""Other members a party holds (8 with the character)."""
MAX_GEARSETS: Final = 100
FIRST_QUEST: Final = 65536
"""The game's quest rows start here."""
TURN_IN: Final = 255


class _Wrong(Exception):
    """What is wrong with a world, naming the field; `check_people` returns its message."""


def _job(text: str, where: str) -> ClassJob:
    found = find_class_job(text)
    if found is None:
        raise _Wrong(f"`{where}` is {text!r}, not a class or job of the game: give 'WAR', 'Warrior' or the like")
    return found


def _level(level: int, where: str, low: int = 0) -> None:
    if not low <= level <= MAX_LEVEL:
        raise _Wrong(f"`{where}` is {level}: a level runs from {low} to {MAX_LEVEL}")


def _characters(world: World) -> Iterator[tuple[str, PlayerInfo]]:
    yield "$.player", world.player
    for index, character in enumerate(world.characters):
        yield f"$.characters[{index}]", character


def _class_jobs(sheet: CharacterSheet, where: str, owner: PlayerInfo) -> None:
    current = find_class_job(owner.job)
    seen: list[ClassJob] = []
    for index, entry in enumerate(sheet.class_jobs):
        at = f"{where}.classJobs[{index}]"
        row = _job(entry.job, f"{at}.job")
        _level(entry.level, f"{at}.level")
        if any(shares_level(row, other) for other in seen):
            raise _Wrong(f"`{at}.job` is {entry.job!r}, whose level the sheet gives already (a job shares its class's)")
        if current is not None and shares_level(row, current) and entry.level != owner.level:
            raise _Wrong(f"`{at}.level` is {entry.level}, but the character is a level {owner.level} {owner.job}")
        if entry.exp < 0:
            raise _Wrong(f"`{at}.exp` is {entry.exp}: experience cannot be negative")
        seen.append(row)


def _gear(sheet: CharacterSheet, where: str) -> None:
    slots = [item.slot for item in sheet.equipment]
    for index, slot in enumerate(slots):
        if slot not in EQUIP_SLOTS:
            raise _Wrong(f"`{where}.equipment[{index}].slot` is {slot!r}: use one of {', '.join(EQUIP_SLOTS)}")
        if slots.index(slot) != index:
            raise _Wrong(f"`{where}.equipment[{index}].slot` is {slot!r}, a slot the sheet fills already")
    numbers = [g.number for g in sheet.gearsets]
    for index, gearset in enumerate(sheet.gearsets):
        at = f"{where}.gearsets[{index}]"
        if not 1 <= gearset.number <= MAX_GEARSETS or numbers.index(gearset.number) != index:
            raise _Wrong(f"`{at}.number` is {gearset.number}: each gearset needs a number of its own, 1 to 100")
        _job(gearset.job, f"{at}.job")
    if sheet.gearset != 0 and sheet.gearset not in numbers:
        raise _Wrong(
            f"`{where}.gearset` is {sheet.gearset}, which none of its gearsets has: give 0 or one of {numbers}"
        )


def _sheet(sheet: CharacterSheet, where: str, owner: PlayerInfo, aetherytes: set[int]) -> None:
    _class_jobs(sheet, where, owner)
    _gear(sheet, where)
    quests = [q.quest_id for q in sheet.quests]
    for index, quest in enumerate(sheet.quests):
        at = f"{where}.quests[{index}]"
        if quest.quest_id < FIRST_QUEST or quests.index(quest.quest_id) != index:
            raise _Wrong(f"`{at}.questId` is {quest.quest_id}: each quest needs a row id of its own, 65536 and up")
        if not 0 <= quest.sequence <= TURN_IN:
            raise _Wrong(f"`{at}.sequence` is {quest.sequence}: a step runs from 0 to 255 (255: ready to turn in)")
    for index, aetheryte in enumerate(sheet.favourite_aetherytes):
        if aetheryte not in aetherytes:
            raise _Wrong(f"`{where}.favouriteAetherytes[{index}]` is {aetheryte}, an aetheryte this world lacks")
    if sheet.max_hp < 0 or sheet.max_mp < 0:
        raise _Wrong(f"`{where}.maxHp` and `{where}.maxMp` cannot be negative")


def _party(world: World, zones: set[int]) -> None:
    if len(world.party) > MAX_PARTY:
        raise _Wrong(f"`$.party` lists {len(world.party)} members: a party holds the character and {MAX_PARTY} more")
    names = {world.player.name.casefold()}
    for index, member in enumerate(world.party):
        where = f"$.party[{index}]"
        if member.name.casefold() in names:
            raise _Wrong(f"`{where}.name` is {member.name!r}, who is in the party already")
        names.add(member.name.casefold())
        if member.territory not in zones:
            raise _Wrong(f"`{where}.territory` is {member.territory}, not a zone of this world: use {sorted(zones)}")
        _job(member.job, f"{where}.job")
        _level(member.level, f"{where}.level", 1)
    if sum(member.leader for member in world.party) > 1:
        raise _Wrong("`$.party` has more than one leader: mark one member `leader` (none: the character leads)")


def _zones(world: World) -> None:
    for zone_index, zone in enumerate(world.zones):
        where = f"$.zones[{zone_index}]"
        for index, thing in enumerate(zone.objects):
            if thing.object_kind is not None and thing.object_kind not in OBJECT_KINDS:
                kinds = ", ".join(OBJECT_KINDS)
                raise _Wrong(f"`{where}.objects[{index}].objectKind` is {thing.object_kind!r}: use one of {kinds}")
        weather = zone.weather
        if weather and (sum(r.rate for r in weather) != 100 or any(r.rate <= 0 or not r.weather for r in weather)):
            raise _Wrong(f"`{where}.weather` must name each weather with a chance above 0, adding up to 100")


def check_people(world: World) -> str | None:
    """Why the characters' jobs, sheets, party, objects or weather cannot run, or None."""
    try:
        owners: dict[int, PlayerInfo] = {}
        for where, character in _characters(world):
            _job(character.job, f"{where}.job")
            _level(character.level, f"{where}.level", 1)
            owners.setdefault(character.content_id, character)
        aetherytes = {a.id for zone in world.zones for a in zone.aetherytes}
        sheeted: set[int] = set()
        for index, sheet in enumerate(world.sheets):
            owner = owners.get(sheet.content_id)
            if owner is None or sheet.content_id in sheeted:
                raise _Wrong(f"`$.sheets[{index}].contentId` is {sheet.content_id}: a sheet is one character's, once")
            sheeted.add(sheet.content_id)
            _sheet(sheet, f"$.sheets[{index}]", owner, aetherytes)
        _party(world, {zone.territory for zone in world.zones})
        _zones(world)
    except _Wrong as wrong:
        return str(wrong)
    return None
