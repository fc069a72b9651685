"""Map and world coordinates (A11): the formula's known points, and its round trip as a property."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game import MapInfo, arrived, ground_distance, to_map, to_world, yalms_per_map_unit

FIELD = MapInfo(size_factor=100)
CITY = MapInfo(size_factor=200)


def test_a11_a_field_maps_world_origin_to_the_middle_of_the_map() -> None:
    assert to_map(FIELD, 0.0, 0.0) == (21.5, 21.5)
    assert to_world(FIELD, 21.5, 21.5) == (0.0, 0.0)


def test_a11_a_city_maps_world_origin_to_11_25() -> None:
    assert to_map(CITY, 0.0, 0.0) == (11.25, 11.25)
    assert to_world(CITY, 11.25, 11.25) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("map_info", "world", "expected"),
    [
        (FIELD, (-1024.0, 1024.0), (1.0, 42.0)),  # a field's edges are map 1 and 42
        (MapInfo(size_factor=100, offset_x=-100, offset_y=50), (100.0, -50.0), (21.5, 21.5)),  # offsets shift
        (CITY, (2048.0 / 41, 0.0), (12.25, 11.25)),  # one map unit is 2048/41 yalms on a city map too
        (MapInfo(size_factor=400), (0.0, 0.0), (6.125, 6.125)),
    ],
)
def test_a11_known_points(map_info: MapInfo, world: tuple[float, float], expected: tuple[float, float]) -> None:
    assert to_map(map_info, *world) == pytest.approx(expected, rel=1e-12)


def test_a11_one_map_unit_is_2048_over_41_yalms_whatever_the_size_factor() -> None:
    for map_info in (FIELD, CITY, MapInfo(size_factor=95, offset_x=30)):
        assert yalms_per_map_unit(map_info) == pytest.approx(2048 / 41, rel=1e-12)


def test_a11_ground_distance_leaves_out_height_and_arrived_needs_the_zone() -> None:
    assert ground_distance(0.0, 0.0, 3.0, 4.0) == 5.0
    assert arrived(1185, 3.0, 4.0, 1185, 0.0, 0.0, 5.0)
    assert not arrived(1185, 3.0, 4.0, 1185, 0.0, 0.0, 4.99)
    assert not arrived(1188, 0.0, 0.0, 1185, 0.0, 0.0, 5.0)


def test_a11_a_map_without_a_size_factor_is_refused_with_a_message() -> None:
    with pytest.raises(ValueError, match="size factor must be positive"):
        to_map(MapInfo(size_factor=0), 0.0, 0.0)


maps = st.builds(
    MapInfo,
    size_factor=st.integers(min_value=1, max_value=800),
    offset_x=st.integers(min_value=-2048, max_value=2048),
    offset_y=st.integers(min_value=-2048, max_value=2048),
)
coordinate = st.floats(min_value=-5000.0, max_value=5000.0, allow_nan=False, allow_infinity=False)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@given(maps, coordinate, coordinate)
def test_a11_world_to_map_and_back_is_the_same_point(map_info: MapInfo, x: float, z: float) -> None:
    back_x, back_z = to_world(map_info, *to_map(map_info, x, z))
    assert _close(back_x, x) and _close(back_z, z)


@given(maps, st.floats(min_value=1.0, max_value=42.0), st.floats(min_value=1.0, max_value=42.0))
def test_a11_map_to_world_and_back_is_the_same_point(map_info: MapInfo, x: float, y: float) -> None:
    back_x, back_y = to_map(map_info, *to_world(map_info, x, y))
    assert _close(back_x, x) and _close(back_y, y)


@pytest.mark.parametrize("world", [(-512.0, 300.0), (12.5, -88.25)])
@pytest.mark.parametrize("map_info", [FIELD, MapInfo(size_factor=200, offset_x=-64, offset_y=32)])
def test_a11_the_real_hosts_test_points_round_trip_to_three_places(
    map_info: MapInfo, world: tuple[float, float]
) -> None:
    # The points and maps of the real host's MapTests.cs (a field map, and a city with offsets).
    back = to_world(map_info, *to_map(map_info, *world))
    assert (round(back[0], 3), round(back[1], 3)) == world
