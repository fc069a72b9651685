"""Side effects: what a third-party call changed in the game, against what its tool declared (T2, A4, W3).

The real host compares a snapshot from before a call with one from after it, and judges the whole
difference against what the tool declared: it cannot tell who made a change, so gil another
plugin spent during the call suspends the plugin that was called (F4). This host judges the same
difference by the same rules, so its verdict is the real host's. The simulated game also records
which process made each change (`game.Change.by`): that only explains the verdict ("640 gil
spent, by EvilHelper during the call"), in the audit line and in `xivmcp check`, and never
changes it.

The rules are the real host's (`SideEffectAnalyzer` in `XivMcp.Core/Permissions/SideEffects.cs`):
nothing is checked when the player was not logged in before the call; a logout or a switch of
character needs `login` and ends the check (that character's gil says nothing about the call); a
change of zone or world needs `move_character` or `combat`; gil spent needs `spend_gil`; each
currency spent needs `spend_currency`; items leaving need `move_items`, `trade_items`,
`discard_items` or `spend_currency`; chat sent needs `chat_send`. Gains never count. Items are one
total count, as the real snapshot keeps them: one item discarded while another is gained leaves the
total as it was, and the real host sees nothing (docs/fidelity.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from game import Change, GameSnapshot, SnapshotDelta
from gates.contract import CapabilityId

__all__ = [
    "SUSPEND_WINDOW",
    "SideEffect",
    "Verdict",
    "analyze",
    "judge",
    "suspension_reason",
    "unchecked",
]

SUSPEND_WINDOW: Final = 120.0
"""Calls shorter than this suspend their plugin on an undeclared effect; longer ones are only
flagged (the player may have acted meanwhile)."""


@dataclass(frozen=True, slots=True)
class SideEffect:
    """One observed change: the capabilities that explain it, and whether the tool declared none of them."""

    effect: str
    detail: str
    covered_by: tuple[str, ...]
    undeclared: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "effect": self.effect,
            "detail": self.detail,
            "coveredBy": list(self.covered_by),
            "undeclared": self.undeclared,
        }


def analyze(before: GameSnapshot, after: GameSnapshot, declared: Iterable[str]) -> list[SideEffect]:
    """The effects between two snapshots, judged against the declared capabilities."""
    effects: list[SideEffect] = []
    if not before.logged_in:
        return effects
    declared_set = frozenset(declared)

    def add(effect: str, detail: str, *covered_by: CapabilityId) -> None:
        ids = tuple(c.value for c in covered_by)
        effects.append(SideEffect(effect, detail, ids, not declared_set.intersection(ids)))

    if not after.logged_in or after.content_id != before.content_id:
        # A different character (or none): its gil and bags say nothing about this call.
        detail = "Switched to another character." if after.logged_in else "Logged out."
        add("logged_out_or_switched", detail, CapabilityId.LOGIN)
        return effects
    if after.territory != before.territory or after.world != before.world:
        detail = (
            f"World {before.world} → {after.world}."
            if after.world != before.world
            else f"Zone {before.territory} → {after.territory}."
        )
        add("moved", detail, CapabilityId.MOVE_CHARACTER, CapabilityId.COMBAT)
    if after.gil < before.gil:
        add("spent_gil", f"{before.gil - after.gil:,} gil spent.", CapabilityId.SPEND_GIL)
    for currency, had in before.currencies.items():
        has = after.currencies.get(currency)
        if has is not None and has < had:
            add("spent_currency", f"{had - has:,} of currency {currency} spent.", CapabilityId.SPEND_CURRENCY)
    if after.item_total < before.item_total:
        add(
            "items_removed",
            f"{before.item_total - after.item_total:,} items left the inventory.",
            CapabilityId.MOVE_ITEMS,
            CapabilityId.TRADE_ITEMS,
            CapabilityId.DISCARD_ITEMS,
            CapabilityId.SPEND_CURRENCY,
        )
    if after.chat_sent > before.chat_sent:
        add("chat_sent", f"{after.chat_sent - before.chat_sent} chat message(s) sent.", CapabilityId.CHAT_SEND)
    return effects


@dataclass(frozen=True, slots=True)
class Verdict:
    """What XIV MCP concluded about one call's effects."""

    effects: tuple[SideEffect, ...] = ()
    """Every effect of the whole before/after difference, whoever made it (as the real host judges)."""
    made_by: tuple[tuple[str, ...], ...] = ()
    """For each effect, the processes whose changes explain it, as the game recorded them; empty
    when the game's change log did not reach back to the call's start."""
    unchecked_reason: str | None = None
    """Why nothing was checked; None when the call's effects were."""

    @property
    def checked(self) -> bool:
        return self.unchecked_reason is None

    @property
    def attributed(self) -> bool:
        return len(self.made_by) == len(self.effects)

    @property
    def undeclared(self) -> tuple[SideEffect, ...]:
        return tuple(e for e in self.effects if e.undeclared)

    def explain(self, owner: str) -> list[str]:
        """One sentence per undeclared effect another process made: the verdict stands, and says why."""
        if not self.attributed:
            return []
        lines = []
        for effect, makers in zip(self.effects, self.made_by, strict=True):
            others = [m for m in makers if m != owner]
            if effect.undeclared and others:
                lines.append(
                    f"{effect.detail.rstrip('.')}, by {' and '.join(others)} during the call: XIV MCP cannot tell "
                    f"who did it and judges {owner}'s call by the whole difference."
                )
        return lines

    def to_json(self) -> dict[str, Any]:
        if not self.checked:
            return {"effectsChecked": False, "uncheckedReason": self.unchecked_reason}
        if not self.attributed:
            return {"effects": [e.to_json() for e in self.effects], "attributed": False}
        return {"effects": [{**e.to_json(), "by": list(by)} for e, by in zip(self.effects, self.made_by, strict=True)]}


def unchecked(reason: str) -> Verdict:
    return Verdict(unchecked_reason=reason)


def judge(
    owner: str,
    declared: Sequence[str],
    before: GameSnapshot,
    after: GameSnapshot,
    changes: Sequence[Change],
    *,
    complete: bool,
) -> Verdict:
    """The whole difference between the snapshots around a call, judged as the real host judges it;
    `changes` (the game's record of the call, `complete` when it reaches back to the start) only
    say who made each effect."""
    if not before.logged_in:
        return unchecked("The player was not logged in when the call started.")
    effects = tuple(analyze(before, after, declared))
    if not complete:
        return Verdict(effects=effects)
    made_by = tuple(tuple(dict.fromkeys(c.by for c in changes if _explains(c, effect))) for effect in effects)
    return Verdict(effects=effects, made_by=made_by)


_EXPLAINS: Final[dict[str, Callable[[SnapshotDelta], bool]]] = {
    "logged_out_or_switched": lambda d: d.logged_in is not None or d.content_id is not None,
    "moved": lambda d: d.territory is not None or d.world is not None,
    "spent_gil": lambda d: d.gil < 0,
    "spent_currency": lambda d: any(v < 0 for v in d.currencies.values()),
    "items_removed": lambda d: d.item_total < 0,
    "chat_sent": lambda d: d.chat_sent > 0,
}


def _explains(change: Change, effect: SideEffect) -> bool:
    test = _EXPLAINS.get(effect.effect)
    return test is not None and test(change.delta)


def suspension_reason(tool: str, undeclared: Iterable[SideEffect]) -> str:
    """The reason a suspended plugin shows: "{tool}: {details} (not declared)", as the real host words it."""
    return f"{tool}: {' '.join(e.detail for e in undeclared)} (not declared)"
