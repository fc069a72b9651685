"""XIV MCP's move_gil over the simulated game (module items_retainers).

    move_gil   'direction' and 'amount' read ─► at a summoning bell ─► AutoRetainer held back (`Bell`)
               ─► the retainer named (or the one called) called ─► the amount worked out from both
               balances (`gil_amount`: 1200, 15k, 1.5m, 50% or all) ─► `Game.RetainerGil` (a deposit
               recorded as spend_gil, a withdrawal as move_items) ─► both balances read back

The free company chest is not simulated: `where: "fc_chest"` is refused with the real host's
words for a chest that is not open. Refusals are the real host's (`GilTools.cs`, `GilAmount.cs`).
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from gates.contract import RefusedError, quote

from ._args import ToolArgs, ToolHandler
from ._bell import NOT_AT_BELL, Bell
from ._game_definitions import text_arg
from ._game_tools import GameAccess

__all__ = ["GIL_CAP", "NO_CHEST", "GilTools", "gil_amount"]

GIL_CAP: Final = 999_999_999
"""The most gil the game keeps in one place (the real `GilAmount.Cap`)."""
NO_CHEST: Final = (
    "The company chest is not open. Stand at it and open it (navigate_to company_chest, then interact_with_object)."
)
_NUMBER: Final = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _unknown(text: str) -> RefusedError:
    return RefusedError(f"Unknown gil amount '{text}'. Use a number (1200, 15k, 1.5m), a percentage (50%) or all.")


def _number(text: str, original: str) -> float:
    if not _NUMBER.match(text):
        raise _unknown(original)
    value = float(text)
    if not math.isfinite(value):
        raise _unknown(original)
    return value


def gil_amount(text: str, available: int, room: int = GIL_CAP) -> int:
    """The amount `text` means out of `available`, `room` left on the receiving side (the real `GilAmount.Parse`)."""
    t = text.strip().lower().replace(",", "").replace("_", "")
    if t == "all":
        if available <= 0:
            raise RefusedError("There is no gil to move.")
        amount = min(available, room)
    elif t.endswith("%"):
        percent = _number(t[:-1], text)
        if percent <= 0 or percent > 100:
            raise RefusedError("A percentage must be between 1% and 100%.")
        amount = math.floor(available * percent / 100)
    else:
        factor = 1_000 if t.endswith("k") else 1_000_000 if t.endswith("m") else 1
        amount = round(_number(t if factor == 1 else t[:-1], text) * factor)
    if amount <= 0:
        raise RefusedError("The amount must be more than 0 gil.")
    if amount > available:
        raise RefusedError(f"There is only {available:,} gil to move, not {amount:,}.")
    if amount > room:
        raise RefusedError(f"That would go over {GIL_CAP:,} gil; at most {room:,} more fit.")
    return amount


class GilTools:
    """The handler of move_gil."""

    def __init__(self, game: GameAccess, bell: Bell) -> None:
        self._game = game
        self._bell = bell

    def handlers(self) -> dict[str, ToolHandler]:
        return {"move_gil": self._move}

    async def _move(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        direction = (text_arg(args, "direction") or "").lower()
        if direction not in ("deposit", "withdraw"):
            raise RefusedError("'direction' must be deposit or withdraw.")
        amount_text = text_arg(args, "amount")
        if amount_text is None:
            raise RefusedError("'amount' is required.")
        await self._game.player()
        if (text_arg(args, "where") or "").lower() == "fc_chest":
            raise RefusedError(NO_CHEST)
        client = self._game.client
        status = await self._game.call(client.retainers())
        if not status.at_bell:
            raise RefusedError(NOT_AT_BELL)
        await self._bell.acquire()
        name = text_arg(args, "retainer") or status.open
        if name is None:
            raise RefusedError("No retainer is open. Name one with 'retainer' (at a summoning bell).")
        retainer = next((r for r in status.retainers if r.name.casefold() == name.casefold()), None)
        if retainer is None:
            known = ", ".join(r.name for r in status.retainers) or "none"
            raise RefusedError(f"No retainer called {quote(name)}. Your retainers: {known}.")
        await self._game.call(client.open_retainer(retainer.name))
        player = (await self._game.player()).player.gil
        stored = retainer.gil
        deposit = direction == "deposit"
        if deposit:
            amount = gil_amount(amount_text, player, GIL_CAP - stored)
        else:
            amount = gil_amount(amount_text, stored, GIL_CAP - player)
        await self._game.call(client.retainer_gil(amount, "deposit" if deposit else "withdraw"))
        after = await self._game.call(client.retainers())
        now_stored = next(r.gil for r in after.retainers if r.name == retainer.name)
        return {
            "moved": amount,
            "direction": direction,
            "where": retainer.name,
            "yourGil": (await self._game.player()).player.gil,
            "storedGil": now_stored,
        }
