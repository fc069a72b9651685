"""What the player does at the /xivmcp window: decide about plugins, set modes, answer approvals.

Each action writes the decision through the policies (persisted before it returns), records it
in the audit log and says that the offered tools may have changed. A refusal is a
`RefusedError` whose message the player reads.
"""

from __future__ import annotations

from collections.abc import Callable

from gates.contract import (
    CAPABILITY_IDS,
    Answer,
    ApprovalState,
    Mode,
    PluginState,
    RefusedError,
    Risk,
    find_capability,
    quote,
)

from ._approvals import Approval, ApprovalKind
from ._audit import AuditKind
from ._clock import Clock, ManualClock
from ._errors import SettingError
from ._records import Registration, registration_digest
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

    def enable(self, plugin: str, digest: str | None = None) -> PluginState:
        """Enable (or consent again to) what the player was shown: with `digest`, exactly that
        registration; one that grew since is refused, saying what is new."""
        shown = self._registrations.shown(plugin)
        self._check_seen(plugin, shown, digest)
        self._policies.enable(plugin, shown, shown)
        self._audit.record(AuditKind.CONSENT, plugin, details={"tools": sorted(shown)})
        self._changed(plugin)
        return self._policies.state(plugin)

    def keep_disabled(self, plugin: str) -> PluginState:
        # No digest needed: keeping a plugin disabled consents to nothing.
        self._policies.keep_disabled(plugin, self._registrations.shown(plugin))
        self._audit.record(AuditKind.CONSENT, plugin, details={"keptDisabled": True})
        self._changed(plugin)
        return self._policies.state(plugin)

    def _check_seen(self, plugin: str, shown: Registration, digest: str | None) -> None:
        if digest is None or digest == registration_digest(shown):
            return
        review = self._policies.review(plugin, shown)
        news = []
        if review.new_tools:
            news.append(f"new tools {', '.join(review.new_tools)}")
        if review.new_capabilities:
            news.append(f"new capabilities {', '.join(review.new_capabilities)}")
        what = "; ".join(news) or "tools or capabilities changed"
        raise RefusedError(
            f"{plugin}'s registration changed since you looked ({what}); nothing was consented. "
            f"Look again with `xivmcp plugins`, then run `xivmcp enable {plugin}` again."
        )

    def lift(self, plugin: str) -> PluginState:
        state = self._policies.state(plugin)
        if state is not PluginState.SUSPENDED:
            raise RefusedError(f"{plugin} is not suspended (it is {state.value}).")
        state = self._policies.lift_suspension(plugin)
        self._audit.record(AuditKind.SUSPENSION, plugin, details={"lifted": True})
        self._changed(plugin)
        return state

    def suspend(self, plugin: str, reason: str) -> None:
        """T2: an undeclared effect suspends the plugin, with a reason, until the player lifts it."""
        self._policies.suspend(plugin, reason)
        self._audit.record(AuditKind.SUSPENSION, plugin, flagged=True, details={"reason": reason})
        self._changed(plugin)

    def set_mode(self, plugin: str, target: str, mode_text: str) -> str:
        if mode_text not in _MODES:
            raise RefusedError(f"{quote(mode_text)} is not a mode: use allow, ask, deny or default.")
        mode = _MODES[mode_text]
        if target in CAPABILITY_IDS:
            self._policies.set_capability_mode(plugin, target, mode)
        elif self._registry.owner_of(target) == plugin or target in self._policies.record(plugin).consented:
            if mode is Mode.ALLOW and (critical := self._critical_capabilities(plugin, target)):
                raise SettingError(
                    f"{target} declares {', '.join(critical)}, which is critical: it is asked every time and "
                    f"can't be set to allow. Set it to ask or deny, or use `xivmcp approve` each time."
                )
            self._policies.set_tool_mode(plugin, target, mode)
        else:
            raise RefusedError(
                f"{quote(target)} is neither a capability ({', '.join(CAPABILITY_IDS)}) "
                f"nor one of {quote(plugin)}'s tools."
            )
        self._audit.record(AuditKind.SETTING, plugin, details={"target": target, "mode": mode_text})
        self._changed(plugin)
        return mode_text

    def _critical_capabilities(self, plugin: str, tool: str) -> list[str]:
        """The critical capabilities a tool declares now, or did when the player consented to it."""
        registered = self._registry.get(tool)
        declared = (
            registered.definition.capabilities
            if registered is not None and registered.owner == plugin
            else self._policies.record(plugin).consented.get(tool, frozenset())
        )
        return sorted(c for c in declared if (cap := find_capability(c)) is not None and cap.risk is Risk.CRITICAL)

    def answer(self, approval_id: str, answer: Answer) -> Approval:
        approval = self._approvals.answer(approval_id, answer)
        registered = self._registry.get(approval.tool)
        if registered is not None and approval.state is ApprovalState.APPROVED:
            # "For this session" covers what was asked: the whole call before it ran, or the one
            # capability asked for during it.
            capability = approval.capabilities[0] if approval.kind is ApprovalKind.DURING_CALL else None
            self._policies.remember(approval.plugin, registered.definition, answer, capability)
            if answer is Answer.ALWAYS_ALLOW:
                self._changed(approval.plugin)
        return approval

    def advance_clock(self, seconds: float) -> float:
        if not isinstance(self._clock, ManualClock):
            raise RefusedError("The host runs on the real clock; start it with --test-clock to move time by hand.")
        self._clock.advance(seconds)
        self._expire_due()
        return self._clock.now()
