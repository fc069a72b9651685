"""How many audit lines one plugin may cause a minute (B7): past its budget, lines are counted, not written.

A plugin that calls `DeclareDependencies` in a loop, or registers and unregisters a tool a thousand
times, would otherwise fill the log and push the player's own history out of it. Each plugin has
`lines_per_minute` lines in each minute of the host's clock (a minute starts with the plugin's first
line after the last one ended); the lines past it are counted by kind, and when the minute is over
the log writes one line per kind in their place: "MyPlugin: 812 more DeclareDependencies calls in
the last minute".

Only the lines a plugin causes through the host's gates are budgeted (`AuditLog` says which):
what the player decides, suspensions, calls and their decisions are always written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = ["LINES_PER_MINUTE", "MINUTE", "AuditBudget", "Skipped"]

LINES_PER_MINUTE: Final = 600
"""Audit lines one plugin may cause in a minute before the rest are summarised (ten a second)."""
MINUTE: Final = 60.0

_WHAT: Final = {
    "approval": "approval requests",
    "registration": "RegisterTool and UnregisterTool calls",
    "dependencies": "DeclareDependencies calls",
}


@dataclass(frozen=True, slots=True)
class Skipped:
    """Lines of one kind that one plugin caused past its budget in one minute."""

    plugin: str
    kind: str
    count: int

    def sentence(self) -> str:
        """ "MyPlugin: 812 more DeclareDependencies calls in the last minute"."""
        return f"{self.plugin}: {self.count} more {_WHAT.get(self.kind, f'{self.kind} lines')} in the last minute"


@dataclass(slots=True)
class _Minute:
    started: float
    written: int = 0
    skipped: dict[str, int] = field(default_factory=dict)


class AuditBudget:
    """Per-plugin minutes on the host's clock; readings come from the caller (`now`), so nothing sleeps.

    It keeps one entry per plugin that wrote in its current minute: as many as the plugins that
    caused a line in the last minute, which the broker's peer limit bounds."""

    def __init__(self, lines_per_minute: int = LINES_PER_MINUTE) -> None:
        self._limit = lines_per_minute
        self._minutes: dict[str, _Minute] = {}

    def admit(self, plugin: str, kind: str, now: float) -> bool:
        """Whether a line of `kind` caused by `plugin` is written now; if not, it is counted.

        Ask `due(now, plugin)` first: a minute that has ended is forgotten here, skipped lines and all."""
        minute = self._minutes.get(plugin)
        if minute is None or now - minute.started >= MINUTE:
            minute = self._minutes[plugin] = _Minute(started=now)
        if minute.written < self._limit:
            minute.written += 1
            return True
        minute.skipped[kind] = minute.skipped.get(kind, 0) + 1
        return False

    def due(self, now: float, plugin: str | None = None) -> list[Skipped]:
        """The summaries of every minute that has ended (of `plugin` alone, if given); those minutes are closed."""
        names = list(self._minutes) if plugin is None else [plugin]
        ended: list[Skipped] = []
        for name in names:
            minute = self._minutes.get(name)
            if minute is None or now - minute.started < MINUTE:
                continue
            del self._minutes[name]
            ended.extend(Skipped(name, kind, count) for kind, count in minute.skipped.items())
        return ended
