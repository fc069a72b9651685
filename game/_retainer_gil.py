"""The gate that moves gil between the character and the retainer called at a summoning bell.

    Game.RetainerGil   entrust gil to the called retainer (`deposit`) or take it back (`withdraw`)

As the game's Gil Transfer window: the character stands at a bell with a retainer called, and
neither side may go past `GIL_CAP`. A deposit lowers the character's gil, the `spent_gil` effect
the real host's analyzer holds against a call, which only `spend_gil` covers: it is recorded so.
A withdrawal is a gain (W3), recorded as `move_items`, the other capability of the real host's
move_gil.
"""

from __future__ import annotations

from typing import Literal

from gates.contract import CapabilityId

from ._args import _Args
from ._engine import GIL_CAP, GameEngine
from ._errors import Refusal
from ._replies import ChangeReply
from ._retainers import _called

__all__ = ["RetainerGilArgs", "retainer_gil"]


class RetainerGilArgs(_Args, kw_only=True):
    amount: int
    direction: Literal["deposit", "withdraw"]
    """deposit: from the character to the called retainer; withdraw: back to the character."""


def retainer_gil(engine: GameEngine, args: RetainerGilArgs, by: str) -> ChangeReply:
    retainer = _called(engine, "move gil to or from a retainer")
    player = engine.world.player
    if args.amount <= 0:
        raise Refusal(f"`amount` is {args.amount:,}: give 1 gil or more")
    giver, taker = (player.gil, retainer.gil) if args.direction == "deposit" else (retainer.gil, player.gil)
    if args.amount > giver:
        who = "the character" if args.direction == "deposit" else retainer.name
        raise Refusal(f"{who} has {giver:,} gil and cannot {args.direction} {args.amount:,}")
    if taker + args.amount > GIL_CAP:
        raise Refusal(f"that would go past {GIL_CAP:,} gil, the most one side can hold")
    sign = -1 if args.direction == "deposit" else 1

    def move() -> None:
        player.gil += sign * args.amount
        retainer.gil -= sign * args.amount

    if args.direction == "deposit":
        summary = f"entrusted {args.amount:,} gil to {retainer.name}"
        return ChangeReply(changes=[engine.record(by, CapabilityId.SPEND_GIL, "gil", summary, move)])
    summary = f"withdrew {args.amount:,} gil from {retainer.name}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.MOVE_ITEMS, "gil", summary, move)])
