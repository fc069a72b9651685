"""A call's audit line as the check reads it: the player's `AuditLine`, with its details typed.

The host writes one ``call`` line for each call of a plugin's tool: whether it answered, its
error, each effect on the game judged against what the tool declared, and the notes of the call
(long-running, progress lines cut). The check gets the lines through the player's ``audit``
command, as JSON; `CallLine.of` gives the details types, so the rules of `_verdicts` read fields
rather than keys, and a field the host leaves out reads as its default.
"""

from __future__ import annotations

import msgspec

from gates.player import AuditLine

__all__ = ["CallLine", "EffectLine"]


class EffectLine(msgspec.Struct, rename="camel", kw_only=True):
    """One effect of the call on the game, as the host judged it (T2, W3)."""

    effect: str = ""
    detail: str = ""
    """What happened, in a sentence ("9 gil spent.")."""
    covered_by: list[str] = []
    """The capabilities that cover it: declaring any one of them allows it."""
    undeclared: bool = False
    """The tool declared none of them."""
    by: list[str] = []
    """Who made the changes behind it, as the simulated game recorded them (the real host cannot tell)."""


class CallLine(msgspec.Struct, rename="camel", kw_only=True):
    """The details of a ``call`` audit line, those the check reads."""

    call_id: str | None = None
    ok: bool = False
    error: str | None = None
    effects: list[EffectLine] = []
    explanation: list[str] = []
    """For an undeclared effect another process made: who did it, while the verdict stands (F4)."""
    changed_on_error: bool = False
    """It answered an error, yet the game changed (T3)."""
    pending: bool = False
    """Its Invoke answered ``{"pending": true}``: a long-running tool."""
    progress_cut: int = 0
    """How many of its progress lines were cut at 300 characters (J5)."""

    @classmethod
    def of(cls, entry: AuditLine) -> CallLine:
        return msgspec.convert(entry.details, cls)
