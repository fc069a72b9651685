"""The trade window and what each side of it holds, as msgspec Structs with the wire's camelCase names.

A trade is open between the character and another player (`OtherPlayer`, in `_documents`) once
that player accepted the request: `World.trade`. Each side holds up to `MAX_TRADE_STACKS` stacks
and up to `MAX_TRADE_GIL` gil, as the game's trade window does; nothing changes hands until the
character confirms it, and a cancelled trade moves nothing.
"""

from __future__ import annotations

from typing import Final

import msgspec

__all__ = ["MAX_TRADE_GIL", "MAX_TRADE_STACKS", "TradeGoods", "TradeStack", "TradeWindow"]

MAX_TRADE_STACKS: Final = 5
"""Item slots of one side of the trade window."""
MAX_TRADE_GIL: Final = 1_000_000
"""The most gil one side of a trade holds."""


class _Doc(msgspec.Struct, rename="camel", kw_only=True):
    """Base of these documents: snake_case in Python, camelCase on the wire (as `_documents`)."""


class TradeStack(_Doc):
    """One slot of a trade: `count` of an item (the simulated game has no high quality)."""

    item_id: int
    count: int


class TradeGoods(_Doc):
    """What one side of a trade holds: stacks and gil."""

    items: list[TradeStack] = []
    gil: int = 0

    def totals(self) -> dict[int, int]:
        """Counts per item id, so the same item in two slots counts as one total."""
        totals: dict[int, int] = {}
        for stack in self.items:
            totals[stack.item_id] = totals.get(stack.item_id, 0) + stack.count
        return totals


class TradeWindow(_Doc):
    """The open trade: who with, what each side holds, and who pressed Trade."""

    partner: str
    give: TradeGoods = msgspec.field(default_factory=TradeGoods)
    """The character's side."""
    receive: TradeGoods = msgspec.field(default_factory=TradeGoods)
    """The other player's side."""
    you_pressed_trade: bool = False
    they_pressed_trade: bool = False
