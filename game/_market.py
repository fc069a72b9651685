"""The gates of vendors and the market board: reading them, and buying from a vendor where it stands.

    Game.GetVendors    every vendor with its shop (`Vendor`): read, nothing recorded
    Game.GetMarket     the market board's listings, of one item or all (read)
    Game.VendorBuy     buy from a vendor: the character must stand within `INTERACT_REACH` of the
                       vendor's NPC (as the real host talks to the NPC, "… is not nearby" otherwise);
                       the vendor's price in the item's currency, its stock going down

A purchase records what `Game.Buy` records (`_goods`): the payment (`spend_gil`, or
`spend_currency` for another currency), then the items received (`move_items`, a gain the host
never holds against anyone, W3). Everything is checked first, so a refused purchase changes nothing.
"""

from __future__ import annotations

from typing import Final

from gates.contract import CapabilityId

from ._args import _Args
from ._documents import WorldObject
from ._engine import MAX_HELD, GameEngine
from ._errors import Refusal
from ._goods import _payment, check_count
from ._maps import ground_distance
from ._replies import ChangeReply, _Reply
from ._shop_documents import MarketListing, Vendor, VendorItem

__all__ = [
    "INTERACT_REACH",
    "MarketArgs",
    "MarketReply",
    "VendorBuyArgs",
    "VendorsReply",
    "find_vendor",
    "market",
    "nearest",
    "vendor_buy",
    "vendors",
]

INTERACT_REACH: Final = 4.0
"""Yalms within which the character can talk to an NPC or use a summoning bell (the real host's `< 4`)."""


class MarketArgs(_Args, kw_only=True):
    item_id: int | None = None
    """Only this item's listings (None: every listing)."""


class VendorBuyArgs(_Args, kw_only=True):
    vendor: str
    """The vendor NPC's name (any case)."""
    item_id: int
    count: int = 1


class VendorsReply(_Reply, kw_only=True):
    """`Game.GetVendors`: the vendors of the world, with what each sells."""

    vendors: list[Vendor]


class MarketReply(_Reply, kw_only=True):
    """`Game.GetMarket`: the market board's listings, of one item or all."""

    listings: list[MarketListing]
    """Cheapest first."""


def vendors(engine: GameEngine, _: object, __: str) -> VendorsReply:
    return VendorsReply(vendors=engine.world.vendors)


def market(engine: GameEngine, args: MarketArgs, _: str) -> MarketReply:
    found = [m for m in engine.world.market if args.item_id is None or m.item_id == args.item_id]
    return MarketReply(listings=sorted(found, key=lambda m: (m.price, m.retainer)))


def find_vendor(engine: GameEngine, name: str) -> Vendor:
    wanted = name.strip().casefold()
    for vendor in engine.world.vendors:
        if vendor.npc.casefold() == wanted:
            return vendor
    known = ", ".join(repr(v.npc) for v in engine.world.vendors) or "none"
    raise Refusal(f"no vendor is called {name!r}; this world's vendors are {known} (Game.GetVendors)")


def nearest(engine: GameEngine, kind: str, name: str | None = None) -> tuple[WorldObject | None, float]:
    """The nearest object of `kind` (and `name`, any case) in the character's zone, and its distance."""
    here = engine.position_now()
    best: tuple[WorldObject | None, float] = (None, float("inf"))
    for thing in engine.current_zone.objects:
        if thing.kind != kind or (name is not None and thing.name.casefold() != name.casefold()):
            continue
        distance = ground_distance(here.x, here.z, thing.position.x, thing.position.z)
        if distance < best[1]:
            best = (thing, distance)
    return best


def _shop_line(vendor: Vendor, item_id: int, engine: GameEngine) -> VendorItem:
    line = next((i for i in vendor.items if i.item_id == item_id), None)
    if line is None:
        sold = ", ".join(f"{engine.item_name(i.item_id)} ({i.item_id})" for i in vendor.items) or "nothing"
        raise Refusal(f"{vendor.npc} does not sell item {item_id}; {vendor.npc} sells {sold}")
    return line


def vendor_buy(engine: GameEngine, args: VendorBuyArgs, by: str) -> ChangeReply:
    """Buy `count` of an item from the vendor the character stands at."""
    engine.require_logged_in("buy")
    check_count(args.count)
    vendor = find_vendor(engine, args.vendor)
    npc, distance = nearest(engine, "npc", vendor.npc)
    if vendor.territory != engine.world.player.territory or npc is None or distance >= INTERACT_REACH:
        zone = engine.zone(vendor.territory).name
        raise Refusal(f"{vendor.npc} is not nearby: walk up to them in {zone} first (within {INTERACT_REACH:g} yalms)")
    line = _shop_line(vendor, args.item_id, engine)
    item = engine.item(args.item_id)
    if line.stock is not None and line.stock < args.count:
        raise Refusal(f"{vendor.npc} has {line.stock:,} × {item.name} left; buy at most that many")
    if engine.held(item.item_id) + args.count > MAX_HELD:
        raise Refusal(f"the bags hold at most {MAX_HELD:,} × {item.name}; buy fewer")
    what = f"{args.count:,} × {item.name}"
    pay = _payment(engine, item, line.price * args.count, what, by)  # the vendor's price, the item's currency

    def receive() -> None:
        engine.add_items(item.item_id, args.count)
        if line.stock is not None:
            line.stock -= args.count

    paid = pay()
    got = engine.record(by, CapabilityId.MOVE_ITEMS, "items", f"received {what} from {vendor.npc}", receive)
    return ChangeReply(changes=[paid, got])
