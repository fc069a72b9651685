"""The default world's characters' sheets, the party, and each zone's weather: fixed, built in code (W1).

Wuk Lamat is a level 100 Warrior with other classes and jobs at lower levels, wearing a full set
of gear (no belt, as since Endwalker), with four gearsets (each with what it wears) and three
quests in her journal;
Erenville, the account's other character, has a sheet of his own. Koana Ruhl (the party's leader,
close by in Tuliyollal) and G'raha Tia (in Kozama'uka) are in her party.

The classes and jobs are the game's; the gear, gearsets and quests are the simulator's own (their
names and ids are made up, their levels plausible). La Noscea's weather chances are the game's, as
the community's forecasts give them; Tuliyollal's and Kozama'uka's are the simulator's own.
"""

from __future__ import annotations

from typing import Final

from ._documents import PartyMember, Vec3
from ._sheet import CharacterSheet, ClassJobLevel, EquippedItem, Gearset, Glamour, QuestState, Stain
from ._weather import WeatherRate

__all__ = ["default_party", "default_sheets", "default_weather"]

WUK_LAMAT: Final = 18014449511251234
ERENVILLE: Final = 18014449511259876
_ILVL: Final = 710
_SAVAGE_AIM: Final = "Savage Aim Materia XII"


def _gear(
    slot: str,
    item_id: int,
    name: str,
    item_level: int = _ILVL,
    *,
    hq: bool = False,
    dyes: list[Stain] | None = None,
    glamour: Glamour | None = None,
) -> EquippedItem:
    soul = slot == "SoulCrystal"
    return EquippedItem(
        slot=slot,
        item_id=item_id,
        name=name,
        item_level=item_level,
        equip_level=30 if soul else 100,
        hq=hq,
        spiritbond=0.0 if soul else 42.5,
        condition=100.0 if soul else 87.3,
        materia=[] if soul else [_SAVAGE_AIM, _SAVAGE_AIM],
        dyes=dyes or [],
        glamour=glamour,
    )


def _warrior_gear() -> list[EquippedItem]:
    """What the Warrior gearset wears, and Wuk Lamat wears at the start."""
    return [
        _gear(
            "MainHand",
            44_001,
            "Tuliyollan Battleaxe",
            dyes=[Stain(id=36, name="Soot Black")],
            glamour=Glamour(item_id=44_090, name="Yok Huy Greataxe"),
        ),
        _gear("Head", 44_011, "Tuliyollan Helm of Fending", hq=True),
        _gear("Body", 44_012, "Tuliyollan Mail of Fending", dyes=[Stain(id=36, name="Soot Black")]),
        _gear("Hands", 44_013, "Tuliyollan Gauntlets of Fending"),
        _gear("Legs", 44_014, "Tuliyollan Breeches of Fending"),
        _gear("Feet", 44_015, "Tuliyollan Sabatons of Fending"),
        _gear("Ears", 44_021, "Tuliyollan Earring of Fending", item_level=700),
        _gear("Neck", 44_022, "Tuliyollan Choker of Fending", item_level=700),
        _gear("Wrists", 44_023, "Tuliyollan Bracelet of Fending", item_level=700),
        _gear("RightRing", 44_024, "Tuliyollan Ring of Fending", item_level=700),
        _gear("LeftRing", 44_024, "Tuliyollan Ring of Fending", item_level=700),
        _gear("SoulCrystal", 4_543, "Soul of the Warrior", item_level=30),
    ]


def _paladin_gear() -> list[EquippedItem]:
    return [
        _gear("MainHand", 43_101, "Ceremonial Sword", 650),
        _gear("OffHand", 43_102, "Ceremonial Shield", 650),
        _gear("Head", 44_011, "Tuliyollan Helm of Fending", hq=True),
        _gear("Body", 44_012, "Tuliyollan Mail of Fending"),
        _gear("SoulCrystal", 4_542, "Soul of the Paladin", 30),
    ]


def _wuk_lamat() -> CharacterSheet:
    return CharacterSheet(
        content_id=WUK_LAMAT,
        class_jobs=[
            ClassJobLevel(job="WAR", level=100),
            ClassJobLevel(job="PLD", level=92, exp=1_203_400),
            ClassJobLevel(job="WHM", level=90, exp=88_000),
            ClassJobLevel(job="SAM", level=81),
            ClassJobLevel(job="CRP", level=72, exp=310_500, desynthesis=31.4),
            ClassJobLevel(job="CUL", level=90, desynthesis=12.0),
            ClassJobLevel(job="MIN", level=64),
            ClassJobLevel(job="FSH", level=50, exp=12_345),
        ],
        equipment=_warrior_gear(),
        gearsets=[
            Gearset(number=1, name="Warrior", job="WAR", item_level=706, items=_warrior_gear()),
            Gearset(number=2, name="Paladin", job="PLD", item_level=650, items=_paladin_gear()),
            Gearset(
                number=3,
                name="White Mage",
                job="WHM",
                item_level=640,
                missing_items=1,
                items=[
                    _gear("MainHand", 43_301, "Ceremonial Cane", 640),
                    _gear("SoulCrystal", 4_548, "Soul of the White Mage", 30),
                ],
            ),
            Gearset(
                number=4,
                name="Carpenter",
                job="CRP",
                item_level=560,
                items=[
                    _gear("MainHand", 41_201, "Tuliyollan Saw", 560),
                    _gear("OffHand", 41_202, "Tuliyollan Hammer", 560),
                ],
            ),
        ],
        gearset=1,
        quests=[
            QuestState(quest_id=70_301, name="The Crown of Tuliyollal", sequence=3, genre="Dawntrail", level=100),
            QuestState(quest_id=70_412, name="Flavors of the Peaks", sequence=255, genre="Side Quests", level=91),
            QuestState(
                quest_id=70_455, name="A Dummy for Every Dojo", sequence=1, genre="Side Quests", level=95, priority=True
            ),
        ],
        leve_allowances=98,
        favourite_aetherytes=[200],
        max_hp=152_400,
    )


def _erenville() -> CharacterSheet:
    return CharacterSheet(
        content_id=ERENVILLE,
        class_jobs=[ClassJobLevel(job="BRD", level=92, exp=2_100_000), ClassJobLevel(job="BTN", level=100)],
        gearsets=[Gearset(number=1, name="Bard", job="BRD", item_level=660)],
        gearset=1,
        max_hp=98_700,
    )


def default_sheets() -> list[CharacterSheet]:
    return [_wuk_lamat(), _erenville()]


def default_party() -> list[PartyMember]:
    return [
        PartyMember(
            name="Koana Ruhl",
            world="Ravana",
            world_id=74,
            content_id=18014449511260001,
            job="WHM",
            level=100,
            territory=1185,
            position=Vec3(x=-14.0, y=0.5, z=15.0),
            max_hp=96_300,
            leader=True,
        ),
        PartyMember(
            name="G'raha Tia",
            world="Ravana",
            world_id=74,
            content_id=18014449511260002,
            job="BLM",
            level=100,
            territory=1188,
            position=Vec3(x=-160.0, y=6.0, z=-460.0),
            max_hp=88_100,
        ),
    ]


_WEATHER: Final[dict[int, tuple[tuple[str, int], ...]]] = {
    1185: (("Clear Skies", 20), ("Fair Skies", 40), ("Clouds", 20), ("Rain", 10), ("Fog", 10)),
    1188: (("Clear Skies", 20), ("Fair Skies", 30), ("Clouds", 20), ("Rain", 20), ("Thunderstorms", 10)),
    129: (("Clouds", 20), ("Clear Skies", 30), ("Fair Skies", 30), ("Fog", 10), ("Rain", 10)),
    134: (("Clouds", 20), ("Clear Skies", 30), ("Fair Skies", 20), ("Wind", 10), ("Fog", 10), ("Rain", 10)),
    1194: (("Fair Skies", 100),),  # a dungeon's one weather (The Skydeep Cenote)
}


def default_weather(territory: int) -> list[WeatherRate]:
    """The weather chances of one of the default world's zones (none for another territory)."""
    return [WeatherRate(weather=w, rate=r) for w, r in _WEATHER.get(territory, ())]
