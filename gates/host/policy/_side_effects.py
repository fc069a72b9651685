"""Side effects: what a third-party call changed in the game, against what its tool declared (T2, A4, W3).

The real host compares a snapshot from before a call with one from after it. This one does the
same, and more: the simulated game records which process made each change (`game.Change.by`),
so the host replays only the changes the plugin itself made onto the "before" snapshot and judges
those. An effect another process made meanwhile (the player, another plugin, XIV MCP's own
tools) is reported as not blamed, never held against the plugin. When the game's change log no
longer reaches back to the start of the call, the whole difference is judged, as the real host
judges it.

The rules are the real host's (`SideEffectAnalyzer`): nothing is checked when the player was not
logged in before the call; a logout or a switch of character needs `login` and ends the check
(that character's gil says nothing about the call); a change of zone or world needs
`move_character` or `combat`; gil spent needs `spend_gil`; each currency spent needs
`spend_currency`; items leaving need `move_items`, `trade_items`, `discard_items` or
`spend_currency`; chat sent needs `chat_send`. Gains never count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from game import Change, GameSnapshot, SnapshotDelta, replay
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
    """The plugin's own effects (all of the difference when the game could not attribute it)."""
    not_blamed: tuple[tuple[SideEffect, tuple[str, ...]], ...] = ()
    """Effects other processes made during the call, with who made them."""
    unchecked_reason: str | None = None
    """Why nothing was checked; None when the call's effects were."""
    attributed: bool = True
    """False when the game's change log did not reach back to the call's start (whole difference judged)."""

    @property
    def checked(self) -> bool:
        return self.unchecked_reason is None

    @property
    def undeclared(self) -> tuple[SideEffect, ...]:
        return tuple(e for e in self.effects if e.undeclared)

    def to_json(self) -> dict[str, Any]:
        if not self.checked:
            return {"effectsChecked": False, "uncheckedReason": self.unchecked_reason}
        out: dict[str, Any] = {"effects": [e.to_json() for e in self.effects]}
        if self.not_blamed:
            out["notBlamed"] = [{**e.to_json(), "by": list(by)} for e, by in self.not_blamed]
        if not self.attributed:
            out["attributed"] = False
        return out


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
    """The plugin's own effects and the others', from the snapshots around a call and the changes between."""
    if not before.logged_in:
        return unchecked("The player was not logged in when the call started.")
    if not complete:
        return Verdict(effects=tuple(analyze(before, after, declared)), attributed=False)
    own = analyze(before, replay(before, (c for c in changes if c.by == owner)), declared)
    others = [c for c in changes if c.by != owner]
    not_blamed: list[tuple[SideEffect, tuple[str, ...]]] = []
    if others:
        for effect in analyze(before, replay(before, others), declared):
            makers = tuple(dict.fromkeys(c.by for c in others if _explains(c, effect)))
            not_blamed.append((effect, makers or tuple(dict.fromkeys(c.by for c in others))))
    return Verdict(effects=tuple(own), not_blamed=tuple(not_blamed))


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
