"""The gates of retainers, used at a summoning bell.

    Game.GetRetainers     the retainers, what each holds and sells, and which one is called (read)
    Game.OpenRetainer     call a retainer: the character must stand within `INTERACT_REACH` of a
                          summoning bell; another retainer that was called is dismissed first
    Game.CloseRetainer    dismiss the retainer that was called
    Game.RetainerTransfer entrust items from the bags to the called retainer, or withdraw them
    Game.RetainerSell     put items from the bags up for sale on the market board through it

Calling and dismissing touch only the game's windows (`game_ui`). Entrusting and withdrawing
records `move_items`: items leaving the bags lower the snapshot's `item_total` (retainers are not
counted, as the real host's probe counts bags, armoury, crystals and saddlebags only), which is
the `items_removed` effect `move_items` covers. Selling records `trade_items` ("sells to vendors
or trades with players"), the capability the real host maps sell_item to.
"""

from __future__ import annotations

from typing import Final, Literal

from gates.contract import CapabilityId

from ._args import NoArgs, _Args
from ._documents import Change
from ._engine import MAX_HELD, GameEngine
from ._errors import Refusal
from ._goods import check_count
from ._market import INTERACT_REACH, nearest
from ._replies import ChangeReply, _Reply
from ._shop_documents import MarketListing, Retainer, RetainerItem

__all__ = [
    "MAX_LISTINGS",
    "OpenRetainerArgs",
    "RetainerSellArgs",
    "RetainerTransferArgs",
    "RetainersReply",
    "at_bell",
    "close_retainer",
    "open_retainer",
    "retainer_sell",
    "retainer_transfer",
    "retainers",
]

MAX_LISTINGS: Final = 20
"""Listings one retainer may have on the market board, as in the game."""
MAX_PRICE: Final = 999_999_999


class OpenRetainerArgs(_Args, kw_only=True):
    name: str


class RetainerTransferArgs(_Args, kw_only=True):
    item_id: int
    count: int = 1
    direction: Literal["entrust", "withdraw"] = "entrust"
    """entrust: from the bags to the called retainer; withdraw: back into the bags."""


class RetainerSellArgs(_Args, kw_only=True):
    item_id: int
    count: int = 1
    price: int
    """Gil per unit."""


class RetainersReply(_Reply, kw_only=True):
    """`Game.GetRetainers`: the account's retainers, the one called, and whether a bell is in reach."""

    retainers: list[Retainer]
    open: str | None
    """The retainer called at the bell, if any."""
    at_bell: bool
    """Whether the character stands at a summoning bell."""


def at_bell(engine: GameEngine) -> bool:
    return nearest(engine, "summoning_bell")[1] < INTERACT_REACH


def retainers(engine: GameEngine, _: NoArgs, __: str) -> RetainersReply:
    return RetainersReply(retainers=engine.world.retainers, open=engine.world.retainer_open, at_bell=at_bell(engine))


def _retainer(engine: GameEngine, name: str) -> Retainer:
    wanted = name.strip().casefold()
    for retainer in engine.world.retainers:
        if retainer.name.casefold() == wanted:
            return retainer
    known = ", ".join(repr(r.name) for r in engine.world.retainers) or "none"
    raise Refusal(f"the character has no retainer called {name!r}; its retainers are {known} (Game.GetRetainers)")


def _require_bell(engine: GameEngine, doing: str) -> None:
    engine.require_logged_in(doing)
    if not at_bell(engine):
        raise Refusal(
            f"the character is not at a summoning bell and cannot {doing}; walk up to one first "
            f"(within {INTERACT_REACH:g} yalms)"
        )


def _called(engine: GameEngine, doing: str) -> Retainer:
    _require_bell(engine, doing)
    if engine.world.retainer_open is None:
        raise Refusal(f"no retainer is called, so the character cannot {doing}; call one first (Game.OpenRetainer)")
    return _retainer(engine, engine.world.retainer_open)


def open_retainer(engine: GameEngine, args: OpenRetainerArgs, by: str) -> ChangeReply:
    _require_bell(engine, "call a retainer")
    retainer = _retainer(engine, args.name)
    if engine.world.retainer_open == retainer.name:
        return ChangeReply()
    changes = close_retainer(engine, NoArgs(), by).changes

    def call() -> None:
        engine.world.retainer_open = retainer.name

    changes.append(engine.record(by, CapabilityId.GAME_UI, "retainer", f"called {retainer.name} at the bell", call))
    return ChangeReply(changes=changes)


def close_retainer(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    name = engine.world.retainer_open
    if name is None:
        return ChangeReply()

    def dismiss() -> None:
        engine.world.retainer_open = None

    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "retainer", f"dismissed {name}", dismiss)])


def _held_by(retainer: Retainer, item_id: int) -> int:
    return next((i.count for i in retainer.items if i.item_id == item_id), 0)


def _give(retainer: Retainer, item_id: int, name: str, count: int) -> None:
    for held in retainer.items:
        if held.item_id == item_id:
            held.count += count
            if held.count <= 0:
                retainer.items.remove(held)
            return
    retainer.items.append(RetainerItem(item_id=item_id, name=name, count=count))


def retainer_transfer(engine: GameEngine, args: RetainerTransferArgs, by: str) -> ChangeReply:
    retainer = _called(engine, "move items to or from a retainer")
    check_count(args.count)
    name = engine.item_name(args.item_id)
    what = f"{args.count:,} × {name}"
    if args.direction == "entrust":
        held = engine.held(args.item_id)
        if held < args.count:
            raise Refusal(f"the bags hold {held:,} × {name} ({args.item_id}) and cannot entrust {args.count:,}")

        def entrust() -> None:
            engine.remove_items(args.item_id, args.count)
            _give(retainer, args.item_id, name, args.count)

        change = engine.record(by, CapabilityId.MOVE_ITEMS, "items", f"entrusted {what} to {retainer.name}", entrust)
        return ChangeReply(changes=[change])
    kept = _held_by(retainer, args.item_id)
    if kept < args.count:
        raise Refusal(f"{retainer.name} holds {kept:,} × {name} ({args.item_id}) and cannot hand over {args.count:,}")
    if engine.held(args.item_id) + args.count > MAX_HELD:
        raise Refusal(f"the bags hold at most {MAX_HELD:,} × {name}; withdraw fewer")

    def withdraw() -> None:
        _give(retainer, args.item_id, name, -args.count)
        engine.add_items(args.item_id, args.count)

    change = engine.record(by, CapabilityId.MOVE_ITEMS, "items", f"withdrew {what} from {retainer.name}", withdraw)
    return ChangeReply(changes=[change])


def retainer_sell(engine: GameEngine, args: RetainerSellArgs, by: str) -> ChangeReply:
    retainer = _called(engine, "sell on the market board")
    check_count(args.count)
    item = engine.item(args.item_id)
    if not 1 <= args.price <= MAX_PRICE:
        raise Refusal(f"`price` is {args.price:,}: give 1 to {MAX_PRICE:,} gil per unit")
    held = engine.held(item.item_id)
    if held < args.count:
        raise Refusal(f"the bags hold {held:,} × {item.name} ({item.item_id}) and cannot sell {args.count:,}")
    if len(retainer.market) >= MAX_LISTINGS:
        raise Refusal(f"{retainer.name} already has {MAX_LISTINGS} listings")
    listing = MarketListing(item_id=item.item_id, price=args.price, quantity=args.count, retainer=retainer.name)

    def list_it() -> None:
        engine.remove_items(item.item_id, args.count)
        retainer.market.append(listing)

    summary = f"put {args.count:,} × {item.name} up for sale at {args.price:,} gil each through {retainer.name}"
    changes: list[Change] = [engine.record(by, CapabilityId.TRADE_ITEMS, "items", summary, list_it)]
    return ChangeReply(changes=changes)
