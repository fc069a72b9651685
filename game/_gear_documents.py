"""What makes a catalog item gear: the slot it goes in, its levels and who may wear it (msgspec Structs).

A world file's `gear` lists them by item id; the item's name and prices stay in `items`. An item
with no entry here is not gear: equipping it is refused.
"""

from __future__ import annotations

from typing import Final

import msgspec

__all__ = ["RING", "GearInfo"]

RING: Final = "Ring"
"""A gear slot that is either ring slot (the free one first)."""


class GearInfo(msgspec.Struct, rename="camel", kw_only=True):
    """A catalog item that is gear: the slot it is worn in, its levels, and who can wear it."""

    item_id: int
    slot: str
    """One of the equipped slots (`EQUIP_SLOTS`: "Head", "Body", …), or "Ring" for either ring slot."""
    item_level: int = 0
    equip_level: int = 1
    jobs: list[str] = []
    """The classes and jobs that can wear it, as abbreviations ("WAR"); none: every one."""
