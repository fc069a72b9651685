"""What a world file's vendors, market board and retainers must hold for the game to run them (W1).

`check_shops` names the field that is wrong, as `check_world` does for the rest of the world.
"""

from __future__ import annotations

from ._documents import World

__all__ = ["check_shops"]


def check_shops(world: World) -> str | None:
    """Why the world's vendors, market or retainers cannot be used, naming the field, or None."""
    zones = {zone.territory for zone in world.zones}
    for index, vendor in enumerate(world.vendors):
        where = f"$.vendors[{index}]"
        if vendor.territory not in zones:
            known = sorted(zones)
            return f"`{where}.territory` is {vendor.territory}, a zone this world does not have: use one of {known}"
        for line_index, line in enumerate(vendor.items):
            if line.price <= 0:
                return f"`{where}.items[{line_index}].price` is {line.price}: a vendor's price is at least 1"
            if line.stock is not None and line.stock < 0:
                return f"`{where}.items[{line_index}].stock` is {line.stock}: give 0 or more, or null for no limit"
    listings = [(f"$.market[{i}]", m) for i, m in enumerate(world.market)] + [
        (f"$.retainers[{r}].market[{i}]", m)
        for r, retainer in enumerate(world.retainers)
        for i, m in enumerate(retainer.market)
    ]
    for where, listing in listings:
        if listing.price <= 0 or listing.quantity <= 0:
            return (
                f"`{where}` sells {listing.quantity} at {listing.price} gil: a listing sells 1 or more at 1 gil or more"
            )
    names = [retainer.name.casefold() for retainer in world.retainers]
    if len(set(names)) != len(names):
        return "`$.retainers` names a retainer twice: each needs a name of its own"
    for r, retainer in enumerate(world.retainers):
        for i, held in enumerate(retainer.items):
            if held.count < 0:
                return f"`$.retainers[{r}].items[{i}].count` is {held.count}: a count cannot be negative"
    if world.retainer_open is not None and world.retainer_open.casefold() not in names:
        return (
            f"`$.retainerOpen` is {world.retainer_open!r}, not one of the world's retainers: use one of them, or null"
        )
    return None
