"""A call as the assistant makes it: decide (allow / ask / deny), then run the tool (A3, A5).

call_tool ─► XIV MCP's own tool? ─► CoreTools (core trust, always allowed)
          └► the player's settings: deny ─► the refusal, for the assistant
                                    ask  ─► an approval window, then allow or deny
                                    allow ─► the plugin's Invoke (PluginCalls) ─► audit
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from gates.contract import HOST_NAME, ApprovalState, ToolDefinition, encode_json, find_capability, quote

from ._approvals import PLUGIN_LEFT, Approval, ApprovalKind
from ._audit import AuditKind
from ._calls import CallOutcome, PluginCalls
from ._core_tools import CoreTools
from ._decision import Allow, Ask, Deny
from ._errors import ApprovalError
from ._state import HostState

__all__ = ["CallPath"]


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
    ) -> CallOutcome:
        """Decide (allow / ask / deny) and run a tool; errors are written for the assistant.

        A direct call (not `as_step`) of a tool that changes something is refused while a job's
        acting step runs (J8); `on_started` gets a plugin call's id (see `PluginCalls.invoke`).

        `on_approval` hears of each approval the call waits for: before it runs, and those the
        plugin asks for during it (the command line tells the player which one to answer)."""
        registered = self._registry.get(name)
        if registered is None:
            return CallOutcome(error=self._unknown(name))
        if registered.owner == HOST_NAME:  # XIV MCP's own tools: core trust, always allowed (A5)
            return await self._core.call(name, arguments or {}, on_progress)
        owner, definition = registered.owner, registered.definition
        if not as_step and not definition.read_only and (busy := self.acting_refusal(name)) is not None:
            return CallOutcome(error=busy)
        args_json = encode_json(arguments or {})
        decision = self._policies.decide(owner, definition)
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
        return await self._calls.invoke(
            owner, name, args_json, on_progress=on_progress, on_approval=on_approval, on_started=on_started
        )

    def _unknown(self, name: str) -> str:
        owner = self._policies.consented_owner(name)
        if owner is not None:  # a tool of a plugin that is away (restarting, or not started yet)
            return (
                f"{quote(name)} is a tool of {owner}, which is not connected to XIV MCP right now; "
                "nothing was run. Try again once it is back (get_plugin_status shows when)."
            )
        return f"There is no tool named {quote(name)}. List the tools (tools/list) and try again."

    async def _ask_player(
        self, owner: str, definition: ToolDefinition, ask: Ask, on_approval: Callable[[Approval], None] | None
    ) -> Allow | Deny:
        titles = [c.title for c in map(find_capability, ask.capabilities) if c is not None]
        summary = f"{owner} wants to run {definition.name}" + (f" ({', '.join(titles)})" if titles else "")
        try:
            approval = self._approvals.request(
                ApprovalKind.BEFORE_CALL, None, owner, definition.name, ask.capabilities, summary, ask
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
        how = "did not answer within two minutes" if decided.reason == "expired" else "declined it"
        return Deny(
            f"The player was asked to approve {definition.name} ({approval.id}) and {how}; nothing was run. "
            "Ask the player, or have them set it to Allow in /xivmcp.",
            reason="declined",
        )

    def call_finished(self, call_id: str, owner: str, tool: str, outcome: CallOutcome) -> None:
        """`PluginCalls` reports each call it ends: one audit line per call."""
        details: dict[str, Any] = {"callId": call_id, "ok": outcome.ok}
        if outcome.error is not None:
            details["error"] = outcome.error[:500]
        self._audit.record(AuditKind.CALL, owner, tool, details=details)
