"""Approvals a plugin asks for during a call: ``XivMcp.RequestApproval`` and ``XivMcp.GetApproval`` (G8, G9).

An approval is born from the gate's :data:`~gates._decision.Decision` for the request:

* allowed (or approved for this session) - ``approved`` at once;
* blocked, or a capability the tool did not declare - ``denied`` at once (the latter flagged);
* ask - ``pending`` until the player answers (approve once / for this session / always allow, or
  decline), or until :data:`APPROVAL_TIMEOUT` seconds pass, which counts as declined.

Time comes from an injected :class:`~gates._clock.Clock`; nothing here sleeps. The host calls
:meth:`Approvals.expire_due` from a periodic task (or runs :meth:`Approvals.run_expiry`), and
coroutines await :meth:`Approvals.wait_decided`. Answers and expiry must happen on the event loop's
thread (from another thread, go through ``anyio.from_thread``).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import anyio

from gates._audit import AuditLog
from gates._clock import Clock, SystemClock
from gates._contract import Answer, ApprovalReply, ApprovalState, AuditKind
from gates._decision import Allow, Ask, Decision, Deny
from gates._errors import ApprovalError, quote
from gates._listeners import Listeners

__all__ = ["APPROVAL_TIMEOUT", "SUMMARY_LIMIT", "Approval", "Approvals"]

APPROVAL_TIMEOUT: Final = 120.0
"""Seconds an approval window stays open before it counts as declined."""

SUMMARY_LIMIT: Final = 200


@dataclass(slots=True)
class Approval:
    id: str
    call_id: str
    plugin: str
    tool: str
    capability: str
    summary: str
    state: ApprovalState
    created: float
    deadline: float | None
    reason: str
    answer: Answer | None = None
    flagged: bool = False

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
    ) -> None:
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._timeout = timeout
        self._audit = audit
        self._keep = keep
        self._ids = itertools.count(1)
        self._approvals: dict[str, Approval] = {}
        self._events: dict[str, anyio.Event] = {}
        self._listeners: Listeners[Approval] = Listeners("approval request")
        self._lock = threading.RLock()

    def on_request(self, callback: Callable[[Approval], None]) -> Callable[[], None]:
        """Calls ``callback`` with each approval that waits for the player; returns an unsubscribe function."""
        return self._listeners.add(callback)

    def request(
        self, call_id: str, plugin: str, tool: str, capability: str, summary: str, decision: Decision
    ) -> Approval:
        """Opens an approval as ``decision`` says (see the module docstring); returns it with its id."""
        summary = summary.strip()
        if not summary:
            raise ApprovalError(
                "The request needs a 'summary' the player can decide on, e.g. \"Buy 3 potions for 1,200 gil\"."
            )
        summary = summary[:SUMMARY_LIMIT]
        now = self._clock.now()
        with self._lock:
            approval_id = f"a{next(self._ids)}"
            match decision:
                case Allow(reason=reason):
                    state, deadline, flagged = ApprovalState.APPROVED, None, False
                case Deny(reason=reason, flagged=flagged):
                    state, deadline = ApprovalState.DENIED, None
                case Ask():
                    state, deadline, reason, flagged = ApprovalState.PENDING, now + self._timeout, "asked", False
            approval = Approval(
                id=approval_id,
                call_id=call_id,
                plugin=plugin,
                tool=tool,
                capability=capability,
                summary=summary,
                state=state,
                created=now,
                deadline=deadline,
                reason=reason,
                flagged=flagged,
            )
            self._approvals[approval_id] = approval
            self._prune()
            callbacks = self._listeners.snapshot() if state is ApprovalState.PENDING else ()
        self._audit_line(approval)
        self._listeners.emit(approval, callbacks)
        return approval

    def get(self, approval_id: str) -> Approval:
        with self._lock:
            approval = self._approvals.get(approval_id)
        if approval is None:
            raise ApprovalError(f"No approval {quote(approval_id)}. Use the approvalId RequestApproval returned.")
        return approval

    def state(self, approval_id: str) -> ApprovalState:
        return self.get(approval_id).state

    def pending(self) -> tuple[Approval, ...]:
        with self._lock:
            return tuple(a for a in self._approvals.values() if a.state is ApprovalState.PENDING)

    def answer(self, approval_id: str, answer: Answer) -> Approval:
        """The player's answer. Approve once, for the session or always approves; decline denies."""
        approval = self.get(approval_id)
        with self._lock:
            if approval.state is not ApprovalState.PENDING:
                raise ApprovalError(
                    f"Approval {quote(approval_id)} was already {approval.state.value} ({approval.reason})."
                )
            state = ApprovalState.DENIED if answer is Answer.DECLINE else ApprovalState.APPROVED
            self._decide(approval, state, answer, "answered")
        self._audit_line(approval)
        return approval

    def withdraw(self, approval_id: str, reason: str = "withdrawn") -> Approval:
        """Closes a pending approval nobody waits for any more (the caller gave up): it counts as denied."""
        approval = self.get(approval_id)
        with self._lock:
            if approval.state is not ApprovalState.PENDING:
                return approval
            self._decide(approval, ApprovalState.DENIED, None, reason)
        self._audit_line(approval)
        return approval

    def expire_due(self) -> tuple[Approval, ...]:
        """Declines every pending approval whose window has closed; returns them."""
        now = self._clock.now()
        with self._lock:
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

    def next_deadline(self) -> float | None:
        """When the next pending approval expires, on the clock's scale; ``None`` if none waits."""
        with self._lock:
            deadlines = [
                a.deadline
                for a in self._approvals.values()
                if a.state is ApprovalState.PENDING and a.deadline is not None
            ]
        return min(deadlines, default=None)

    async def wait_decided(self, approval_id: str) -> Approval:
        """Waits until the approval is approved or denied (answered or expired) and returns it."""
        approval = self.get(approval_id)
        with self._lock:
            if approval.state is not ApprovalState.PENDING:
                return approval
            event = self._events.setdefault(approval_id, anyio.Event())
        await event.wait()
        return approval

    wait = wait_decided

    async def run_expiry(self, interval: float = 1.0) -> None:
        """Calls :meth:`expire_due` every ``interval`` seconds until cancelled."""
        while True:
            self.expire_due()
            await anyio.sleep(interval)

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

    def _audit_line(self, approval: Approval) -> None:
        if self._audit is None:
            return
        details: dict[str, object] = {
            "approvalId": approval.id,
            "callId": approval.call_id,
            "capability": approval.capability,
            "summary": approval.summary,
            "state": approval.state.value,
            "reason": approval.reason,
        }
        if approval.answer is not None:
            details["answer"] = approval.answer.value
        self._audit.record(
            AuditKind.APPROVAL, approval.plugin, approval.tool, flagged=approval.flagged, details=details
        )
