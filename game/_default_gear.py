"""The default world's gear that is not worn: catalog items and what makes them gear (W1).

None of it is in the bags at the start (a test or `xivmcp game set inventory.44031 1` puts it
there). The names and ids are the simulator's own, as the worn gear's in `_default_people`: a
ring a tank can wear, a bracelet for healers, and a cap anyone can.
"""

from __future__ import annotations

from ._documents import ItemInfo
from ._gear_documents import RING, GearInfo

__all__ = ["default_gear", "default_gear_items"]

_TANKS = ["GLA", "PLD", "MRD", "WAR", "DRK", "GNB"]
_HEALERS = ["CNJ", "WHM", "SCH", "AST", "SGE"]


def default_gear_items() -> list[ItemInfo]:
    return [
        ItemInfo(item_id=44_031, name="Ceremonial Ring of Fending", sell_price=120),
        ItemInfo(item_id=44_032, name="Ceremonial Bracelet of Healing", sell_price=120),
        ItemInfo(item_id=44_033, name="Weathered Hempen Cap", price=80, sell_price=1),
    ]


def default_gear() -> list[GearInfo]:
    return [
        GearInfo(item_id=44_031, slot=RING, item_level=710, equip_level=100, jobs=list(_TANKS)),
        GearInfo(item_id=44_032, slot="Wrists", item_level=710, equip_level=100, jobs=list(_HEALERS)),
        GearInfo(item_id=44_033, slot="Head", item_level=1, equip_level=1),
    ]
