"""Map and world coordinates (A11): what the game's map shows, and where that is in the world.

A zone's map has a size factor (100 for most field maps, 200 for cities) and an offset per axis.
Map X comes from world X with `offset_x`, map Y from world Z with `offset_y`:

    s = size_factor / 100
    map = 41 / s * (((world + offset) * s + 1024) / 2048) + 1
    world = ((map - 1) * s * 2048 / 41 - 1024) / s - offset

World coordinates are in yalms; map coordinates run from 1 to 42 on every map.
"""

from __future__ import annotations

import math
from typing import Final

from ._documents import MapInfo

__all__ = [
    "MAP_MAX",
    "MAP_MIN",
    "arrived",
    "ground_distance",
    "on_map",
    "to_map",
    "to_world",
    "yalms_per_map_unit",
]

MAP_MIN: Final = 1.0
MAP_MAX: Final = 42.0


def _scale(map: MapInfo) -> float:
    if map.size_factor <= 0:
        raise ValueError(
            f"A map's size factor must be positive (100 for a field, 200 for a city), not {map.size_factor}."
        )
    return map.size_factor / 100


def _axis_to_map(world: float, offset: int, s: float) -> float:
    return 41 / s * (((world + offset) * s + 1024) / 2048) + 1


def _axis_to_world(value: float, offset: int, s: float) -> float:
    return ((value - 1) * s * 2048 / 41 - 1024) / s - offset


def to_map(map: MapInfo, world_x: float, world_z: float) -> tuple[float, float]:
    """The map coordinates (x, y) of the world point (x, z) on `map`."""
    s = _scale(map)
    return _axis_to_map(world_x, map.offset_x, s), _axis_to_map(world_z, map.offset_y, s)


def to_world(map: MapInfo, map_x: float, map_y: float) -> tuple[float, float]:
    """The world point (x, z) at the map coordinates (x, y) of `map`."""
    s = _scale(map)
    return _axis_to_world(map_x, map.offset_x, s), _axis_to_world(map_y, map.offset_y, s)


def on_map(map_x: float, map_y: float) -> bool:
    """Whether map coordinates are on the map (1 to 42 on both axes)."""
    return MAP_MIN <= map_x <= MAP_MAX and MAP_MIN <= map_y <= MAP_MAX


def ground_distance(ax: float, az: float, bx: float, bz: float) -> float:
    """Yalms between two world points on the ground (X and Z; height is left out, as walking does)."""
    return math.hypot(bx - ax, bz - az)


def arrived(
    territory: int, x: float, z: float, target_territory: int, target_x: float, target_z: float, radius: float
) -> bool:
    """Whether a character at (x, z) in `territory` is within `radius` yalms of the target, in its zone."""
    return territory == target_territory and ground_distance(x, z, target_x, target_z) <= radius


def yalms_per_map_unit(map: MapInfo) -> float:
    """Yalms one map unit spans on `map`.

    The formula's slope is 2048 / 41 (about 50 yalms) whatever the size factor: the size factor
    only moves where the map's centre falls. Computed from the formula so that it stays right
    if the formula changes.
    """
    (x1, _), (x2, _) = to_world(map, MAP_MIN, MAP_MIN), to_world(map, MAP_MIN + 1, MAP_MIN)
    return x2 - x1
