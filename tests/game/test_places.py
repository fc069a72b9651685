"""The world's places: inn rooms, housing interiors and fishing spots (W1, W6).

navigate_to goes into the places a zone's `place` names and walks to Company Chests, Voyage
Control Panels and fishing spots; the world file holds them, checked where it is decoded.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import pytest

from game import default_world
from game._errors import WorldFileError
from game._world_file import decode_world

from ._system import WAIT, game_peer, game_system


def test_w1_the_default_world_has_an_inn_the_characters_housing_but_no_house_and_fishing_spots() -> None:
    world = default_world()
    places = {zone.place: (zone.territory, zone.name) for zone in world.zones if zone.place}
    assert places == {
        "inn": (177, "Mizzenmast Inn"),
        "fc_house": (283, "Private House - Mist"),
        "workshop": (423, "Company Workshop - Mist"),
        "apartment": (608, "Topmast Apartment"),
    }
    kinds = {(o.kind, o.name, o.spot) for zone in world.zones for o in zone.objects if o.kind not in ("npc", "object")}
    assert {("company_chest", "Company Chest", 0), ("voyage_panel", "Voyage Control Panel", 0)} <= kinds
    assert ("fishing_spot", "Zephyr Drift", 16) in kinds


def test_w1_a_zone_of_an_unknown_kind_of_place_is_refused_naming_the_field() -> None:
    world = msgspec.to_builtins(default_world())
    world["zones"][0]["place"] = "castle"
    with pytest.raises(WorldFileError, match=r"\$\.zones\[0\]\.place"):
        decode_world(msgspec.json.encode(world), "The world file w.json")


@pytest.mark.asyncio
async def test_w1_a_fishing_spot_is_not_in_the_object_table(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.set_position(-18.0, -15.0, territory=134)
                names = {o.name for o in (await game.objects()).objects}
    assert "Zephyr Drift" not in names and "Summerford Farms" in names
