"""A call as the assistant makes it: decide (allow / ask / deny), then run the tool (A3, A5).

call_tool ─► XIV MCP's own tool? ─► its module's settings (deny, ask, allow) ─► CoreTools
          └► the player's settings: deny ─► the refusal, for the assistant
                                    ask  ─► an approval window, then allow or deny
                                    allow ─► the plugin's Invoke (PluginCalls) ─► audit

A job step naming one of the real host's built-ins that the simulated game does not perform (F1)
is decided by its module as the real host's ToolGate decides it (turned off, deny, ask), and where
the real host would then run the tool, it fails saying it is not simulated here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, Final

import anyio

from gates.contract import (
    BUILTIN_TOOLS,
    HOST_NAME,
    NOT_FOR_PLUGINS,
    ApprovalState,
    CapabilityId,
    Mode,
    PluginState,
    Risk,
    ToolDefinition,
    encode_json,
    find_capability,
    quote,
)

from ..base._audit import AuditKind
from ..base._call_outcome import CallOutcome
from ..base._errors import ApprovalError
from ..policy._approvals import PLUGIN_LEFT, Approval, ApprovalKind
from ..policy._builtin_capabilities import builtin_capabilities
from ..policy._decision import Allow, Ask, Decision, Deny
from ..policy._modules import JOBS_MODULE
from ..policy._side_effects import SUSPEND_WINDOW, suspension_reason
from ..policy._state import HostState
from ..tools._core_tools import CoreTools
from ._call_end import CallEnd
from ._plugin_calls import PluginCalls

__all__ = ["CallPath", "not_simulated"]

READ_GAME: Final = CapabilityId.READ_GAME.value
_STRICTNESS = (Mode.ALLOW, Mode.ASK, Mode.DENY)
"""The real host's PolicyMode order: a later mode is stricter."""


def not_simulated(tool: str) -> str:
    """Why a job step of one of the real host's built-ins fails here once its module let it run."""
    return f"XIV MCP's {tool} is not simulated here: skip the step with update_job, or test the job up to it."


class CallPath:
    """Runs a tool by name for the assistant (MCP, `call_tool`, `xivmcp call`); errors are written for it."""

    def __init__(
        self,
        state: HostState,
        *,
        calls: PluginCalls,
        core: CoreTools,
    ) -> None:
        self._registry = state.registry
        self._policies = state.policies
        self._approvals = state.approvals
        self._audit = state.audit
        self._changed = state.changed
        self._modules = state.modules
        self._installed = state.installed
        self._calls = calls
        self._core = core
        self.acting_refusal: Callable[[str], str | None] = lambda tool: None
        """J8: why a direct call of this changing tool must wait (a job's acting step runs), or None.
        The job runner sets it; until then nothing is acting."""

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        on_progress: Callable[[str], None] | None = None,
        on_approval: Callable[[Approval], None] | None = None,
        on_started: Callable[[str], None] | None = None,
        as_step: bool = False,
        caller: str | None = None,
    ) -> CallOutcome:
        """Decide (allow / ask / deny) and run a tool; errors are written for the assistant.

        `caller` is the plugin whose job runs the step (None: the assistant): as in the real host's
        ToolGate, a plugin is held to its own permissions as well (the stricter of both decides
        for XIV MCP's own tools; another plugin's tool is refused if the caller may not do what it
        declares), and its session approvals are its own.

        A direct call (not `as_step`) of a tool that changes something is refused while a job's
        acting step runs (J8); `on_started` gets a plugin call's id (see `PluginCalls.invoke`).

        `on_approval` hears of each approval the call waits for: before it runs, and those the
        plugin asks for during it (the command line tells the player which one to answer)."""
        registered = self._registry.get(name)
        if registered is None:
            if as_step and (builtin := BUILTIN_TOOLS.get(name)) is not None:  # F1: known, not simulated
                known = ToolDefinition(name=name, description=builtin.summary, read_only=builtin.read_only)
                return await self._call_core(
                    known, arguments or {}, on_progress, on_approval, as_step, simulated=False, caller=caller
                )
            return CallOutcome(error=self._unknown(name))
        owner, definition = registered.owner, registered.definition
        if owner == HOST_NAME:  # XIV MCP's own tools: gated by their module (A5, W5)
            return await self._call_core(definition, arguments or {}, on_progress, on_approval, as_step, caller=caller)
        if not as_step and not definition.read_only and (busy := self.acting_refusal(name)) is not None:
            return CallOutcome(error=busy)
        if caller is not None and caller != owner and self._caller_mode(caller, definition.capabilities) is Mode.DENY:
            # A plugin's job running another plugin's tool: the caller must be allowed what it does too.
            who = self._installed.display_name(caller)
            message = (
                f"{who} may not use {name}: what it does isn't allowed for {who} in /xivmcp → Third-party plugins."
            )
            self._audit.record(
                AuditKind.DECISION,
                owner,
                name,
                details={"decision": "deny", "reason": "not_allowed_for_caller", "caller": caller, "message": message},
            )
            return CallOutcome(error=message)
        args_json = encode_json(arguments or {})
        decision = self._policies.decide(owner, definition, self._installed.display_name(owner))
        if isinstance(decision, Ask):
            decision = await self._ask_player(owner, definition, decision, on_approval)
        if isinstance(decision, Deny):
            self._audit.record(
                AuditKind.DECISION,
                owner,
                name,
                flagged=decision.flagged,
                details={"decision": "deny", "reason": decision.reason, "message": decision.message},
            )
            return CallOutcome(error=decision.message)
        outcome = await self._calls.invoke(
            owner,
            definition,
            args_json,
            on_progress=on_progress,
            on_approval=on_approval,
            on_started=on_started,
        )
        return dataclasses.replace(outcome, from_plugin=True) if outcome.ok else outcome

    async def _call_core(
        self,
        definition: ToolDefinition,
        arguments: dict[str, Any],
        on_progress: Callable[[str], None] | None,
        on_approval: Callable[[Approval], None] | None,
        as_step: bool,
        *,
        simulated: bool = True,
        caller: str | None = None,
    ) -> CallOutcome:
        """One of XIV MCP's own tools: its module's reading or changes mode decides (deny, ask,
        allow); a tool in no module (echo, search_tools, call_tool, ...) always runs. One the
        simulated game does not perform is decided alike, then fails instead of running."""
        name, read_only = definition.name, definition.read_only
        module = self._modules.module_of(name)
        if module is None:
            return await self._core.call(name, arguments, on_progress)
        acting = not read_only and module.id != JOBS_MODULE  # the job tools steer jobs, they do not act
        if acting and not as_step and (busy := self.acting_refusal(name)) is not None:
            return CallOutcome(error=busy)
        key = self._modules.session_key(name, read_only)
        uses = builtin_capabilities(name, module.id, read_only)  # what it does, as the real host maps it
        if caller is None:
            session = self._policies.sessions.has(HOST_NAME, name, key)
            decision = self._modules.decide(name, read_only, session_approved=session)
        else:
            decision = self._decide_for_plugin(caller, name, uses, self._modules.decide(name, read_only), key)
        if isinstance(decision, Ask):
            access = "reading" if read_only else "changes"
            ask = Ask(tuple(c for c in uses if c != READ_GAME))  # the window's, as InvokeBuiltInAsync asks
            asked_by = "" if caller is None else f", asked by {self._installed.display_name(caller)}"
            decision = await self._ask_player(
                HOST_NAME,
                definition,
                ask,
                on_approval,
                summary=f"XIV MCP wants to run {name} ({module.title}, {access}{asked_by})",
                caller=caller,
            )
        if isinstance(decision, Deny):
            self._audit.record(
                AuditKind.DECISION,
                HOST_NAME,
                name,
                details={"decision": "deny", "reason": decision.reason, "module": module.id},
            )
            return CallOutcome(error=decision.message)
        if simulated:
            outcome = await self._core.call(name, arguments, on_progress)
        else:
            outcome = CallOutcome(error=not_simulated(name))
        if not read_only:
            details: dict[str, Any] = {"ok": outcome.ok, "module": module.id, "decision": decision.reason}
            if outcome.error is not None:
                details["error"] = outcome.error[:500]
            self._audit.record(AuditKind.CALL, HOST_NAME, name, details=details)
        return outcome

    def _caller_mode(self, caller: str, capabilities: Iterable[str]) -> Mode:
        """The strictest mode the calling plugin has for these capabilities (reading counts as
        allowed; Deny while the plugin cannot run), as the real host's PluginModeFor."""
        acting = [c for c in capabilities if c != READ_GAME and find_capability(c) is not None]
        modes = [self._policies.check_permission(caller, c) for c in acting or [READ_GAME]]
        return max(modes, key=_STRICTNESS.index)

    def _decide_for_plugin(
        self, caller: str, name: str, uses: tuple[str, ...], module: Decision, key: str
    ) -> Decision:
        """One of XIV MCP's own tools, `name`, doing what `uses` says, in a plugin's job: the
        module's settings and the plugin's own permissions, the stricter deciding, in the real
        host's order (ToolGate.InvokeBuiltInAsync)."""
        if isinstance(module, Deny) and module.reason == "module_off":
            return module
        who = self._installed.display_name(caller)
        if name in NOT_FOR_PLUGINS:
            return Deny(f"{name} is not available to plugins (asked by {who}).", reason="not_for_plugins")
        mode = self._caller_mode(caller, uses)
        if mode is Mode.DENY:
            return Deny(
                f"{who} may not use {name}: what it does isn't allowed for {who} in /xivmcp → Third-party plugins "
                "(or the plugin isn't enabled there).",
                reason="not_allowed_for_caller",
            )
        if isinstance(module, Deny) or (isinstance(module, Allow) and mode is Mode.ALLOW):
            return module
        critical = any((cap := find_capability(c)) is not None and cap.risk is Risk.CRITICAL for c in uses)
        if not critical and self._policies.sessions.has(caller, name, key):  # the plugin's own session
            return Allow("approved_session")
        return Ask(())

    def _unknown(self, name: str) -> str:
        owner = self._policies.consented_owner(name)
        if owner is not None:  # a tool of a plugin that is away (restarting, or not started yet)
            return (
                f"{quote(name)} is a tool of {owner}, which is not connected to XIV MCP right now; "
                "nothing was run. Try again once it is back (get_plugin_status shows when)."
            )
        return f"There is no tool named {quote(name)}. List the tools (tools/list) and try again."

    async def _ask_player(
        self,
        owner: str,
        definition: ToolDefinition,
        ask: Ask,
        on_approval: Callable[[Approval], None] | None,
        summary: str | None = None,
        caller: str | None = None,
    ) -> Allow | Deny:
        if summary is None:
            titles = [c.title for c in map(find_capability, ask.capabilities) if c is not None]
            summary = f"{owner} wants to run {definition.name}" + (f" ({', '.join(titles)})" if titles else "")
        try:
            approval = self._approvals.request(
                ApprovalKind.BEFORE_CALL, None, owner, definition.name, ask.capabilities, summary, ask, caller=caller
            )
        except ApprovalError as exc:  # B7: too many windows open for this plugin already
            return Deny(f"{exc} Nothing was run.", reason="too_many_approvals")
        if on_approval is not None:
            on_approval(approval)
        try:
            decided = await self._approvals.wait_decided(approval.id)
        except anyio.get_cancelled_exc_class():
            # The caller gave up: close the window rather than leave the player a question that
            # no longer runs anything.
            self._approvals.withdraw(approval.id)
            raise
        if decided.state is ApprovalState.APPROVED:
            return Allow("approved")
        if decided.reason == PLUGIN_LEFT:
            return Deny(
                f"{owner} left the bus while the player was asked to approve {definition.name} "
                f"({approval.id}); nothing was run. Try again once it is back.",
                reason="plugin_left",
            )
        # The real host's words (ToolGate), for a window declined or left to time out alike; which one
        # it was is in the audit log.
        if owner == HOST_NAME:
            return Deny(f"The player declined {definition.name}.", reason="declined")
        asked = ", ".join(c.title for c in map(find_capability, ask.capabilities) if c is not None)
        return Deny(f"The player declined {definition.name} ({asked}).", reason="declined")

    def call_finished(self, end: CallEnd) -> None:
        """`PluginCalls` reports each call it ends: one audit line per call, with its effects and
        the verdict on them (T2, A4, W4).

        An undeclared effect of a call shorter than two minutes suspends the plugin and clears its
        session approvals; a longer call is only flagged (the player may have acted meanwhile)."""
        verdict, outcome = end.verdict, end.outcome
        undeclared = verdict.undeclared
        suspend = bool(undeclared) and end.seconds < SUSPEND_WINDOW
        details: dict[str, Any] = {"callId": end.call_id, "ok": outcome.ok, "seconds": round(end.seconds, 3)}
        if outcome.error is not None:
            details["error"] = outcome.error[:500]
        details.update(verdict.to_json())
        if explanation := verdict.explain(end.owner):
            details["explanation"] = explanation  # who really did it: the verdict stands (F4)
        details.update(end.notes)
        if verdict.effects and not outcome.ok:
            details["changedOnError"] = True  # it refused, yet the game changed: a refused call must change nothing
        if undeclared:
            details["verdict"] = "suspended" if suspend else "flagged (the call took two minutes or more)"
        self._audit.record(AuditKind.CALL, end.owner, end.tool, flagged=bool(undeclared), details=details)
        if suspend and self._policies.state(end.owner) is not PluginState.SUSPENDED:
            self.suspend(end.owner, suspension_reason(end.tool, undeclared), tool=end.tool, call_id=end.call_id)

    def suspend(self, plugin: str, reason: str, *, tool: str | None = None, call_id: str | None = None) -> None:
        """T2, W4: suspend the plugin with a reason (its session approvals go with it) until the player lifts it."""
        self._policies.suspend(plugin, reason)
        details = {"reason": reason} if call_id is None else {"reason": reason, "callId": call_id}
        self._audit.record(AuditKind.SUSPENSION, plugin, tool, flagged=True, details=details)
        self._changed(plugin)
