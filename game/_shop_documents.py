"""The world's vendors, market board and retainers, as msgspec Structs with the wire's camelCase names.

They are part of the `World` (a world file holds them; a world written before they existed loads
with none): a vendor stands at an NPC of a zone and sells from its own stock list; the market board
holds other players' listings (which the character can read, never buy here); a retainer keeps
items of its own, and the one the character called at a summoning bell is `World.retainer_open`.
"""

from __future__ import annotations

import msgspec

__all__ = ["MarketListing", "Retainer", "RetainerItem", "Vendor", "VendorItem"]


class _Doc(msgspec.Struct, rename="camel", kw_only=True):
    """Base of these documents: snake_case in Python, camelCase on the wire (as `_documents`)."""


class VendorItem(_Doc):
    """One line of a vendor's shop: the price per unit in the item's currency, and the stock left."""

    item_id: int
    price: int
    stock: int | None = None
    """How many are left to buy (None: the vendor never runs out)."""


class Vendor(_Doc):
    """A vendor: the NPC of that name in the zone `territory` sells `items`."""

    npc: str
    territory: int
    items: list[VendorItem] = []


class MarketListing(_Doc):
    """One listing on the market board: `quantity` of an item at `price` gil each, sold by a retainer."""

    item_id: int
    price: int
    quantity: int
    retainer: str
    """The selling retainer's name (the character's own retainers' listings are theirs, `Retainer.market`)."""
    hq: bool = False


class RetainerItem(_Doc):
    """Items a retainer holds for the character: one item and its count."""

    item_id: int
    name: str
    count: int


class Retainer(_Doc):
    """One of the character's retainers: what it holds and what it sells on the market board."""

    name: str
    job: str = "Botanist"
    level: int = 100
    gil: int = 0
    items: list[RetainerItem] = []
    market: list[MarketListing] = []
