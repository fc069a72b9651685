"""MyPlugin's look at the game's vendors for `myplugin_restock`: which vendor, which item at what
price, and whether the character stands close enough to buy (the game refuses otherwise)."""

from __future__ import annotations

import math
from typing import Final

from game import INTERACT_REACH, ItemInfo, PositionInfo, Vendor, Zone
from gates.plugin import McpToolError

__all__ = ["VENDOR", "check_near", "find_vendor", "sold_for_gil"]

VENDOR: Final = "Material Supplier"
"""The vendor myplugin_restock buys from by default (Tuliyollal, where the character starts)."""
GIL: Final = 1


def find_vendor(vendors: list[Vendor], wanted: str) -> Vendor:
    for vendor in vendors:
        if vendor.npc.lower() == wanted.strip().lower():
            return vendor
    names = ", ".join(v.npc for v in vendors) or "none"
    raise McpToolError(f"There is no vendor called {wanted!r}. The vendors are: {names}.")


def sold_for_gil(items: list[ItemInfo], vendor: Vendor, wanted: str) -> tuple[ItemInfo, int]:
    """The item the vendor sells for gil by that name, and its price there."""
    catalog = {i.item_id: i for i in items}
    sold = [(catalog[line.item_id], line.price) for line in vendor.items if line.item_id in catalog]
    for info, price in sold:
        if info.currency == GIL and info.name.lower() == wanted.strip().lower():
            return info, price
    names = ", ".join(info.name for info, _ in sold if info.currency == GIL)
    raise McpToolError(f"{vendor.npc} sells no {wanted!r} for gil. It sells: {names}.")


def check_near(here: PositionInfo, zones: list[Zone], vendor: Vendor) -> None:
    """Refused unless the character stands within reach of the vendor's NPC."""
    zone = next(z for z in zones if z.territory == vendor.territory)
    npc = next((o for o in zone.objects if o.name == vendor.npc), None)
    if (
        npc is None
        or here.territory != vendor.territory
        or math.dist((here.position.x, here.position.z), (npc.position.x, npc.position.z)) >= INTERACT_REACH
    ):
        raise McpToolError(
            f"{vendor.npc} is not nearby: walk up to them in {zone.name} first (navigate_to destination=npc), "
            "then call again."
        )
