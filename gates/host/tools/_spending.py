"""Spending the player approved in game: a purchase's approval window, and standing approvals.

    consent(title, details)     the real host's `Consent.Require`: an approval window the player
                                answers (`xivmcp approve`), two minutes, else nothing is done
    request_spending_approval   asks once for a budget of one currency (optionally only some items,
                                for some hours); buy_item's `approval` then spends from it without
                                asking again, never more than is left
    list_approvals, revoke_approval

The standing approvals are the real host's (`XivMcp/Util/Approvals.cs`): the same fields, checks
and words; they live in the host's memory (the real host keeps them in its config folder).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from game import ItemInfo
from gates.contract import HOST_NAME, ApprovalState, RefusedError, quote

from ..policy._approvals import Approval, ApprovalKind, Approvals
from ..policy._decision import Ask
from ._args import ToolArgs, ToolHandler
from ._game_definitions import clamped, text_arg
from ._game_tools import GameAccess

__all__ = ["DECLINED", "NO_ANSWER", "Spending", "StandingApproval", "resolve_item"]

DECLINED: Final = "The player declined in game; nothing was done."
NO_ANSWER: Final = (
    "No answer in game within {seconds} s; nothing was done. Ask the player to watch for the XIV MCP approval window."
)
GIL: Final = 1
MAX_KEPT: Final = 256
"""Standing approvals kept (B7): the oldest that no longer count go first."""


def resolve_item(items: list[ItemInfo], wanted: str | None) -> ItemInfo:
    """An item of the catalog by id or name (exact, then part of a name), as the real `Items.Resolve`."""
    if wanted is None:
        raise RefusedError("'item' is required.")
    folded = wanted.casefold()
    found = (
        [i for i in items if str(i.item_id) == wanted]
        or [i for i in items if i.name.casefold() == folded]
        or [i for i in items if folded in i.name.casefold()]
    )
    if not found:
        raise RefusedError(f"No item called {quote(wanted)}. Give an item name or id from the game's catalog.")
    return found[0]


@dataclass(slots=True)
class StandingApproval:
    """One budget the player approved (the real `Approvals.Approval`)."""

    id: str
    purpose: str
    currency_id: int
    currency: str
    max_amount: int
    items: dict[int, str]
    expires: float
    created: float
    spent: int = 0
    revoked: bool = False

    @property
    def remaining(self) -> int:
        return max(0, self.max_amount - self.spent)

    def state(self, now: float) -> str:
        if self.revoked:
            return "revoked"
        if now >= self.expires:
            return "expired"
        return "used up" if self.remaining <= 0 else "active"

    def describe(self, now: float) -> dict[str, Any]:
        return {
            "id": self.id,
            "purpose": self.purpose,
            "currency": self.currency,
            "max": self.max_amount,
            "spent": self.spent,
            "remaining": self.remaining,
            "items": list(self.items.values()) or None,
            "expires": datetime.fromtimestamp(self.expires, UTC).isoformat(),
            "state": self.state(now),
        }


class Spending:
    """The player's consent to spend, and the standing approvals; the handlers of their tools."""

    def __init__(self, game: GameAccess, approvals: Approvals, now: Callable[[], float]) -> None:
        self._game = game
        self._approvals = approvals
        self._now = now
        self._standing: dict[str, StandingApproval] = {}

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "request_spending_approval": self._request,
            "list_approvals": self._list,
            "revoke_approval": self._revoke,
        }

    # --- asking the player ---------------------------------------------------------------

    async def consent(self, tool: str, title: str, details: list[str], capability: str) -> None:
        """An approval window the player answers; raises the real `Consent.Require` refusals."""
        summary = f"{title} {'; '.join(details)}"
        approval = self._approvals.request(
            ApprovalKind.DURING_CALL, None, HOST_NAME, tool, (capability,), summary, Ask((capability,))
        )
        decided = await self._decided(approval)
        if decided.state is ApprovalState.APPROVED:
            return
        if decided.reason == "expired":
            created, deadline = approval.created, approval.deadline or approval.created
            raise RefusedError(NO_ANSWER.format(seconds=round(deadline - created)))
        raise RefusedError(DECLINED)

    async def _decided(self, approval: Approval) -> Approval:
        try:
            return await self._approvals.wait_decided(approval.id)
        except BaseException:  # the caller gave up: no question left open that runs nothing
            self._approvals.withdraw(approval.id)
            raise

    # --- standing approvals --------------------------------------------------------------

    def get(self, approval_id: str, item_id: int, item: str) -> StandingApproval:
        """The active approval with that id, if it covers the item (the real `Approvals.Get`)."""
        found = self._standing.get(approval_id.strip().lower())
        if found is None:
            raise RefusedError(f"No approval '{approval_id}'.")
        if found.revoked:
            raise RefusedError(f"Approval {found.id} was revoked in game.")
        if self._now() >= found.expires:
            raise RefusedError(f"Approval {found.id} has expired.")
        if found.remaining <= 0:
            raise RefusedError(
                f"Approval {found.id} is used up ({found.spent:,}/{found.max_amount:,} {found.currency})."
            )
        if found.items and item_id not in found.items:
            raise RefusedError(f"Approval {found.id} doesn't cover {item}.")
        return found

    def spend(self, approval: StandingApproval, amount: int) -> None:
        approval.spent += max(0, amount)

    async def _currency(self, wanted: str) -> tuple[int, str, int]:
        """(id, name, held) of a currency by name or id; gil is 1."""
        money = await self._game.call(self._game.client.currencies())
        known = [(GIL, "Gil", money.gil), *((c.id, c.name, c.count) for c in money.currencies)]
        folded = wanted.casefold()
        found = [c for c in known if str(c[0]) == wanted or c[1].casefold() == folded] or [
            c for c in known if folded in c[1].casefold()
        ]
        if not found:
            names = ", ".join(c[1] for c in known)
            raise RefusedError(f"No currency called '{wanted}'. The character's currencies: {names}.")
        return found[0]

    async def _request(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        most = args.integer("max_amount", 0, 0, 2**31 - 1)
        if most <= 0:
            raise RefusedError("'max_amount' must be positive.")
        hours = int(clamped(args, "valid_hours", 24, 1, 24 * 14))
        wanted = text_arg(args, "currency")
        if wanted is None:
            raise RefusedError("'currency' is required.")
        await self._game.player()
        currency_id, currency, held = await self._currency(wanted)
        catalog = await self._game.call(self._game.client.items())
        items = {i.item_id: i.name for i in (resolve_item(catalog, str(w)) for w in args.items("items"))}
        purpose = text_arg(args, "purpose") or "Purchases by your assistant"
        details = [
            purpose,
            f"Spend up to {most:,} {currency} in total (you have {held:,})",
            "On any item" if not items else "Only on: " + ", ".join(items.values()),
            f"Valid for {hours} hours; you can revoke it any time in /xivmcp → Jobs.",
        ]
        capability = "spend_gil" if currency_id == GIL else "spend_currency"
        await self.consent("request_spending_approval", f"Approve spending {currency}?", details, capability)
        now = self._now()
        approval = StandingApproval(
            id=secrets.token_hex(4),
            purpose=purpose,
            currency_id=currency_id,
            currency=currency,
            max_amount=most,
            items=items,
            expires=now + hours * 3600,
            created=now,
        )
        self._standing[approval.id] = approval
        self._prune(now)
        return approval.describe(now)

    def _prune(self, now: float) -> None:
        spent = [a.id for a in sorted(self._standing.values(), key=lambda a: a.created) if a.state(now) != "active"]
        for key in spent[: max(0, len(self._standing) - MAX_KEPT)]:
            del self._standing[key]

    async def _list(self, args: ToolArgs, _: Any) -> list[dict[str, Any]]:
        now = self._now()
        return [a.describe(now) for a in sorted(self._standing.values(), key=lambda a: a.created, reverse=True)]

    async def _revoke(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        wanted = text_arg(args, "id")
        if wanted is None:
            raise RefusedError("'id' is required.")
        found = self._standing.get(wanted.lower())
        if found is not None:
            found.revoked = True
        return {"revoked": wanted}
