"""What the gate decides about one call (A3), and the player's "for this session" answers.

A decision is one of three values, matched with ``match``:

* :class:`Allow` - run it (``reason`` is ``"allowed"`` or ``"approved_session"``, for the audit log);
* :class:`Ask` - show the approval window for these capabilities first;
* :class:`Deny` - refuse, with a message for the assistant that names the setting to change.

:class:`SessionGrants` remembers "approve for this session" answers per plugin, tool and scope (the
whole call, or one capability asked for during a call) until the plugin or the host reloads, the
plugin is suspended or disabled, or the player clears them. They are never persisted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["WHOLE_CALL", "Allow", "Ask", "Decision", "Deny", "SessionGrants"]

WHOLE_CALL: Final = "*call"
"""The session scope of an approval for a whole call (rather than one capability during it)."""


@dataclass(frozen=True, slots=True)
class Allow:
    reason: str = "allowed"


@dataclass(frozen=True, slots=True)
class Ask:
    """Ask the player about ``capabilities``; a ``critical`` ask can't be remembered for the session."""

    capabilities: tuple[str, ...]
    critical: bool = False


@dataclass(frozen=True, slots=True)
class Deny:
    """Refuse with ``message``; ``flagged`` marks a request the plugin should never have made."""

    message: str
    reason: str = "blocked"
    flagged: bool = False


Decision = Allow | Ask | Deny


class SessionGrants:
    """The "approve for this session" answers, in memory only, on the event loop (see `Host`)."""

    def __init__(self) -> None:
        self._grants: set[tuple[str, str, str]] = set()

    def grant(self, plugin: str, tool: str, scope: str = WHOLE_CALL) -> None:
        self._grants.add((plugin, tool, scope))

    def has(self, plugin: str, tool: str, scope: str = WHOLE_CALL) -> bool:
        return (plugin, tool, scope) in self._grants

    def covers(self, plugin: str, tool: str, capability: str) -> bool:
        """Whether the whole call, or this one capability of the tool, was approved for the session."""
        return (plugin, tool, WHOLE_CALL) in self._grants or (plugin, tool, capability) in self._grants

    def clear(self, plugin: str) -> int:
        """Forgets every grant of a plugin; returns how many there were."""
        mine = {g for g in self._grants if g[0] == plugin}
        self._grants -= mine
        return len(mine)

    def count(self, plugin: str) -> int:
        return sum(1 for g in self._grants if g[0] == plugin)
