"""The default world's vendors, market board and retainers: fixed, built in code (W1).

The Material Supplier stands in Tuliyollal, a short walk from where the character starts, and
sells potions for gil at the catalog's prices (the Ether is short of stock), and a materia for
tomestones. Two retainers wait at
the bell, one with a listing of its own; other players sell Hi-Potions and Ethers on the board.
"""

from __future__ import annotations

from typing import Final

from ._shop_documents import MarketListing, Retainer, RetainerItem, Vendor, VendorItem

__all__ = ["SUPPLIER", "default_market", "default_retainers", "default_vendors"]

SUPPLIER: Final = "Material Supplier"
"""The vendor near the character's start (Tuliyollal)."""


def default_vendors() -> list[Vendor]:
    return [
        Vendor(
            npc=SUPPLIER,
            territory=1185,
            items=[
                VendorItem(item_id=4551, price=60),
                VendorItem(item_id=4554, price=320),
                VendorItem(item_id=4555, price=280, stock=30),
                VendorItem(item_id=41763, price=150),  # Savage Aim Materia XII, for Allagan Tomestones of Poetics
            ],
        )
    ]


def default_market() -> list[MarketListing]:
    return [
        MarketListing(item_id=4554, price=290, quantity=10, retainer="Bortho"),
        MarketListing(item_id=4554, price=305, quantity=99, retainer="Tyrlend"),
        MarketListing(item_id=4555, price=260, quantity=5, retainer="Bortho"),
    ]


def default_retainers() -> list[Retainer]:
    gemdraught = MarketListing(item_id=44162, price=2_450, quantity=2, retainer="Ququru")
    return [
        Retainer(
            name="Ququru",
            job="Botanist",
            gil=12_500,
            items=[RetainerItem(item_id=2, name="Fire Shard", count=500)],
            market=[gemdraught],
        ),
        Retainer(name="Mirah", job="Fisher", level=90, gil=3_100),
    ]
