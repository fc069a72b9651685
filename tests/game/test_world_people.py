"""The world's people and weather, in memory (W1): the forecast is the game's, and a world file whose
characters, sheets, party, objects or weather cannot run is refused naming the field."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from game import (
    PERIOD_SECONDS,
    ClassJobLevel,
    Gearset,
    PartyMember,
    QuestState,
    WeatherRate,
    World,
    WorldFileError,
    default_world,
    eorzea_clock,
    eorzea_hour,
    period_start,
    weather_at,
    weather_periods,
)
from game._world_file import decode_world

RATES = [
    WeatherRate(weather=w, rate=r) for w, r in (("Clear Skies", 20), ("Fair Skies", 30), ("Clouds", 30), ("Rain", 20))
]
"""The real host's test zone (`XivMcp.Tests`, WeatherForecastTests)."""


@pytest.mark.parametrize(
    ("unix", "target"), [(0, 56), (1400, 12), (1700000000, 53), (1759600000, 9), (1759601400, 97), (2000000000, 87)]
)
def test_w1_the_forecast_number_is_the_games_as_the_real_host_tests_it(unix: int, target: int) -> None:
    # the weather the number falls under: below 20 Clear Skies, below 50 Fair Skies, below 80 Clouds, else Rain
    expected = "Clear Skies" if target < 20 else "Fair Skies" if target < 50 else "Clouds" if target < 80 else "Rain"
    assert weather_at(RATES, unix) == expected


def test_w1_periods_follow_each_other_from_the_one_running_now() -> None:
    periods = weather_periods(RATES, 1759600100, 3)
    assert [p.start for p in periods] == [1759599800, 1759599800 + PERIOD_SECONDS, 1759599800 + 2 * PERIOD_SECONDS]
    assert periods[0].end == periods[1].start and periods[1].previous == periods[0].weather
    assert (periods[0].weather, periods[1].weather) == ("Clear Skies", "Rain")  # numbers 9 and 97
    assert periods[0].previous == weather_at(RATES, 1759599800 - PERIOD_SECONDS)
    assert (period_start(2799), period_start(2800)) == (1400, 2800)
    assert (eorzea_clock(eorzea_hour(175 * 16 + 87.5)), eorzea_clock(24)) == ("16:30", "00:00")


def _encoded(change: Callable[[World], None]) -> bytes:
    world = default_world()
    change(world)
    return msgspec.json.encode(world)


def _player_job(w: World) -> None:
    w.player.job = "Dragonslayer"


def _twice(w: World) -> None:
    w.sheets[0].class_jobs.append(ClassJobLevel(job="MRD", level=100))


def _current_level(w: World) -> None:
    w.sheets[0].class_jobs[0].level = 90


def _gearset(w: World) -> None:
    w.sheets[0].gearset = 9


def _quest(w: World) -> None:
    w.sheets[0].quests.append(QuestState(quest_id=12, name="Old"))


def _stranger(w: World) -> None:
    w.sheets[1].content_id = 1


def _crowd(w: World) -> None:
    w.party = [
        PartyMember(name=f"Friend {n}", world="Ravana", world_id=74, job="WHM", level=100, territory=1185)
        for n in range(8)
    ]


def _nowhere(w: World) -> None:
    w.party[1].territory = 4


def _kind(w: World) -> None:
    w.zones[0].objects[0].object_kind = "Dragon"


def _weather(w: World) -> None:
    w.zones[0].weather[0].rate = 50


def _slot(w: World) -> None:
    w.sheets[0].gearsets.append(Gearset(number=2, name="Again", job="WAR"))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (_player_job, "`$.player.job` is 'Dragonslayer', not a class or job of the game"),
        (_twice, "`$.sheets[0].classJobs[8].job` is 'MRD', whose level the sheet gives already"),
        (_current_level, "`$.sheets[0].classJobs[0].level` is 90, but the character is a level 100 Warrior"),
        (_gearset, "`$.sheets[0].gearset` is 9, which none of its gearsets has"),
        (_slot, "`$.sheets[0].gearsets[4].number` is 2: each gearset needs a number of its own"),
        (_quest, "`$.sheets[0].quests[3].questId` is 12: each quest needs a row id of its own, 65536 and up"),
        (_stranger, "`$.sheets[1].contentId` is 1: a sheet is one character's, once"),
        (_crowd, "`$.party` lists 8 members: a party holds the character and 7 more"),
        (_nowhere, "`$.party[1].territory` is 4, not a zone of this world"),
        (_kind, "`$.zones[0].objects[0].objectKind` is 'Dragon': use one of None, Pc, BattleNpc"),
        (_weather, "`$.zones[0].weather` must name each weather with a chance above 0, adding up to 100"),
    ],
)
def test_w1_a_world_whose_people_cannot_run_is_refused_naming_the_field(
    change: Callable[[World], None], says: str
) -> None:
    with pytest.raises(WorldFileError) as refused:
        decode_world(_encoded(change), "The world file bad.json")
    assert str(refused.value).startswith(f"The world file bad.json is not a valid world: {says}"), refused.value


def test_w1_the_default_worlds_people_and_weather_are_valid() -> None:
    assert decode_world(msgspec.json.encode(default_world()), "default") == default_world()
    zones = default_world().zones
    assert all(sum(r.rate for r in zone.weather) == 100 for zone in zones if not zone.place)
    assert all(zone.weather == [] for zone in zones if zone.place)  # indoors: no weather of its own
