"""How a call of a tool ended, as the call path and the job runner see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._side_effects import Verdict

__all__ = ["CallEnd", "CallOutcome"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """How a call ended: a result, or an error message written for the assistant."""

    result: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class CallEnd:
    """A finished call as `PluginCalls` reports it: how it ended, what it did to the game, how long it took."""

    call_id: str
    owner: str
    tool: str
    outcome: CallOutcome
    verdict: Verdict
    seconds: float
    notes: dict[str, bool | int] = field(default_factory=dict)
    """For its audit line: `pending` (a long-running tool), `progressCut` (lines over 300 characters, J5)."""
