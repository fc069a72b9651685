"""What the player's commands answer, as typed values: the host's JSON replies, decoded and checked.

Each is a frozen msgspec Struct converted from the reply of one `XivMcp.Player` command (fields
the kit does not read, such as "ok", are left out), so a test reads `decision.state`, not
`reply["state"]`, and a reply that no longer has a field fails loudly where it is decoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from gates.contract import ApprovalState, JobState, PluginState

__all__ = [
    "ApprovalAnswer",
    "CallReply",
    "ClockAdvanced",
    "HostReset",
    "JobControlled",
    "JobSummary",
    "PendingApproval",
    "PlayerError",
    "PluginDecision",
]


class PlayerError(Exception):
    """XIV MCP refused one of the player's commands; the message is the host's, as `xivmcp` prints it."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"XIV MCP refused the player's `{command}`: {message}")
        self.command = command
        self.message = message
        """The host's own message: what was wrong, and what to do instead."""


class _Reply(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    pass


class PluginDecision(_Reply, frozen=True):
    """`enable`, `consent`, `keep_disabled`, `lift` and `mode`: where the plugin stands after it."""

    plugin: str
    state: PluginState
    changed: bool
    """False when there was nothing to do (it already was so)."""
    message: str
    """The sentence the player reads, as `xivmcp enable` prints it."""


class PendingApproval(_Reply, frozen=True):
    """An approval that waits for the player (`approvals`)."""

    approval_id: str
    plugin: str
    tool: str
    kind: str
    """"before_call" (the whole call, asked before it runs) or "during_call" (`request_approval`)."""
    capabilities: list[str]
    summary: str
    seconds_left: float | None
    """Before the window declines by itself (on the host's clock), or None if it never does."""


class ApprovalAnswer(_Reply, frozen=True):
    """`approve` and `decline`: the approval's state after the answer."""

    approval_id: str
    state: ApprovalState
    message: str


class CallReply(_Reply, frozen=True):
    """`call`, as the assistant gets it: the tool's result, or the error it reads."""

    result: Any = None
    is_error: bool = False
    error: str | None = None
    """The text the assistant reads when the call was refused or failed."""


class JobSummary(_Reply, frozen=True):
    """One line of `jobs`."""

    id: str
    name: str
    state: JobState
    owner: str | None
    """The plugin that started it, or None for the assistant's jobs."""
    step: str | None
    """The step it is at (None once every step is done or skipped)."""
    steps: int
    message: str | None
    """Why it waits, or how it ended."""


class JobControlled(_Reply, frozen=True):
    """`pause_job`, `resume_job` and `cancel_job`: the job as it was answered, and what happens now."""

    job: JobSummary
    message: str


class HostReset(_Reply, frozen=True):
    """`reset` (a --test-clock host): what XIV MCP forgot to be back at its start."""

    plugins: list[str]
    """The plugins forgotten: every one not on the bus (a connected plugin keeps its decisions)."""
    approvals: int
    jobs: int
    settings: int
    message: str


@dataclass(frozen=True, slots=True)
class ClockAdvanced:
    """`advance_clock`: the host's clock and the game's, moved together as `xivmcp advance-clock` does."""

    host_time: float
    game_time: float | None
    """None when no game on the test clock was there to move (`game_message` says why)."""
    game_message: str = ""
