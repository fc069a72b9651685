"""A finished third-party call as `PluginCalls` reports it to the call path and the job runner."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..base._call_outcome import CallOutcome
from ..policy._side_effects import Verdict

__all__ = ["CallEnd"]


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
