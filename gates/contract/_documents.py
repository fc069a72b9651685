"""Every JSON document of the contract as a msgspec ``Struct``, with the wire's field names.

Python names are snake_case, the wire's camelCase (``inputSchema``, ``awaitingConsent``,
``approvalId``, ...). New fields get defaults; a field never changes type.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._catalog import CAPABILITIES
from ._codes import ApprovalState, DependencyState, JobState, Mode, PluginState, Risk, StepState

__all__ = [
    "ApprovalReply",
    "ApprovalRequest",
    "CallAccepted",
    "CapabilitiesReply",
    "CapabilityInfo",
    "CapabilityMode",
    "CheckPermissionReply",
    "DeclaredTool",
    "DependenciesReply",
    "DependencyDeclaration",
    "DependencyEntry",
    "ErrorReply",
    "InstallEntry",
    "InvokeError",
    "InvokePending",
    "InvokeReply",
    "InvokeResult",
    "Job",
    "JobInfo",
    "JobReply",
    "JobStep",
    "StepInfo",
    "JobsReply",
    "RegisterReply",
    "StatusReply",
    "ToolDefinition",
    "ToolMode",
    "UnregisterAllReply",
    "UnregisterReply",
    "Wire",
    "list_capabilities",
]


class Wire(msgspec.Struct, rename="camel"):
    """Base of the wire documents: snake_case in Python, camelCase on the wire."""


class ToolDefinition(msgspec.Struct, rename="camel", frozen=True, kw_only=True, omit_defaults=True):
    """``RegisterTool``'s definitionJson. ``inputSchema`` may be left out by a tool without arguments.

    ``outputSchema`` is this project's extension, not the contract's: the real XIV MCP host has no
    such field and ignores it (unknown fields are dropped when a definition is decoded), so a
    plugin that sends it registers the same there. Here the MCP front advertises it on tools/list
    and fills ``structuredContent`` from a result that is a JSON object (P5). It is left out of
    the JSON when None, and it is never part of what the player consents to (a schema says the
    shape of a result, not what the tool does).
    """

    name: str
    description: str
    input_schema: dict[str, Any] | None = None
    read_only: bool = False
    destructive: bool = False
    capabilities: list[str] = []
    output_schema: dict[str, Any] | None = None


class CapabilityInfo(Wire, kw_only=True):
    id: str
    risk: Risk
    title: str
    description: str
    default: Mode


class CapabilitiesReply(Wire, kw_only=True):
    capabilities: list[CapabilityInfo]


class CapabilityMode(Wire, kw_only=True):
    id: str
    mode: Mode


class RegisterReply(Wire, kw_only=True):
    name: str
    enabled: bool
    awaiting_consent: bool
    state: PluginState
    capabilities: list[CapabilityMode]


class UnregisterReply(Wire, kw_only=True):
    removed: bool


class UnregisterAllReply(Wire, kw_only=True):
    removed: int


class ToolMode(Wire, kw_only=True):
    """A tool as a whole in ``GetStatus``: its mode, and whether the player set it on its own."""

    name: str
    mode: Mode
    own: bool


class InstallEntry(Wire, kw_only=True, omit_defaults=True):
    """A plugin to install, enable or update; ``without`` says what XIV MCP does without it."""

    plugin: str
    name: str
    repo: str
    needed: bool
    installed: bool
    outdated: bool
    reason: str
    without: str | None = None


class DependencyEntry(Wire, kw_only=True):
    tool: str
    plugin: str | None
    state: DependencyState
    message: str
    install: list[InstallEntry]


class DeclaredTool(Wire, kw_only=True, omit_defaults=True):
    """One tool of a ``DeclareDependencies`` document: a built-in alone, another plugin's with all four fields."""

    tool: str
    plugin: str | None = None
    name: str | None = None
    repo: str | None = None
    min_version: str | None = None


class DependencyDeclaration(Wire, kw_only=True):
    tools: list[DeclaredTool]


class DependenciesReply(Wire, kw_only=True):
    dependencies: list[DependencyEntry]


class StatusReply(Wire, kw_only=True):
    state: PluginState
    can_run: bool
    suspend_reason: str | None
    tools: list[ToolMode]
    capabilities: list[CapabilityMode]
    dependencies: list[DependencyEntry]


class CheckPermissionReply(Wire, kw_only=True):
    capability: str
    mode: Mode
    enabled: bool
    suspended: bool
    state: PluginState


class ApprovalRequest(Wire, kw_only=True):
    """``RequestApproval``'s requestJson: ``{"capability": "spend_gil", "summary": "Repair for 3,200 gil"}``."""

    capability: str
    summary: str


class ApprovalReply(Wire, kw_only=True):
    approval_id: str
    state: ApprovalState


class CallAccepted(Wire, kw_only=True):
    """``CompleteCall`` / ``FailCall``: whether this ended the call (false if it had already ended)."""

    accepted: bool


class InvokeResult(Wire, kw_only=True):
    result: Any = None


class InvokeError(Wire, kw_only=True):
    error: str


class InvokePending(Wire, kw_only=True):
    pending: bool = True


InvokeReply = InvokeResult | InvokeError | InvokePending


class JobStep(Wire, kw_only=True, omit_defaults=True):
    """One step of a job: a tool to call with its arguments, run after the steps before it.

    `id` names the step for later steps' placeholders (`{{farm.kills}}` in an argument is the
    `kills` of step `farm`'s result); without one XIV MCP names it s1, s2, …. `note` is free text
    kept with the step and reported with it (`JobInfo.steps`).

        JobStep(id="farm", tool="myplugin_farm", args={"minutes": 30})
    """

    id: str = ""
    tool: str
    args: dict[str, Any] = {}
    note: str | None = None


class Job(Wire, kw_only=True):
    """``StartJob``'s jobJson."""

    name: str
    steps: list[JobStep]


class StepInfo(JobStep, kw_only=True, omit_defaults=False):
    """A step as the host reports it: what was asked, and how it went."""

    state: StepState = StepState.QUEUED
    result: Any = None
    error: str | None = None
    started: str | None = None
    finished: str | None = None
    attempts: int = 0


class JobInfo(Wire, kw_only=True):
    """A job as the host reports it (fields only ever get added, with defaults)."""

    id: str
    name: str
    state: JobState
    owner: str | None = None
    """The plugin that started it (InternalName), or None for the assistant's jobs."""
    steps: list[StepInfo] = []
    message: str | None = None
    """Why it waits (pending, paused, waiting for another job's acting step), or how it ended."""
    created: str = ""
    finished: str | None = None
    log: list[str] = []
    """The last lines of its log (progress, steps starting and ending), oldest first."""


class JobReply(Wire, kw_only=True):
    job: JobInfo


class JobsReply(Wire, kw_only=True):
    jobs: list[JobInfo]


class ErrorReply(Wire, kw_only=True):
    ok: bool = False
    error: str


def list_capabilities() -> CapabilitiesReply:
    """``ListCapabilities``'s document: the whole catalog with each entry's default mode."""
    return CapabilitiesReply(
        capabilities=[
            CapabilityInfo(id=c.id, risk=c.risk, title=c.title, description=c.description, default=c.default)
            for c in CAPABILITIES
        ]
    )
