"""What the player's commands answer, as typed values: the body of each `{"ok": true, …}` reply.

The host's desk returns these and `PlayerClient.send` decodes them, so a field renamed on one
side is renamed on the other, and a reply that lost a field fails where it is decoded. The
window's panels (plugins, modules) are in `_cards`; `ShowJob` answers the contract's `JobReply`.
Fields the player does not read are still sent: `--json` prints the whole reply.
"""

from __future__ import annotations

from typing import Any

from gates.contract import ApprovalState, JobState, PluginState, Wire

__all__ = [
    "ApprovalAnswer",
    "ApprovalsReport",
    "AuditLine",
    "AuditReport",
    "CallImage",
    "CallReply",
    "HostClock",
    "HostReset",
    "JobControlled",
    "JobSummary",
    "JobsReport",
    "ListedTool",
    "ModeDecision",
    "PendingApproval",
    "PluginDecision",
    "SettingChanged",
    "StatsReport",
    "ToolsReport",
]


class PluginDecision(Wire, kw_only=True):
    """`enable`, `consent`, `keep-disabled` and `lift`: where the plugin stands after it."""

    plugin: str
    state: PluginState
    changed: bool
    """False when there was nothing to do (it already was so)."""
    message: str
    """The sentence the player reads, as `xivmcp enable` prints it."""


class ModeDecision(PluginDecision, kw_only=True):
    """`mode`: where the plugin stands, and the setting as it was asked."""

    target: str
    """The capability id or tool name."""
    mode: str
    """allow, ask, deny or default."""


class PendingApproval(Wire, kw_only=True):
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
    critical: bool = False
    """Asked every time (a critical capability, a trade): only "approve once" and "decline" are
    offered, as the real window offers nothing to remember."""
    caller: str | None = None
    """The plugin whose job asked to run one of XIV MCP's own tools (None: the assistant asked);
    its "for this session" or "always" counts for that plugin's session only."""


class ApprovalsReport(Wire, kw_only=True):
    """`approvals`: those waiting, oldest first."""

    approvals: list[PendingApproval]


class ApprovalAnswer(Wire, kw_only=True):
    """`approve` and `decline`: the approval's state after the answer."""

    approval_id: str
    state: ApprovalState
    message: str


class AuditLine(Wire, kw_only=True):
    """One line of the audit log, every field sent (the host's file leaves the defaults out)."""

    time: str
    kind: str
    """An `AuditKind` of the host: call, decision, approval, registration, consent, suspension, ..."""
    plugin: str | None = None
    tool: str | None = None
    flagged: bool = False
    details: dict[str, Any] = {}


class AuditReport(Wire, kw_only=True):
    """`audit`: the newest lines, oldest first."""

    entries: list[AuditLine]


class CallImage(Wire, kw_only=True, omit_defaults=True):
    """An image a call returned besides its result (take_screenshot's): the assistant gets it as
    an image content, after its caption."""

    mime_type: str
    data: bytes
    """The image itself (base64 on the wire, as msgspec writes bytes in JSON)."""
    caption: str | None = None


class CallReply(Wire, kw_only=True, omit_defaults=True):
    """`call`, as the assistant gets it: the tool's result, or the error it reads.

    On the wire a result is ``{"result": …}`` and a failure ``{"isError": true, "error": "…"}``:
    what is at its default is left out (so a result of null is sent as no result at all).
    """

    result: Any = None
    is_error: bool = False
    error: str | None = None
    """The text the assistant reads when the call was refused or failed."""
    images: list[CallImage] = []
    """Images besides the result, in order (none for most tools)."""
    suspended_plugin: str | None = None
    """For the player, not what the assistant gets: the plugin this call suspended (it did
    something it did not declare), with `suspend_reason`; `xivmcp call` says so on stderr."""
    suspend_reason: str | None = None


class StatsReport(Wire, kw_only=True):
    """`stats`: what the host has under way."""

    calls: int
    """Calls waiting for plugins."""
    approvals: int
    """Approvals waiting for the player."""


class JobSummary(Wire, kw_only=True):
    """One line of `jobs` (and an item of the assistant's `list_jobs`)."""

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


class JobsReport(Wire, kw_only=True):
    """`jobs`: the newest first."""

    jobs: list[JobSummary]


class JobControlled(Wire, kw_only=True):
    """`job pause|resume|cancel`: the job as it was answered, and what happens now."""

    job: JobSummary
    message: str


class HostClock(Wire, kw_only=True):
    """`advance-clock`: the host's test clock after the move, in seconds."""

    now: float


class HostReset(Wire, kw_only=True):
    """`reset` (a --test-clock host): what XIV MCP forgot to be back at its start."""

    plugins: list[str]
    """The plugins forgotten: every one not on the bus (a connected plugin keeps its decisions)."""
    approvals: int
    settings: int
    jobs: int
    message: str


class SettingChanged(Wire, kw_only=True):
    """`module` and `tool`: the sentence the player reads."""

    message: str


class ListedTool(Wire, kw_only=True):
    """One tool the assistant is offered now, as tools/list lists it."""

    name: str
    toolset: str
    """"core" for XIV MCP's own, else the InternalName of the plugin that registered it."""
    read_only: bool
    description: str
    """What the assistant reads (a plugin's with the real host's "[Provided by …]" suffix)."""
    simulator_only: bool = False
    """One of this simulator's own tools, which the real XIV MCP does not have."""


class ToolsReport(Wire, kw_only=True):
    """`xivmcp tools`: the tools the assistant is offered now, by name, as tools/list lists them."""

    tools: list[ListedTool]


class ConsoleTicket(Wire, kw_only=True):
    """`xivmcp console`: a one-time ticket for the console's login link (`/console/login?ticket=…`)."""

    ticket: str
    seconds: float
    """How long the ticket works (real seconds); it works once."""
