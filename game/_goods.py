"""The gates that move items and money: buying, selling, discarding, trading.

Each checks everything first (the item, the count, what the character holds and can pay), then
records its changes: paying or being paid is a `gil` (or `currency`) change, items coming or
going an `items` change, each with the capability it needs. Gains are recorded too, as changes
the host never holds against anyone (W3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from gates.contract import CapabilityId

from ._args import ItemArgs, TradeArgs
from ._documents import Change, ItemInfo
from ._engine import GIL_CAP, MAX_HELD, GameEngine
from ._errors import Refusal
from ._replies import ChangeReply

__all__ = ["GIL", "MAX_COUNT", "MAX_TRADE_GIL", "MAX_TRADE_ITEMS", "buy", "check_count", "discard", "sell", "trade"]

MAX_COUNT: Final = 9_999
"""The most of one item one call moves."""
MAX_TRADE_ITEMS: Final = 5
"""Item slots of the game's trade window."""
MAX_TRADE_GIL: Final = 1_000_000
"""The most gil one trade carries, as in the game."""
GIL: Final = 1
"""The currency id of gil in the catalog's `currency`."""
MAX_NAME: Final = 32


def check_count(count: int, argument: str = "count") -> None:
    if not 1 <= count <= MAX_COUNT:
        raise Refusal(f"`{argument}` is {count}: give 1 to {MAX_COUNT:,}")


def _check_holds(engine: GameEngine, item_id: int, count: int, doing: str) -> None:
    held = engine.held(item_id)
    if held < count:
        name = engine.item_name(item_id)
        raise Refusal(
            f"the character holds {held:,} × {name} ({item_id}) and cannot {doing} {count:,}; "
            "Game.GetInventory lists what it holds"
        )


def _payment(engine: GameEngine, item: ItemInfo, cost: int, what: str, by: str) -> Callable[[], Change]:
    """Check that the character can pay `cost` in the item's currency; the change that pays it."""
    player = engine.world.player
    if item.currency == GIL:
        if cost > player.gil:
            raise Refusal(f"{what} costs {cost:,} gil and the character has {player.gil:,}; buy fewer, or get more gil")

        def pay_gil() -> None:
            player.gil -= cost

        return lambda: engine.record(by, CapabilityId.SPEND_GIL, "gil", f"paid {cost:,} gil for {what}", pay_gil)
    currency = engine.currency(item.currency)
    have = 0 if currency is None else currency.count
    name = f"currency {item.currency}" if currency is None else currency.name
    if currency is None or cost > have:
        raise Refusal(f"{what} costs {cost:,} {name} and the character has {have:,}; buy fewer, or get more {name}")
    paid = currency

    def pay_currency() -> None:
        paid.count -= cost

    summary = f"paid {cost:,} {name} for {what}"
    return lambda: engine.record(by, CapabilityId.SPEND_CURRENCY, "currency", summary, pay_currency)


def buy(engine: GameEngine, args: ItemArgs, by: str) -> ChangeReply:
    """Buy `count` of an item from a vendor, paying its price in gil or in its currency."""
    engine.require_logged_in("buy")
    check_count(args.count)
    item = engine.item(args.item_id)
    if item.price <= 0:
        raise Refusal(f"{item.name} ({item.item_id}) is not sold by vendors; Game.GetItems shows each item's price")
    if engine.held(item.item_id) + args.count > MAX_HELD:
        raise Refusal(f"the bags hold at most {MAX_HELD:,} × {item.name}; buy fewer")
    what = f"{args.count:,} × {item.name}"
    pay = _payment(engine, item, item.price * args.count, what, by)

    def receive() -> None:
        engine.add_items(item.item_id, args.count)

    paid = pay()
    got = engine.record(by, CapabilityId.MOVE_ITEMS, "items", f"received {what} from a vendor", receive)
    return ChangeReply(changes=[paid, got])


def sell(engine: GameEngine, args: ItemArgs, by: str) -> ChangeReply:
    """Sell `count` of an item to a vendor for its sell price in gil."""
    engine.require_logged_in("sell")
    check_count(args.count)
    item = engine.item(args.item_id)
    _check_holds(engine, item.item_id, args.count, "sell")
    if item.sell_price <= 0:
        raise Refusal(f"vendors do not buy {item.name} ({item.item_id}); discard it instead (Game.Discard)")
    player = engine.world.player
    earned = item.sell_price * args.count
    if player.gil + earned > GIL_CAP:
        raise Refusal(f"selling would take the character past {GIL_CAP:,} gil, the most it can hold; sell fewer")
    what = f"{args.count:,} × {item.name}"

    def hand_over() -> None:
        engine.remove_items(item.item_id, args.count)

    def get_paid() -> None:
        player.gil += earned

    # Selling to a vendor is what `trade_items` covers ("sells to vendors or trades with players").
    sold = engine.record(by, CapabilityId.TRADE_ITEMS, "items", f"sold {what} to a vendor", hand_over)
    paid = engine.record(by, CapabilityId.SPEND_GIL, "gil", f"was paid {earned:,} gil for {what}", get_paid)
    return ChangeReply(changes=[sold, paid])


def discard(engine: GameEngine, args: ItemArgs, by: str) -> ChangeReply:
    """Throw `count` of an item away."""
    engine.require_logged_in("discard items")
    check_count(args.count)
    _check_holds(engine, args.item_id, args.count, "discard")
    what = f"{args.count:,} × {engine.item_name(args.item_id)}"

    def throw_away() -> None:
        engine.remove_items(args.item_id, args.count)

    return ChangeReply(
        changes=[engine.record(by, CapabilityId.DISCARD_ITEMS, "items", f"discarded {what}", throw_away)]
    )


def trade(engine: GameEngine, args: TradeArgs, by: str) -> ChangeReply:
    """Hand items and gil to another player through the trade window."""
    engine.require_logged_in("trade")
    player = engine.world.player
    to = args.to.strip()
    if not to or len(to) > MAX_NAME:
        raise Refusal(f"`to` must name the player to trade with (1 to {MAX_NAME} characters), got {args.to!r}")
    if to.casefold() == player.name.casefold():
        raise Refusal(f"{player.name} cannot trade with themselves; `to` names another player")
    if len(args.items) > MAX_TRADE_ITEMS:
        raise Refusal(f"the trade window holds {MAX_TRADE_ITEMS} items and `items` lists {len(args.items)}")
    if not 0 <= args.gil <= MAX_TRADE_GIL:
        raise Refusal(f"`gil` is {args.gil:,}: one trade carries 0 to {MAX_TRADE_GIL:,} gil")
    if not args.items and args.gil == 0:
        raise Refusal('there is nothing to trade: give `items` (such as [{"itemId": 4554, "count": 1}]) or `gil`')
    counts: dict[int, int] = {}
    for index, entry in enumerate(args.items):
        check_count(entry.count, f"items[{index}].count")
        counts[entry.item_id] = counts.get(entry.item_id, 0) + entry.count
    for item_id, count in counts.items():
        _check_holds(engine, item_id, count, "trade")
    if args.gil > player.gil:
        raise Refusal(f"the character has {player.gil:,} gil and cannot trade {args.gil:,}; trade less gil")

    def hand_over() -> None:
        for item_id, count in counts.items():
            engine.remove_items(item_id, count)

    def pay() -> None:
        player.gil -= args.gil

    changes: list[Change] = []
    if counts:
        what = ", ".join(f"{count:,} × {engine.item_name(item_id)}" for item_id, count in counts.items())
        changes.append(engine.record(by, CapabilityId.TRADE_ITEMS, "items", f"traded {what} to {to}", hand_over))
    if args.gil:
        changes.append(engine.record(by, CapabilityId.SPEND_GIL, "gil", f"traded {args.gil:,} gil to {to}", pay))
    return ChangeReply(changes=changes)
