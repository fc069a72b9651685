"""Approvals: the player's window before a call (an "ask" tool) and during one (``XivMcp.RequestApproval``, G8, G9).

An approval is born from the gate's :data:`~gates.host.policy._decision.Decision`:

* allowed (or approved for this session) - ``approved`` at once;
* blocked, or a capability the tool did not declare - ``denied`` at once (the latter flagged);
* ask - ``pending`` until the player answers (approve once / for this session / always allow, or
  decline), or until :data:`APPROVAL_TIMEOUT` seconds pass, which counts as declined.

Its :class:`ApprovalKind` says whether it guards a whole call before it runs (``BEFORE_CALL``,
no call id yet, every capability the call needs) or one capability a plugin asks for during a
call (``DURING_CALL``, with the call's id). Time comes from an injected
:class:`~gates.host.base._clock.Clock`; nothing here sleeps. The host calls :meth:`Approvals.expire_due`
from a periodic task, and coroutines await :meth:`Approvals.wait_decided`. Like all of the host's
state, approvals belong to the event loop (see `Host`): requests, answers and expiry happen there,
so no lock guards them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Final

import anyio

from gates.contract import Answer, ApprovalReply, ApprovalState, quote

from ..base._audit import AuditKind, AuditLog
from ..base._clock import Clock, SystemClock
from ..base._errors import ApprovalError
from ..base._ids import IdMaker
from ..base._listeners import Listeners
from ._decision import Allow, Ask, Decision, Deny

__all__ = [
    "APPROVAL_TIMEOUT",
    "PLUGIN_LEFT",
    "SUMMARY_LIMIT",
    "SUMMARY_NEEDED",
    "Approval",
    "ApprovalKind",
    "Approvals",
]

APPROVAL_TIMEOUT: Final = 120.0
"""Seconds an approval window stays open before it counts as declined."""

SUMMARY_LIMIT: Final = 200
"""Characters of a summary the player is shown and the audit keeps (the real host cuts it there too)."""
SUMMARY_NEEDED: Final = "The request needs a 'summary' the player can decide on, e.g. \"Buy 3 potions for 1,200 gil\"."
PLUGIN_LEFT: Final = "plugin_left"
"""The reason of an approval withdrawn because its plugin left the bus."""


class ApprovalKind(Enum):
    """What an approval guards."""

    BEFORE_CALL = "before_call"
    """A whole call of an "ask" tool, before it runs: every capability it needs."""
    DURING_CALL = "during_call"
    """One capability a plugin asks for during a call (``RequestApproval``), with the numbers."""


@dataclass(slots=True)
class Approval:
    id: str
    kind: ApprovalKind
    call_id: str | None
    """The call it belongs to; ``None`` before the call has started (``BEFORE_CALL``)."""
    plugin: str
    tool: str
    capabilities: tuple[str, ...]
    summary: str
    state: ApprovalState
    created: float
    deadline: float | None
    reason: str
    answer: Answer | None = None
    flagged: bool = False
    critical: bool = False
    """Asked every time (a critical ask): approving it for the session or always approves it once."""
    caller: str | None = None
    """The plugin whose job asked for one of XIV MCP's own tools (None: the assistant). Its answer
    "for this session" or "always" counts for that plugin's session only (the real host's Caller)."""

    def reply(self) -> ApprovalReply:
        return ApprovalReply(approval_id=self.id, state=self.state)


class Approvals:
    def __init__(
        self,
        clock: Clock | None = None,
        *,
        timeout: float = APPROVAL_TIMEOUT,
        audit: AuditLog | None = None,
        keep: int = 1024,
        tag: str | None = None,
        max_pending_per_plugin: int = 16,
    ) -> None:
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._timeout = timeout
        self._audit = audit
        self._keep = keep
        self._ids = IdMaker("a", tag, unguessable=True)  # S1
        self._max_pending = max_pending_per_plugin
        self._approvals: dict[str, Approval] = {}
        self._events: dict[str, anyio.Event] = {}
        self._listeners: Listeners[Approval] = Listeners("approval request")

    def on_request(self, callback: Callable[[Approval], None]) -> Callable[[], None]:
        """Calls ``callback`` with each approval that waits for the player; returns an unsubscribe function."""
        return self._listeners.add(callback)

    def request(
        self,
        kind: ApprovalKind,
        call_id: str | None,
        plugin: str,
        tool: str,
        capabilities: tuple[str, ...],
        summary: str,
        decision: Decision,
        *,
        caller: str | None = None,
    ) -> Approval:
        """Opens an approval as ``decision`` says (see the module docstring); returns it with its id.

        The summary is kept as sent, cut at `SUMMARY_LIMIT` characters, as the real host keeps it."""
        if not summary.strip():
            raise ApprovalError(SUMMARY_NEEDED)
        summary = summary[:SUMMARY_LIMIT]
        now = self._clock.now()
        if isinstance(decision, Ask) and self._pending_of(plugin) >= self._max_pending:
            raise ApprovalError(
                f"{plugin} already has {self._max_pending} approvals waiting for the player, the most XIV MCP "
                "keeps open for one plugin; wait for their answers before asking again."
            )
        approval_id = self._ids.next(taken=self._approvals)
        match decision:
            case Allow(reason=reason):
                state, deadline, flagged = ApprovalState.APPROVED, None, False
            case Deny(reason=reason, flagged=flagged):
                state, deadline = ApprovalState.DENIED, None
            case Ask():
                state, deadline, reason, flagged = ApprovalState.PENDING, now + self._timeout, "asked", False
        approval = Approval(
            id=approval_id,
            kind=kind,
            call_id=call_id,
            plugin=plugin,
            tool=tool,
            capabilities=capabilities,
            summary=summary,
            state=state,
            created=now,
            deadline=deadline,
            reason=reason,
            flagged=flagged,
            critical=isinstance(decision, Ask) and decision.critical,
            caller=caller,
        )
        self._approvals[approval_id] = approval
        self._prune()
        callbacks = self._listeners.snapshot() if state is ApprovalState.PENDING else ()
        self._audit_line(approval)
        self._listeners.emit(approval, callbacks)
        return approval

    def find(self, approval_id: str) -> Approval | None:
        return self._approvals.get(approval_id)

    def get(self, approval_id: str) -> Approval:
        approval = self._approvals.get(approval_id)
        if approval is None:
            if not self._ids.issued_here(approval_id):
                raise ApprovalError(
                    f"No approval {quote(approval_id)}: this XIV MCP never asked it (an approval of an XIV MCP "
                    "that has since restarted, or an id made up)."
                )
            raise ApprovalError(f"No approval {quote(approval_id)}: it was decided long ago and forgotten.")
        return approval

    def get_for(self, plugin: str, approval_id: str) -> Approval:
        """`GetApproval`: one the plugin asked for with RequestApproval. Once decided, it is read
        once and then forgotten, as the real host forgets it (`XivMcp/Api/PluginApi.cs`): the next
        read is "No approval '{approvalId}'.", the real host's answer for any id it does not hold.
        Another plugin's approval is answered the same way, so the refusal does not say whose it is
        (the real host lets any plugin read any approval; on the bus ids travel between processes)."""
        approval = self._approvals.get(approval_id)
        if approval is None or approval.plugin != plugin or approval.kind is not ApprovalKind.DURING_CALL:
            raise ApprovalError(f"No approval {quote(approval_id)}.")
        if approval.state is not ApprovalState.PENDING:
            del self._approvals[approval_id]
        return approval

    def state(self, approval_id: str) -> ApprovalState:
        return self.get(approval_id).state

    def pending(self) -> tuple[Approval, ...]:
        return tuple(a for a in self._approvals.values() if a.state is ApprovalState.PENDING)

    def answer(self, approval_id: str, answer: Answer) -> Approval:
        """The player's answer. Approve once, for the session or always approves; decline denies."""
        approval = self.get(approval_id)
        if approval.state is not ApprovalState.PENDING:
            raise ApprovalError(
                f"Approval {quote(approval_id)} was already {approval.state.value} ({approval.reason})."
            )
        state = ApprovalState.DENIED if answer is Answer.DECLINE else ApprovalState.APPROVED
        self._decide(approval, state, answer, "answered")
        self._audit_line(approval, sync=True)  # the player's answer: on disk before it takes effect
        return approval

    def withdraw(self, approval_id: str, reason: str = "withdrawn") -> Approval:
        """Closes a pending approval nobody waits for any more (the caller gave up): it counts as denied."""
        approval = self.get(approval_id)
        if approval.state is not ApprovalState.PENDING:
            return approval
        self._decide(approval, ApprovalState.DENIED, None, reason)
        self._audit_line(approval)
        return approval

    def _pending_of(self, plugin: str) -> int:
        return sum(1 for a in self._approvals.values() if a.plugin == plugin and a.state is ApprovalState.PENDING)

    def withdraw_of(self, plugin: str, reason: str) -> int:
        """Closes every pending approval of `plugin` (it left the bus); returns how many."""
        mine = [a for a in self._approvals.values() if a.plugin == plugin and a.state is ApprovalState.PENDING]
        for approval in mine:
            self.withdraw(approval.id, reason)
        return len(mine)

    def expire_due(self) -> tuple[Approval, ...]:
        """Declines every pending approval whose window has closed; returns them."""
        now = self._clock.now()
        due = [
            a
            for a in self._approvals.values()
            if a.state is ApprovalState.PENDING and a.deadline is not None and a.deadline <= now
        ]
        for approval in due:
            self._decide(approval, ApprovalState.DENIED, Answer.DECLINE, "expired")
        for approval in due:
            self._audit_line(approval)
        return tuple(due)

    async def wait_decided(self, approval_id: str) -> Approval:
        """Waits until the approval is approved or denied (answered or expired) and returns it."""
        approval = self.get(approval_id)
        if approval.state is not ApprovalState.PENDING:
            return approval
        event = self._events.setdefault(approval_id, anyio.Event())
        await event.wait()
        return approval

    def _decide(self, approval: Approval, state: ApprovalState, answer: Answer | None, reason: str) -> None:
        approval.state = state
        approval.answer = answer
        approval.reason = reason
        event = self._events.pop(approval.id, None)
        if event is not None:
            event.set()

    def _prune(self) -> None:
        decided = [k for k, a in self._approvals.items() if a.state is not ApprovalState.PENDING]
        for key in decided[: max(0, len(self._approvals) - self._keep)]:
            del self._approvals[key]

    def _audit_line(self, approval: Approval, *, sync: bool = False) -> None:
        if self._audit is None:
            return
        details: dict[str, object] = {
            "approvalId": approval.id,
            "kind": approval.kind.value,
            "callId": approval.call_id,
            "capabilities": list(approval.capabilities),
            "summary": approval.summary,
            "state": approval.state.value,
            "reason": approval.reason,
        }
        if approval.answer is not None:
            details["answer"] = approval.answer.value
        self._audit.record(
            AuditKind.APPROVAL, approval.plugin, approval.tool, flagged=approval.flagged, details=details, sync=sync
        )
