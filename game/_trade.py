"""The gates of the trade window: trading items and gil with another player standing near.

    Game.GetTrade       the trade window, if one is open (read)
    Game.TradeRequest   ask a player within `TRADE_RANGE` yalms to trade: they answer as the world
                        file says (`OtherPlayer.trades`); one who accepts opens the window, puts
                        their `offers` into their side and presses Trade
    Game.TradeOffer     put stacks and gil into the character's side (replacing what it held)
    Game.TradeConfirm   press Trade and confirm: both sides change hands, the window closes
    Game.TradeCancel    close the window; nothing changes hands

Opening, filling and closing the window touch only the game's windows (`game_ui`): nothing leaves
the bags until the trade is confirmed. Then the items given are recorded as `trade_items` (they
lower the snapshot's `item_total`, the `items_removed` effect `trade_items` covers) and the gil
given as `spend_gil` (gil down is `spent_gil`, which only `spend_gil` covers, as the real host's
analyzer judges a trade that gives gil); what the other player gave is a gain, recorded as
`trade_items`, that the host never holds against anyone (W3).
"""

from __future__ import annotations

from typing import Final

from gates.contract import CapabilityId

from ._args import NoArgs, _Args
from ._documents import Change, OtherPlayer, World
from ._engine import GIL_CAP, MAX_HELD, GameEngine
from ._errors import Refusal
from ._goods import check_count
from ._maps import ground_distance
from ._replies import ChangeReply, _Reply
from ._trade_documents import MAX_TRADE_GIL, MAX_TRADE_STACKS, TradeGoods, TradeStack, TradeWindow

__all__ = [
    "TRADE_RANGE",
    "TradeOfferArgs",
    "TradeReply",
    "TradeRequestArgs",
    "TradeRequestReply",
    "check_trades",
    "describe_goods",
    "get_trade",
    "trade_cancel",
    "trade_confirm",
    "trade_offer",
    "trade_request",
]

TRADE_RANGE: Final = 4.0
"""Yalms within which the character can trade with another player (the real host's `TradeRange`)."""


class TradeRequestArgs(_Args, kw_only=True):
    player: str
    """The other player's name (any case)."""


class TradeOfferArgs(_Args, kw_only=True):
    items: list[TradeStack] = []
    gil: int = 0


class TradeReply(_Reply, kw_only=True):
    """`Game.GetTrade`: the trade window, while a trade is open."""

    trade: TradeWindow | None
    """The open trade window (None: no trade is open)."""


class TradeRequestReply(ChangeReply, kw_only=True):
    """`Game.TradeRequest`: whether the other player accepted, which opens the trade window."""

    accepted: bool
    """Whether the other player accepted: the window is open."""


def describe_goods(engine: GameEngine, goods: TradeGoods) -> str:
    """'3 Hi-Potion, 1 Ether and 1,000 gil', or 'nothing' (the real host's `TradeOffer.Describe`)."""
    parts = [f"{count} {engine.item_name(item_id)}" for item_id, count in goods.totals().items()]
    if goods.gil > 0:
        parts.append(f"{goods.gil:,} gil")
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def get_trade(engine: GameEngine, _: NoArgs, __: str) -> TradeReply:
    return TradeReply(trade=engine.world.trade)


def _partner(engine: GameEngine, name: str) -> OtherPlayer:
    wanted = name.strip().casefold()
    here = engine.world.player.territory
    for other in engine.world.other_players:
        if other.territory == here and other.name.casefold() == wanted:
            return other
    near = ", ".join(repr(o.name) for o in engine.world.other_players if o.territory == here) or "nobody"
    raise Refusal(f"no player called {name!r} is in this zone; standing here: {near}")


def _open(engine: GameEngine, doing: str) -> TradeWindow:
    engine.require_logged_in(doing)
    trade = engine.world.trade
    if trade is None:
        raise Refusal(f"no trade is open, so the character cannot {doing}; ask a player first (Game.TradeRequest)")
    return trade


def trade_request(engine: GameEngine, args: TradeRequestArgs, by: str) -> TradeRequestReply:
    """Ask a player standing near to trade; they accept (the window opens) or decline (nothing changes)."""
    engine.require_logged_in("trade")
    if engine.world.trade is not None:
        raise Refusal(
            f"a trade with {engine.world.trade.partner} is open; finish or cancel it first (Game.TradeCancel)"
        )
    other = _partner(engine, args.player)
    here = engine.position_now()
    distance = ground_distance(here.x, here.z, other.position.x, other.position.z)
    if distance > TRADE_RANGE:
        raise Refusal(f"{other.name} is {distance:.1f} yalms away; walk within {TRADE_RANGE:g} yalms of them first")
    if other.trades == "decline":
        return TradeRequestReply(accepted=False)
    offers = TradeGoods(
        items=[TradeStack(item_id=s.item_id, count=s.count) for s in other.offers.items], gil=other.offers.gil
    )
    window = TradeWindow(partner=other.name, receive=offers, they_pressed_trade=True)

    def open_window() -> None:
        engine.world.trade = window

    summary = f"opened a trade with {other.name}, who offers {describe_goods(engine, offers)}"
    return TradeRequestReply(
        accepted=True, changes=[engine.record(by, CapabilityId.GAME_UI, "trade", summary, open_window)]
    )


def trade_offer(engine: GameEngine, args: TradeOfferArgs, by: str) -> ChangeReply:
    """Put stacks and gil into the character's side of the open trade (what it held is replaced)."""
    trade = _open(engine, "put anything into the trade window")
    if len(args.items) > MAX_TRADE_STACKS:
        raise Refusal(f"one side of a trade holds {MAX_TRADE_STACKS} stacks and `items` lists {len(args.items)}")
    if not 0 <= args.gil <= MAX_TRADE_GIL:
        raise Refusal(f"`gil` is {args.gil:,}: one side of a trade holds 0 to {MAX_TRADE_GIL:,} gil")
    for index, stack in enumerate(args.items):
        check_count(stack.count, f"items[{index}].count")
        engine.item(stack.item_id)
    goods = TradeGoods(items=list(args.items), gil=args.gil)
    for item_id, count in goods.totals().items():
        held = engine.held(item_id)
        if held < count:
            name = engine.item_name(item_id)
            raise Refusal(f"the bags hold {held:,} × {name} ({item_id}) and cannot put {count:,} into the trade")
    if goods.gil > engine.world.player.gil:
        raise Refusal(f"the character has {engine.world.player.gil:,} gil and cannot put {goods.gil:,} into the trade")

    def put() -> None:
        trade.give = goods
        trade.you_pressed_trade = False

    summary = f"put {describe_goods(engine, goods)} into the trade with {trade.partner}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "trade", summary, put)])


def trade_confirm(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    """Press Trade and confirm: what each side holds changes hands, and the window closes."""
    trade = _open(engine, "complete a trade")
    if not trade.they_pressed_trade:
        raise Refusal(f"{trade.partner} has not pressed Trade yet; wait for them, or cancel (Game.TradeCancel)")
    player = engine.world.player
    give, receive = trade.give.totals(), trade.receive.totals()
    for item_id, count in give.items():  # the bags may have changed since the items were put in
        if engine.held(item_id) < count:
            raise Refusal(f"the bags no longer hold {count:,} × {engine.item_name(item_id)}; put in what they hold")
    if trade.give.gil > player.gil:
        raise Refusal(f"the character no longer has {trade.give.gil:,} gil; put in what it has")
    for item_id, count in receive.items():
        if engine.held(item_id) - give.get(item_id, 0) + count > MAX_HELD:
            raise Refusal(
                f"the bags hold at most {MAX_HELD:,} × {engine.item_name(item_id)}; the trade cannot go through"
            )
    if player.gil - trade.give.gil + trade.receive.gil > GIL_CAP:
        raise Refusal(f"the trade would take the character past {GIL_CAP:,} gil, the most it can hold")
    partner = trade.partner
    changes: list[Change] = []

    def hand_over() -> None:
        for item_id, count in give.items():
            engine.remove_items(item_id, count)

    def pay() -> None:
        player.gil -= trade.give.gil

    def take() -> None:
        for item_id, count in receive.items():
            engine.add_items(item_id, count)
        player.gil += trade.receive.gil

    def close() -> None:
        engine.world.trade = None

    given = TradeGoods(items=trade.give.items)
    if give:
        summary = f"traded {describe_goods(engine, given)} to {partner}"
        changes.append(engine.record(by, CapabilityId.TRADE_ITEMS, "items", summary, hand_over))
    if trade.give.gil:
        changes.append(
            engine.record(by, CapabilityId.SPEND_GIL, "gil", f"traded {trade.give.gil:,} gil to {partner}", pay)
        )
    if receive or trade.receive.gil:
        summary = f"received {describe_goods(engine, trade.receive)} from {partner}"
        changes.append(engine.record(by, CapabilityId.TRADE_ITEMS, "items", summary, take))
    changes.append(engine.record(by, CapabilityId.GAME_UI, "trade", f"completed the trade with {partner}", close))
    return ChangeReply(changes=changes)


def trade_cancel(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    """Close the open trade window; nothing changes hands (nothing to do when none is open)."""
    trade = engine.world.trade
    if trade is None:
        return ChangeReply()

    def close() -> None:
        engine.world.trade = None

    summary = f"cancelled the trade with {trade.partner}; nothing changed hands"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "trade", summary, close)])


def check_trades(world: World) -> str | None:
    """Why a world file's other players or trade window cannot be used, naming the field, or None (W1)."""
    zones = {zone.territory for zone in world.zones}
    catalog = {item.item_id for item in world.items}
    sides = [(f"$.otherPlayers[{i}].offers", o.offers) for i, o in enumerate(world.other_players)]
    if world.trade is not None:
        sides += [("$.trade.give", world.trade.give), ("$.trade.receive", world.trade.receive)]
    names = [o.name.casefold() for o in world.other_players]
    if len(set(names)) != len(names):
        return "`$.otherPlayers` names a player twice: each needs a name of their own"
    for index, other in enumerate(world.other_players):
        if other.territory not in zones:
            return f"`$.otherPlayers[{index}].territory` is {other.territory}, a zone this world does not have"
    for where, goods in sides:
        if len(goods.items) > MAX_TRADE_STACKS or not 0 <= goods.gil <= MAX_TRADE_GIL:
            held = f"{len(goods.items)} stacks and {goods.gil:,} gil"
            return f"`{where}` holds {held}: at most {MAX_TRADE_STACKS} stacks and {MAX_TRADE_GIL:,} gil"
        for slot, stack in enumerate(goods.items):
            if stack.item_id not in catalog or stack.count < 1:
                return (
                    f"`{where}.items[{slot}]` is {stack.count} × item {stack.item_id}: give 1 or more of a catalog item"
                )
    return None
