"""The default world's public worlds, on their data centres, and the duty its character can enter:
fixed, built in code (W1).

The worlds' names and data centres are the game's (Materia, in Oceania, holds Ravana, the
character's home world; Light is in Europe); their ids are the simulator's own, Ravana's being the
74 the character has always had here. The duty is The Skydeep Cenote, a Dawntrail dungeon, with its
territory id; XIV MCP's leave_duty takes the character out of it.
"""

from __future__ import annotations

from typing import Final

from ._documents import MapInfo, Zone
from ._travel_documents import GameWorld

__all__ = ["SKYDEEP_CENOTE", "default_duty_zones", "default_worlds"]

SKYDEEP_CENOTE: Final = 1194

_DATA_CENTERS: Final = (
    ("Materia", ((72, "Bismarck"), (74, "Ravana"), (75, "Sephirot"), (76, "Sophia"), (77, "Zurvan"))),
    ("Light", ((80, "Alpha"), (81, "Lich"), (82, "Odin"), (83, "Phoenix"), (84, "Raiden"), (85, "Shiva"))),
)


def default_worlds() -> list[GameWorld]:
    return [GameWorld(id=i, name=name, data_center=dc) for dc, worlds in _DATA_CENTERS for i, name in worlds]


def default_duty_zones() -> list[Zone]:
    """The zones of the duties (no aetheryte: only the Duty Finder takes a character there)."""
    return [Zone(territory=SKYDEEP_CENOTE, name="The Skydeep Cenote", map=MapInfo(size_factor=200))]
