"""What the player does at the /xivmcp window: decide about plugins, set modes, answer approvals.

Each action writes the decision through the policies (persisted before it returns), records it
in the audit log and says that the offered tools may have changed. A refusal is a
`RefusedError` whose message the player reads.
"""

from __future__ import annotations

from collections.abc import Callable

from gates.contract import CAPABILITY_IDS, Answer, ApprovalState, Mode, PluginState, RefusedError, quote

from ._approvals import Approval, ApprovalKind
from ._audit import AuditKind
from ._clock import Clock, ManualClock
from ._state import HostState

__all__ = ["PlayerActions"]

_MODES = {"allow": Mode.ALLOW, "ask": Mode.ASK, "deny": Mode.DENY, "default": None}


class PlayerActions:
    """The player's decisions, as the `XivMcp.Player` gate (and so `xivmcp …`) makes them."""

    def __init__(
        self,
        state: HostState,
        *,
        clock: Clock,
        expire_due: Callable[[], None],
    ) -> None:
        self._registry = state.registry
        self._policies = state.policies
        self._registrations = state.registrations
        self._approvals = state.approvals
        self._audit = state.audit
        self._changed = state.changed
        self._clock = clock
        self._expire_due = expire_due

    def enable(self, plugin: str) -> PluginState:
        shown = self._registrations.shown(plugin)
        self._policies.enable(plugin, shown, shown)
        self._audit.record(AuditKind.CONSENT, plugin, details={"tools": sorted(shown)})
        self._changed()
        return self._policies.state(plugin)

    def keep_disabled(self, plugin: str) -> PluginState:
        self._policies.keep_disabled(plugin, self._registrations.shown(plugin))
        self._audit.record(AuditKind.CONSENT, plugin, details={"keptDisabled": True})
        self._changed()
        return self._policies.state(plugin)

    def lift(self, plugin: str) -> PluginState:
        state = self._policies.state(plugin)
        if state is not PluginState.SUSPENDED:
            raise RefusedError(f"{plugin} is not suspended (it is {state.value}).")
        state = self._policies.lift_suspension(plugin)
        self._audit.record(AuditKind.SUSPENSION, plugin, details={"lifted": True})
        self._changed()
        return state

    def suspend(self, plugin: str, reason: str) -> None:
        """T2: an undeclared effect suspends the plugin, with a reason, until the player lifts it."""
        self._policies.suspend(plugin, reason)
        self._audit.record(AuditKind.SUSPENSION, plugin, flagged=True, details={"reason": reason})
        self._changed()

    def set_mode(self, plugin: str, target: str, mode_text: str) -> str:
        if mode_text not in _MODES:
            raise RefusedError(f"{quote(mode_text)} is not a mode: use allow, ask, deny or default.")
        mode = _MODES[mode_text]
        if target in CAPABILITY_IDS:
            self._policies.set_capability_mode(plugin, target, mode)
        elif self._registry.owner_of(target) == plugin or target in self._policies.record(plugin).consented:
            self._policies.set_tool_mode(plugin, target, mode)
        else:
            raise RefusedError(
                f"{quote(target)} is neither a capability ({', '.join(CAPABILITY_IDS)}) "
                f"nor one of {quote(plugin)}'s tools."
            )
        self._audit.record(AuditKind.SETTING, plugin, details={"target": target, "mode": mode_text})
        self._changed()
        return mode_text

    def answer(self, approval_id: str, answer: Answer) -> Approval:
        approval = self._approvals.answer(approval_id, answer)
        registered = self._registry.get(approval.tool)
        if registered is not None and approval.state is ApprovalState.APPROVED:
            # "For this session" covers what was asked: the whole call before it ran, or the one
            # capability asked for during it.
            capability = approval.capabilities[0] if approval.kind is ApprovalKind.DURING_CALL else None
            self._policies.remember(approval.plugin, registered.definition, answer, capability)
            if answer is Answer.ALWAYS_ALLOW:
                self._changed()
        return approval

    def advance_clock(self, seconds: float) -> float:
        if not isinstance(self._clock, ManualClock):
            raise RefusedError("The host runs on the real clock; start it with --test-clock to move time by hand.")
        self._clock.advance(seconds)
        self._expire_due()
        return self._clock.now()
