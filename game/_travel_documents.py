"""The documents of the game's worlds and duties: which worlds there are, on which data centres, and
the duty the character is in (W1).

    GameWorld    a public world the character can visit, and its data centre
    DutyState    the duty the character is bound by, and where it came from (where leaving returns it)

A character's home world is `PlayerInfo.world`; while it visits another world, `PlayerInfo.current_world`
names that one (None: at home). The snapshot's `world` is the world it is on now, as the real host's
probe reads `CurrentWorld`, so a world visit is a change of world (`moved`).
"""

from __future__ import annotations

from ._sheet import _Doc

__all__ = ["DutyState", "GameWorld"]


class GameWorld(_Doc):
    """A public world (Ravana, …) and the data centre it belongs to: where a character may travel."""

    id: int
    name: str
    data_center: str


class DutyState(_Doc):
    """The duty the character is in: its name and zone, and the zone and spot it entered from."""

    name: str
    territory: int
    """The duty's zone (one of the world's zones)."""
    from_territory: int
    from_x: float = 0.0
    """The spot it entered from, in world yalms (x, y, z)."""
    from_y: float = 0.0
    from_z: float = 0.0
