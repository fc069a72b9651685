"""The weather: each zone's chances, and the forecast worked out from them on the game clock, as the game does.

    WeatherRate        one weather of a zone and its chance in percent (a zone's add up to 100)
    weather_at(rates, t)            the weather of the period running at `t`
    weather_periods(rates, t, n)    `n` periods from the one running at `t`, each with the one before
    eorzea_hour(t), eorzea_clock(h)  Eorzean time

Weather is not random: every 8 Eorzean hours (1,400 seconds) a number from 0 to 99 follows from the
time alone, and the zone's chances, added up in order, pick the weather it falls under. `t` is the
game clock in seconds, read as Unix time (the real game reads the real clock), so a world started
at time 0 begins on 1 January 1970 and its forecast is the same every time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, NamedTuple

import msgspec

__all__ = [
    "PERIOD_SECONDS",
    "WeatherPeriod",
    "WeatherRate",
    "eorzea_clock",
    "eorzea_hour",
    "period_start",
    "weather_at",
    "weather_periods",
]

SECONDS_PER_BELL: Final = 175
"""Real seconds in an Eorzean hour."""
SECONDS_PER_DAY: Final = SECONDS_PER_BELL * 24
PERIOD_SECONDS: Final = SECONDS_PER_BELL * 8
"""One weather lasts 8 Eorzean hours: from 00:00, 08:00 and 16:00."""
_U32: Final = 0xFFFFFFFF


class WeatherRate(msgspec.Struct, rename="camel", kw_only=True):
    """One weather of a zone ("Fair Skies") and its chance in percent."""

    weather: str
    rate: int


class WeatherPeriod(NamedTuple):
    """One weather period of a zone: from `start` to `end` (game seconds), its weather and the one before."""

    start: float
    end: float
    weather: str
    previous: str
    """The weather of the period before."""


def _target(seconds: float) -> int:
    """The forecast number (0 to 99) of the period running at `seconds`, as the game computes it."""
    unix = math.floor(seconds)
    bell = unix // SECONDS_PER_BELL
    increment = (bell + 8 - bell % 8) % 24
    days = (unix // SECONDS_PER_DAY) & _U32
    base = (days * 100 + increment) & _U32
    step1 = ((base << 11) & _U32) ^ base
    step2 = (step1 >> 8) ^ step1
    return step2 % 100


def _pick(rates: Sequence[WeatherRate], target: int) -> str:
    total = 0
    for rate in rates:
        total += rate.rate
        if target < total:
            return rate.weather
    return rates[-1].weather if rates else ""


def weather_at(rates: Sequence[WeatherRate], seconds: float) -> str:
    """The weather of the period running at `seconds` ("" for a zone with no weather of its own)."""
    return _pick(rates, _target(seconds))


def period_start(seconds: float) -> float:
    """When the weather period running at `seconds` began."""
    unix = math.floor(seconds)
    return float(unix - unix % PERIOD_SECONDS)


def weather_periods(rates: Sequence[WeatherRate], seconds: float, count: int) -> list[WeatherPeriod]:
    """`count` weather periods, the first the one running at `seconds`."""
    start = period_start(seconds)
    previous = weather_at(rates, start - PERIOD_SECONDS)
    periods = []
    for _ in range(count):
        weather = weather_at(rates, start)
        periods.append(WeatherPeriod(start, start + PERIOD_SECONDS, weather, previous))
        previous, start = weather, start + PERIOD_SECONDS
    return periods


def eorzea_hour(seconds: float) -> float:
    """The Eorzean hour at `seconds`, 0 to below 24, the minutes as a fraction."""
    return (seconds % SECONDS_PER_DAY) / SECONDS_PER_BELL


def eorzea_clock(hour: float) -> str:
    """An Eorzean hour as a clock, "16:30" (minutes rounded half to even, as the real host rounds)."""
    minutes = round(hour * 60) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
