"""XIV MCP's trading tools over the simulated game (module trading): get_trade, trade_with_player, cancel_trade.

    trade_with_player  'give' and 'receive' read ─► what a side can hold (5 stacks, 1,000,000 gil)
                       ─► the bags and gil checked ─► the other player found in the zone ─► within
                       4 yalms (here XIV MCP does not walk up to them) ─► `Game.TradeRequest`: they
                       accept or decline, as the world file says ─► `Game.TradeOffer` with 'give' ─►
                       their side read and checked against 'receive' ─► the player approves in game,
                       every time, with what both sides hold ─► checked again ─► `Game.TradeConfirm`
                       (items given recorded as trade_items, gil given as spend_gil)
                       A trade that stops after the request is cancelled (`Game.TradeCancel`).

Every trade asks the player, as the real host's `Approve` does: the approval is critical, so
approving it for the session or always is taken as approving this trade once; declining, or no
answer within two minutes, cancels it. Refusals are the real host's words (`TradeTools.cs`,
`TradeCheck.cs`), and come before anything changes hands.
"""

from __future__ import annotations

from typing import Any, Final

import anyio

from game import ItemInfo, TradeGoods, TradeStack, TradeWindow, ground_distance
from gates.contract import HOST_NAME, ApprovalState, RefusedError

from ..policy._approvals import ApprovalKind, Approvals
from ..policy._decision import Ask
from ._args import ToolArgs, ToolHandler
from ._game_definitions import clamped, text_arg
from ._game_tools import GameAccess
from ._spending import resolve_item

__all__ = ["TRADE_DECLINED", "TRADE_RANGE", "TradeTools", "describe"]

TRADE_RANGE: Final = 4.0
MAX_ITEMS: Final = 5
MAX_GIL: Final = 1_000_000
TRADE_DECLINED: Final = "The player did not approve the trade; it was cancelled and nothing changed hands."
WARNING: Final = "Trades cannot be undone."


def describe(goods: TradeGoods, names: dict[int, str]) -> str:
    """'3 Potion, 1 Ether and 1,000 gil', or 'nothing' (the real `TradeOffer.Describe`)."""
    parts = [f"{count} {names.get(item_id, f'item {item_id}')}" for item_id, count in goods.totals().items()]
    if goods.gil > 0:
        parts.append(f"{goods.gil:,} gil")
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _offer(args: ToolArgs, name: str, catalog: list[ItemInfo]) -> TradeGoods | None:
    """One side as the assistant gave it (the real `ParseOffer`); None when left out."""
    value = args.values.get(name)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RefusedError(f"'{name}' must be an object {{ items, gil }}.")
    stacks: list[TradeStack] = []
    listed = value.get("items")
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, dict):
            continue
        wanted = entry.get("item")
        if wanted is None or (isinstance(wanted, str) and not wanted.strip()):
            raise RefusedError("Each item needs 'item'.")
        item = resolve_item(catalog, str(wanted).strip())
        one = ToolArgs(name, {"quantity": entry.get("quantity", 1), "hq": entry.get("hq", False)}, ("quantity", "hq"))
        count = int(clamped(one, "quantity", 1, 1, 999_999))
        if one.boolean("hq", False):  # the simulated game has no high-quality items: no side holds one
            if name == "give":
                raise RefusedError(f"You have only 0 {item.name} (HQ) in your bags, not {count}.")
            raise RefusedError(f"The trade was stopped: You would receive 0 of {count} {item.name} (HQ).")
        stacks.append(TradeStack(item_id=item.item_id, count=count))
    gil = int(clamped(ToolArgs(name, {"gil": value.get("gil", 0)}, ("gil",)), "gil", 0, 0, MAX_GIL))
    return TradeGoods(items=stacks, gil=gil)


def _problems(give: TradeGoods, window: TradeWindow, expect: TradeGoods | None, names: dict[int, str]) -> list[str]:
    """What differs from what was planned (the real `TradeCheck.Problems`)."""
    want, have = give.totals(), window.give.totals()
    problems = [
        f"You would give {have.get(key, 0)} {names.get(key, key)} instead of {want.get(key, 0)}."
        for key in dict.fromkeys([*want, *have])
        if want.get(key, 0) != have.get(key, 0)
    ]
    if give.gil != window.give.gil:
        problems.append(f"You would give {window.give.gil:,} gil instead of {give.gil:,}.")
    if expect is None:
        return problems
    got = window.receive.totals()
    for key, count in expect.totals().items():
        if got.get(key, 0) < count:
            problems.append(f"You would receive {got.get(key, 0)} of {count} {names.get(key, key)}.")
    if window.receive.gil < expect.gil:
        problems.append(f"You would receive {window.receive.gil:,} gil instead of {expect.gil:,}.")
    return problems


class TradeTools:
    """The handlers of get_trade, trade_with_player and cancel_trade."""

    def __init__(self, game: GameAccess, approvals: Approvals) -> None:
        self._game = game
        self._approvals = approvals

    def handlers(self) -> dict[str, ToolHandler]:
        return {"get_trade": self._get, "trade_with_player": self._trade, "cancel_trade": self._cancel}

    async def _names(self) -> tuple[list[ItemInfo], dict[int, str]]:
        catalog = await self._game.call(self._game.client.items())
        return catalog, {i.item_id: i.name for i in catalog}

    # --- get_trade, cancel_trade ---------------------------------------------------------

    async def _get(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        window = await self._game.call(self._game.client.get_trade())
        if window is None:
            return {"trading": False, "with": None, "give": None, "receive": None, **_pressed(None)}
        _, names = await self._names()
        return {
            "trading": True,
            "with": window.partner,
            "give": describe(window.give, names),
            "receive": describe(window.receive, names),
            **_pressed(window),
        }

    async def _cancel(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        was = await self._game.call(self._game.client.get_trade()) is not None
        if was:
            await self._game.call(self._game.client.trade_cancel())
        return {"cancelled": was}

    # --- trade_with_player ---------------------------------------------------------------

    async def _trade(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = text_arg(args, "player")
        if name is None:
            raise RefusedError("'player' is required.")
        clamped(args, "timeout_seconds", 120, 30, 600)  # the simulated player answers at once
        catalog, names = await self._names()
        give = _offer(args, "give", catalog) or TradeGoods()
        expect = _offer(args, "receive", catalog)
        if len(give.items) > MAX_ITEMS:
            raise RefusedError(f"A trade holds at most {MAX_ITEMS} items (stacks) per side, not {len(give.items)}.")
        here = await self._game.player()
        if give.gil > here.player.gil:
            raise RefusedError(f"You have only {here.player.gil:,} gil.")
        bags = {i.item_id: i.count for i in (await self._game.call(self._game.client.inventory())).items}
        for item_id, wanted in give.totals().items():
            if bags.get(item_id, 0) < wanted:
                held = bags.get(item_id, 0)
                raise RefusedError(f"You have only {held} {names[item_id]} in your bags, not {wanted}.")
        partner = await self._find(name, here.player.territory, here.player.position.x, here.player.position.z)
        return await self._run(partner, give, expect, names)

    async def _find(self, name: str, territory: int, x: float, z: float) -> str:
        """The other player, as the real `FindPlayer` then `Approach` (without walking) find them."""
        world = await self._game.call(self._game.client.state())
        players = [o for o in world.other_players if o.territory == territory]
        folded = name.casefold()
        match = next((o for o in players if o.name.casefold() == folded), None)
        if match is None:
            partial = [o for o in players if folded in o.name.casefold()]
            match = partial[0] if len(partial) == 1 else None
        if match is None:
            raise RefusedError(f"No player named '{name}' is nearby.")
        if ground_distance(x, z, match.position.x, match.position.z) > TRADE_RANGE:
            raise RefusedError(f"{match.name} is too far away to trade. Walk up to them first.")
        return match.name

    async def _run(
        self, partner: str, give: TradeGoods, expect: TradeGoods | None, names: dict[int, str]
    ) -> dict[str, Any]:
        client = self._game.client
        started = completed = False
        try:
            if not (await self._game.call(client.trade_request(partner))).accepted:
                raise RefusedError(f"{partner} did not accept the trade request.")
            started = True
            stacks = [TradeStack(item_id=i, count=c) for i, c in give.totals().items()]
            await self._game.call(client.trade_offer(stacks, give.gil))
            window = await self._game.call(client.get_trade())
            if window is None:
                raise RefusedError(f"{partner} cancelled the trade.")
            self._check(give, expect, window, names)
            await self._approve(partner, window, expect, names)
            now = await self._game.call(client.get_trade())
            if now is None:
                raise RefusedError(
                    f"The trade with {partner} was cancelled before it completed; nothing changed hands."
                )
            self._check(give, expect, now, names)
            await self._game.call(client.trade_confirm())
            completed = True
            return {
                "traded": True,
                "with": partner,
                "gave": describe(window.give, names),
                "received": describe(window.receive, names),
            }
        finally:
            if started and not completed:
                with anyio.CancelScope(shield=True):
                    if await self._game.call(client.get_trade()) is not None:
                        await self._game.call(client.trade_cancel())

    @staticmethod
    def _check(give: TradeGoods, expect: TradeGoods | None, window: TradeWindow, names: dict[int, str]) -> None:
        problems = _problems(give, window, expect, names)
        if problems:
            raise RefusedError(f"The trade was stopped: {' '.join(problems)}")

    async def _approve(
        self, partner: str, window: TradeWindow, expect: TradeGoods | None, names: dict[int, str]
    ) -> None:
        """Asks in game, every time, with what both sides hold; declining (or no answer) stops the trade."""
        details = [f"You give: {describe(window.give, names)}.", f"You receive: {describe(window.receive, names)}."]
        receives = bool(window.receive.items or window.receive.gil)
        if expect is None and receives:
            details.append("Your assistant did not say what you get in return; check it.")
        if expect is None and not receives:
            details.append("You get nothing in return: this is a gift.")
        summary = " ".join([f"Complete the trade with {partner}?", *details, WARNING])
        capability = ("trade_items",)
        approval = self._approvals.request(
            ApprovalKind.DURING_CALL,
            None,
            HOST_NAME,
            "trade_with_player",
            capability,
            summary,
            Ask(capability, critical=True),
        )
        try:
            decided = await self._approvals.wait_decided(approval.id)
        except BaseException:  # the caller gave up: no window left open that runs nothing
            self._approvals.withdraw(approval.id)
            raise
        if decided.state is not ApprovalState.APPROVED:
            raise RefusedError(TRADE_DECLINED)


def _pressed(window: TradeWindow | None) -> dict[str, bool]:
    if window is None:
        return {"youPressedTrade": False, "theyPressedTrade": False}
    return {"youPressedTrade": window.you_pressed_trade, "theyPressedTrade": window.they_pressed_trade}
