"""The trade window's gates, the retainer's gil and equipping as `GameClient` methods (`_trade`,
`_retainer_gil`, `_equip`), kept apart so the client stays small.

`GameClient` inherits them; each goes through its `call`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar

import msgspec

from ._bags import MoveItemsReply
from ._equip import EquipReply
from ._names import GameGate
from ._replies import ChangeReply
from ._trade import TradeReply, TradeRequestReply
from ._trade_documents import TradeStack, TradeWindow

__all__ = ["TradeCalls"]

R = TypeVar("R", bound=msgspec.Struct)


class TradeCalls:
    """Trading with another player standing near: request, fill the window, confirm or cancel."""

    async def call(self, gate: GameGate, reply_type: type[R], **args: object) -> R:
        raise NotImplementedError  # GameClient's

    async def get_trade(self) -> TradeWindow | None:
        """The open trade window (None: no trade is open)."""
        return (await self.call(GameGate.GET_TRADE, TradeReply)).trade

    async def trade_request(self, player: str) -> TradeRequestReply:
        """Ask `player`, standing near, to trade; `accepted` says whether the window opened."""
        return await self.call(GameGate.TRADE_REQUEST, TradeRequestReply, player=player)

    async def trade_offer(self, items: Sequence[TradeStack] = (), gil: int = 0) -> ChangeReply:
        """Put stacks and gil into the character's side of the open trade."""
        return await self.call(GameGate.TRADE_OFFER, ChangeReply, items=list(items), gil=gil)

    async def trade_confirm(self) -> ChangeReply:
        """Press Trade and confirm: both sides change hands."""
        return await self.call(GameGate.TRADE_CONFIRM, ChangeReply)

    async def trade_cancel(self) -> ChangeReply:
        """Close the trade window; nothing changes hands."""
        return await self.call(GameGate.TRADE_CANCEL, ChangeReply)

    async def retainer_gil(self, amount: int, direction: Literal["deposit", "withdraw"] = "deposit") -> ChangeReply:
        """Entrust gil to the retainer called at the bell, or withdraw it."""
        return await self.call(GameGate.RETAINER_GIL, ChangeReply, amount=amount, direction=direction)

    async def equip(self, item_id: int) -> EquipReply:
        """Put on a piece of gear from the bags (its slot in the reply)."""
        return await self.call(GameGate.EQUIP, EquipReply, itemId=item_id)

    async def move_items(
        self,
        from_container: str,
        from_slot: int,
        to_container: str,
        to_slot: int | None = None,
        quantity: int | None = None,
    ) -> MoveItemsReply:
        """Drag a stack (or `quantity` of it) from one bag slot to another (None: the first empty one)."""
        return await self.call(
            GameGate.MOVE_ITEMS,
            MoveItemsReply,
            fromContainer=from_container,
            fromSlot=from_slot,
            toContainer=to_container,
            toSlot=to_slot,
            quantity=quantity,
        )

    async def sort_bags(self, descending: bool = False) -> ChangeReply:
        """Sort the bags by item id, stacks merged (the game's /itemsort)."""
        return await self.call(GameGate.SORT_BAGS, ChangeReply, descending=descending)
