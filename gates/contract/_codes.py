"""The codes that cross the boundary between XIV MCP and a plugin, as ``StrEnum`` values.

Plugin states, the player's modes, risks, capability ids, dependency and approval states, and
the player's answers in an approval window. Codes are API: add values, never rename one.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Final

__all__ = [
    "Answer",
    "ApprovalState",
    "CapabilityId",
    "DependencyState",
    "JobState",
    "Mode",
    "PluginState",
    "Risk",
    "StepState",
    "strictest",
]


class PluginState(StrEnum):
    """Where a third-party plugin stands with the player."""

    UNDECIDED = "undecided"
    KEPT_DISABLED = "kept_disabled"
    ENABLED = "enabled"
    AWAITING_CONSENT = "awaiting_consent"
    SUSPENDED = "suspended"


class Mode(StrEnum):
    """The player's setting for a capability or a tool."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


_STRICTNESS: Final = {Mode.ALLOW: 0, Mode.ASK: 1, Mode.DENY: 2}


def strictest(modes: Iterable[Mode]) -> Mode:
    """The strictest of some modes (deny over ask over allow); allow if there are none."""
    return max(modes, key=_STRICTNESS.__getitem__, default=Mode.ALLOW)


class Risk(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class CapabilityId(StrEnum):
    """The capability ids of the catalog. Ids are API: never rename one, only add."""

    READ_GAME = "read_game"
    GAME_UI = "game_ui"
    MOVE_CHARACTER = "move_character"
    MOVE_ITEMS = "move_items"
    NETWORK = "network"
    COMBAT = "combat"
    SPEND_GIL = "spend_gil"
    SPEND_CURRENCY = "spend_currency"
    TRADE_ITEMS = "trade_items"
    CHAT_SEND = "chat_send"
    LOGIN = "login"
    EDIT_SETTINGS = "edit_settings"
    DISCARD_ITEMS = "discard_items"


class DependencyState(StrEnum):
    OK = "ok"
    NEEDS_PLUGIN = "needs_plugin"
    PLUGIN_MISSING = "plugin_missing"
    PLUGIN_NOT_LOADED = "plugin_not_loaded"
    PLUGIN_OUTDATED = "plugin_outdated"
    TOOL_MISSING = "tool_missing"
    NOT_ENABLED = "not_enabled"


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


class Answer(StrEnum):
    """The player's answer in an approval window."""

    APPROVE_ONCE = "approve_once"
    APPROVE_SESSION = "approve_session"
    ALWAYS_ALLOW = "always_allow"
    DECLINE = "decline"


class JobState(StrEnum):
    """Where a background job stands (seeds/002)."""

    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"
    PENDING = "pending"
    """A step failed: it waits for the assistant to retry, skip or change the steps (update_job)."""
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class StepState(StrEnum):
    """Where one step of a job stands: queued, running, then done, failed, interrupted or skipped."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    """It was running when the job was paused or cancelled (or XIV MCP restarted)."""
    SKIPPED = "skipped"
