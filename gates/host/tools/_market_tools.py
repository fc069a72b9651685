"""XIV MCP's market tools over the simulated game: get_market_listings, buy_item, sell_item.

    buy_item   the item and quantity checked ─► a vendor that sells it (the one named, else the
               current zone's first) ─► gil checked ─► the vendor must be nearby (here XIV MCP does
               not walk: navigate_to destination=npc first) ─► `Game.VendorBuy`, the game's one
               purchase path, which records spend_gil and the items received
    sell_item  at a summoning bell ─► AutoRetainer held back (`Bell`) ─► the retainer called ─► the
               price given, or 1 gil under the cheapest listing of anyone but the character's own
               retainers ─► `Game.RetainerSell` ─► the retainer dismissed

Refusals are the real host's words (`ShopTools.cs`, `MarketTools.cs`) where it has them, and
come before anything changes.
"""

from __future__ import annotations

from typing import Any, Final

import anyio

from game import INTERACT_REACH, ItemInfo, MarketListing, Vendor, ground_distance, to_map
from gates.contract import RefusedError, quote

from ._args import ToolArgs, ToolHandler
from ._bell import NOT_AT_BELL, Bell
from ._game_definitions import text_arg
from ._game_tools import GameAccess
from ._spending import Spending, StandingApproval, resolve_item

__all__ = ["MAX_QUANTITY", "MarketTools"]

MAX_QUANTITY: Final = 9999
NO_STANDING_APPROVALS: Final = (
    "Standing approvals (request_spending_approval) are not simulated here; buy from a gil vendor without 'approval'."
)
GIL: Final = 1


def _location(vendor: Vendor, zones: dict[int, Any], where: tuple[float, float] | None) -> str:
    zone = zones.get(vendor.territory)
    if zone is None:
        return "location unknown"
    return zone.name if where is None else f"{zone.name} ({where[0]:.1f}, {where[1]:.1f})"


class MarketTools:
    """The handlers of get_market_listings, buy_item and sell_item."""

    def __init__(self, game: GameAccess, bell: Bell, spending: Spending) -> None:
        self._game = game
        self._bell = bell
        self._spending = spending
        self._buying = anyio.Lock()

    def handlers(self) -> dict[str, ToolHandler]:
        return {"get_market_listings": self._listings, "buy_item": self._buy, "sell_item": self._sell}

    # --- buy_item ------------------------------------------------------------------------

    async def _buy(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        quantity = args.integer("quantity", 0, 0, MAX_QUANTITY)
        if quantity <= 0:
            raise RefusedError("'quantity' must be at least 1.")
        if self._buying.locked():
            raise RefusedError("Another purchase is running.")
        async with self._buying:
            return await self._purchase(args, quantity)

    async def _purchase(self, args: ToolArgs, quantity: int) -> dict[str, Any]:
        client = self._game.client
        here = await self._game.player()
        item = resolve_item(await self._game.call(client.items()), text_arg(args, "item"))
        vendor = await self._offer(item, text_arg(args, "npc"), here.player.territory)
        line = next(i for i in vendor.items if i.item_id == item.item_id)
        gil = here.player.gil
        if item.currency == GIL and line.price * quantity > gil:
            raise RefusedError(f"Not enough gil: about {line.price * quantity:,} needed, {gil:,} owned.")
        zones = {z.territory: z for z in await self._game.zones()}
        npc = next((o for o in zones[vendor.territory].objects if o.name == vendor.npc), None)
        at = None if npc is None else to_map(zones[vendor.territory].map, npc.position.x, npc.position.z)
        near = (
            npc is not None
            and here.player.territory == vendor.territory
            and ground_distance(here.player.position.x, here.player.position.z, npc.position.x, npc.position.z)
            < INTERACT_REACH
        )
        if not near:
            raise RefusedError(
                f"{vendor.npc} is not nearby; go there first ({_location(vendor, zones, at)}), for example "
                "with navigate_to destination=npc."
            )
        steps: list[str] = []
        paid_in_gil = item.currency == GIL
        approval: StandingApproval | None = None
        if not paid_in_gil:  # anything but gil is the player's decision (or a standing approval's)
            approval = await self._approval(args, item, steps)
            if approval is None:
                place = _location(vendor, zones, at)
                details = [
                    f"Buy {quantity}x {item.name} from {vendor.npc} ({place})",
                    "This shop is not paid with gil: the price is shown in the shop window that is open now.",
                ]
                steps.append("Waiting for approval in game.")
                title = f"Buy {item.name} with a non-gil currency?"
                await self._spending.consent("buy_item", title, details, "spend_currency")
                steps.append("Approved in game.")
        before = await self._held(item.item_id)
        steps.extend([f"Talking to {vendor.npc}.", "Shop open (Shop)."])
        batch = quantity
        if approval is not None:
            batch = min(quantity, approval.remaining // max(1, line.price))
            if batch <= 0:
                steps.append(
                    f"Approval {approval.id} has {approval.remaining:,} {approval.currency} left, not enough for "
                    "another one."
                )
        if batch > 0:
            steps.append(f"Buying {batch}.")
            await self._game.call(client.vendor_buy(vendor.npc, item.item_id, batch))
            if approval is not None:
                self._spending.spend(approval, line.price * batch)
                steps.append(f"Paid {line.price * batch:,} {approval.currency} ({approval.remaining:,} approved left).")
        after = await self._game.call(client.player())
        now = await self._held(item.item_id)
        return {
            "bought": now - before,
            "requested": quantity,
            "item": item.name,
            "from": vendor.npc,
            "paidWith": "gil" if paid_in_gil else "non-gil currency (approved in game)",
            "gilSpent": gil - after.player.gil if paid_in_gil else None,
            "nowInBags": now,
            "steps": steps,
        }

    async def _approval(self, args: ToolArgs, item: ItemInfo, steps: list[str]) -> StandingApproval | None:
        """The standing approval buy_item was given for a non-gil purchase, checked (None: none given)."""
        wanted = text_arg(args, "approval")
        if wanted is None:
            return None
        approval = self._spending.get(wanted, item.item_id, item.name)
        if approval.currency_id != item.currency:
            raise RefusedError(
                f"That purchase was not paid with {approval.currency}, so approval {approval.id} doesn't cover it; "
                "stopped."
            )
        steps.append(f"Using standing approval {approval.id} ({approval.remaining:,} {approval.currency} left).")
        return approval

    async def _offer(self, item: ItemInfo, npc: str | None, territory: int) -> Vendor:
        """The vendors that sell `item`, the current zone's first (the real `PickOffer`)."""
        vendors = await self._game.call(self._game.client.vendors())
        offers = sorted(
            (v for v in vendors if any(i.item_id == item.item_id for i in v.items)),
            key=lambda v: 0 if v.territory == territory else 1,
        )
        if not offers:
            raise RefusedError("No NPC vendor sells this item.")
        if npc is not None:
            offers = [v for v in offers if v.npc.casefold() == npc.casefold() or npc.casefold() in v.npc.casefold()]
            if not offers:
                raise RefusedError(f"'{npc}' doesn't sell this item. Use find_vendors.")
        return offers[0]

    async def _held(self, item_id: int) -> int:
        inventory = await self._game.call(self._game.client.inventory())
        return next((i.count for i in inventory.items if i.item_id == item_id), 0)

    # --- sell_item -----------------------------------------------------------------------

    async def _sell(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = text_arg(args, "retainer")
        if name is None:
            raise RefusedError("'retainer' is required.")
        client = self._game.client
        await self._game.player()
        status = await self._game.call(client.retainers())
        if not status.at_bell:
            raise RefusedError(NOT_AT_BELL)
        item = resolve_item(await self._game.call(client.items()), text_arg(args, "item"))
        retainer = next((r for r in status.retainers if r.name.casefold() == name.casefold()), None)
        if retainer is None:
            known = ", ".join(r.name for r in status.retainers) or "none"
            raise RefusedError(f"No retainer called {quote(name)}. Your retainers: {known}.")
        if len(retainer.market) >= 20:
            raise RefusedError(f"{retainer.name} already has 20 listings.")
        held = await self._held(item.item_id)
        if held == 0:
            raise RefusedError(f"No {item.name} in your bags or {retainer.name}'s inventory.")
        quantity = min(max(args.integer("quantity", held, 1, MAX_QUANTITY), 1), held)
        own = {r.name for r in status.retainers}
        board = [m for m in await self._game.call(client.market(item.item_id)) if m.retainer not in own]
        lowest = min(board, key=lambda m: m.price, default=None)
        if args.values.get("price") is not None:
            price = args.integer("price", 0, 1, 999_999_999)
        elif lowest is not None:
            price = max(1, lowest.price - 1)
        else:
            raise RefusedError(f"No one else sells {item.name} on the market board to undercut; pass 'price'.")
        await self._bell.acquire()
        steps: list[str] = []
        try:
            await self._game.call(client.open_retainer(retainer.name))
            steps.append(f"Opened {retainer.name}.")
            steps.append(f"Selling {quantity}x {item.name} from your bags.")
            await self._game.call(client.retainer_sell(item.item_id, quantity, price))
            steps.append(f"Listed at {price:,} gil each.")
        finally:
            with anyio.CancelScope(shield=True):
                await self._game.call(client.close_retainer())
                await self._bell.release("the sale is over")
        outcome = {"listed": True, "pricePerUnit": price, "undercut": None if lowest is None else lowest.price}
        return {"retainer": retainer.name, "item": item.name, "quantity": quantity, "outcome": outcome, "steps": steps}

    # --- get_market_listings -------------------------------------------------------------

    async def _listings(self, args: ToolArgs, _: Any) -> list[dict[str, Any]]:
        wanted = text_arg(args, "retainer")
        compare = args.boolean("compare", False)
        client = self._game.client
        await self._game.player()
        status = await self._game.call(client.retainers())
        names = {i.item_id: i.name for i in await self._game.call(client.items())}
        own = {r.name for r in status.retainers}
        board = [m for m in await self._game.call(client.market()) if m.retainer not in own]
        result: list[dict[str, Any]] = []
        for retainer in status.retainers:
            if wanted is not None and wanted.casefold() not in retainer.name.casefold():
                continue
            if not retainer.market:
                continue
            listings = [self._listing(m, names, board if compare else None) for m in retainer.market]
            result.append({"retainer": retainer.name, "listings": listings, "listingCount": len(retainer.market)})
        return result

    @staticmethod
    def _listing(m: MarketListing, names: dict[int, str], board: list[MarketListing] | None) -> dict[str, Any]:
        lowest = None
        if board is not None:
            lowest = min((b for b in board if b.item_id == m.item_id), key=lambda b: b.price, default=None)
        entry: dict[str, Any] = {
            "item": names.get(m.item_id, f"item {m.item_id}"),
            "quantity": m.quantity,
            "pricePerUnit": m.price,
        }
        if lowest is not None:
            entry["lowestCompetitor"] = {"price": lowest.price, "retainer": lowest.retainer}
            entry["undercut"] = lowest.price < m.price
        return entry
