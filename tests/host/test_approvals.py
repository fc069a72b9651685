"""Approvals during a call: RequestApproval / GetApproval and the two-minute window (rules G8, G9, A3)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from gates.contract import Answer, ApprovalState, ToolDefinition, ok_reply
from gates.host import ApprovalError
from gates.host.base._audit import AuditLog
from gates.host.base._clock import ManualClock
from gates.host.policy._approvals import APPROVAL_TIMEOUT, Approval, ApprovalKind, Approvals
from gates.host.policy._decision import Allow, Ask, Deny
from gates.host.policy._policy import Policies
from gates.host.policy._records import registration_of

ASK = Ask(("spend_gil",))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1000.0)


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[AuditLog]:
    with AuditLog(tmp_path / "audit.jsonl") as log:
        yield log


@pytest.fixture
def approvals(clock: ManualClock, audit: AuditLog) -> Approvals:
    return Approvals(clock, audit=audit, tag=TAG)


DURING = ApprovalKind.DURING_CALL
TAG = "0f0f0f"
ID = re.compile(r"a[0-9a-f]{16}-[0-9a-f]{6}")
"""An approval id: 64 random bits, then the host process's tag (S1, B5)."""


def ask(approvals: Approvals, summary: str = "Repair for 3,200 gil") -> Approval:
    return approvals.request(DURING, "c1", "MyPlugin", "myplugin_repair", ("spend_gil",), summary, ASK)


def test_g9_an_ask_opens_a_pending_approval_with_its_own_id(approvals: Approvals) -> None:
    first, second = ask(approvals), ask(approvals)
    assert first.id != second.id and all(ID.fullmatch(a.id) for a in (first, second))
    assert first.state is ApprovalState.PENDING
    assert ok_reply(first.reply()) == f'{{"ok":true,"approvalId":"{first.id}","state":"pending"}}'
    assert approvals.state(first.id) is ApprovalState.PENDING
    assert [a.id for a in approvals.pending()] == [first.id, second.id]


def test_s1_approval_ids_are_random_not_a_counter(approvals: Approvals) -> None:
    # SPEC: S1 - an id seen says nothing of the next: 64 random bits each, and the host's tag (B5)
    ids = [ask(approvals).id for _ in range(8)]
    assert all(ID.fullmatch(i) and i.endswith(f"-{TAG}") for i in ids), ids
    assert len({i[1:-7] for i in ids}) == 8, ids  # no two alike
    assert not any(i.startswith(("a1-", "a2-", "a3-")) for i in ids), ids  # not a count


def test_g9_allowed_and_blocked_requests_are_decided_at_once(approvals: Approvals) -> None:
    allowed = approvals.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", Allow("approved_session"))
    blocked = approvals.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", Deny("blocked"))
    assert allowed.state is ApprovalState.APPROVED and allowed.reason == "approved_session"
    assert blocked.state is ApprovalState.DENIED and not blocked.flagged
    assert approvals.pending() == ()


def test_g9_a_request_for_a_capability_the_tool_did_not_declare_is_denied_and_flagged_in_the_audit(
    audit: AuditLog, approvals: Approvals
) -> None:
    buy = ToolDefinition(name="myplugin_buy", description="Buys.", capabilities=["read_game", "spend_gil"])
    policies = Policies()
    policies.enable("MyPlugin", registration_of([buy]))
    decision = policies.decide_request("MyPlugin", buy, "chat_send")
    approval = approvals.request(DURING, "c1", "MyPlugin", "myplugin_buy", ("chat_send",), "Shout the price", decision)
    assert approval.state is ApprovalState.DENIED and approval.flagged
    [line] = audit.tail(1)
    assert line.kind == "approval" and line.flagged
    assert line.details["capabilities"] == ["chat_send"] and line.details["kind"] == "during_call"
    assert line.details["state"] == "denied"


@pytest.mark.parametrize(
    ("answer", "state"),
    [
        (Answer.APPROVE_ONCE, ApprovalState.APPROVED),
        (Answer.APPROVE_SESSION, ApprovalState.APPROVED),
        (Answer.ALWAYS_ALLOW, ApprovalState.APPROVED),
        (Answer.DECLINE, ApprovalState.DENIED),
    ],
)
def test_a3_the_players_answer_decides_the_approval(approvals: Approvals, answer: Answer, state: ApprovalState) -> None:
    approval = ask(approvals)
    assert approvals.answer(approval.id, answer).state is state
    assert approvals.get(approval.id).answer is answer
    with pytest.raises(ApprovalError, match="was already"):
        approvals.answer(approval.id, Answer.APPROVE_ONCE)


def test_g8_an_unanswered_approval_is_declined_after_two_minutes(clock: ManualClock, approvals: Approvals) -> None:
    approval = ask(approvals)
    assert APPROVAL_TIMEOUT == 120.0
    assert approval.deadline == 1120.0
    clock.advance(119.9)
    assert approvals.expire_due() == ()
    assert approval.state is ApprovalState.PENDING
    clock.advance(0.1)
    assert approvals.expire_due() == (approval,)
    assert approvals.state(approval.id) is ApprovalState.DENIED and approval.reason == "expired"
    assert approvals.pending() == ()
    with pytest.raises(ApprovalError):
        approvals.answer(approval.id, Answer.APPROVE_ONCE)


@pytest.mark.asyncio
async def test_g9_waiting_ends_when_the_player_answers(approvals: Approvals) -> None:
    approval = ask(approvals)
    results: list[Approval] = []
    async with anyio.create_task_group() as tg:

        async def waiter() -> None:
            results.append(await approvals.wait_decided(approval.id))

        tg.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()
        assert results == []
        approvals.answer(approval.id, Answer.APPROVE_ONCE)
    assert results[0].state is ApprovalState.APPROVED


@pytest.mark.asyncio
async def test_g8_waiting_ends_when_the_window_expires(clock: ManualClock, approvals: Approvals) -> None:
    approval = ask(approvals)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            results: list[Approval] = []

            async def waiter() -> None:
                results.append(await approvals.wait_decided(approval.id))

            tg.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            clock.advance(APPROVAL_TIMEOUT)
            approvals.expire_due()
    assert results[0].state is ApprovalState.DENIED


@pytest.mark.asyncio
async def test_g9_waiting_on_a_decided_approval_returns_at_once(approvals: Approvals) -> None:
    approval = approvals.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", Allow())
    with anyio.fail_after(5):
        assert (await approvals.wait_decided(approval.id)).state is ApprovalState.APPROVED


def test_g9_an_unknown_approval_id_is_refused(approvals: Approvals) -> None:
    with pytest.raises(ApprovalError, match="No approval 'a9-0f0f0f': it was decided long ago"):
        approvals.get("a9-0f0f0f")
    with pytest.raises(ApprovalError, match="No approval 'a1-abcdef': this XIV MCP never asked it"):
        approvals.get("a1-abcdef")  # B5: an id of another host process


def test_b5_approval_ids_differ_between_host_processes(clock: ManualClock) -> None:
    first, second = Approvals(clock), Approvals(clock)
    one = first.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", ASK)
    other = second.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", ASK)
    assert one.id != other.id and ID.fullmatch(one.id) and ID.fullmatch(other.id)
    assert one.id[-6:] != other.id[-6:]  # each host process its own tag
    with pytest.raises(ApprovalError, match="never asked it"):
        second.get(one.id)


def test_b5_a_plugin_looks_up_only_its_own_approvals(approvals: Approvals) -> None:
    approval = ask(approvals)
    assert approvals.get_for("MyPlugin", approval.id) is approval
    with pytest.raises(ApprovalError, match=rf"^No approval '{approval.id}'\.$"):  # as if unknown (S1)
        approvals.get_for("Other", approval.id)


def test_g9_a_decided_approval_is_read_once_by_its_plugin_then_forgotten(approvals: Approvals) -> None:
    # SPEC: G9, F5 - XivMcp/Api/PluginApi.cs GetApproval removes an approval once it is not pending
    approval = ask(approvals)
    assert approvals.get_for("MyPlugin", approval.id).state is ApprovalState.PENDING
    approvals.answer(approval.id, Answer.DECLINE)
    assert approvals.get_for("MyPlugin", approval.id).state is ApprovalState.DENIED
    with pytest.raises(ApprovalError, match=rf"^No approval '{approval.id}'\.$"):
        approvals.get_for("MyPlugin", approval.id)
    before = approvals.request(ApprovalKind.BEFORE_CALL, None, "MyPlugin", "t", ("spend_gil",), "Buy", ASK)
    with pytest.raises(ApprovalError, match="No approval"):  # the player's window before a call: not the plugin's
        approvals.get_for("MyPlugin", before.id)


def test_b7_a_plugin_keeps_at_most_so_many_approvals_waiting(clock: ManualClock) -> None:
    approvals = Approvals(clock, max_pending_per_plugin=2)
    ask(approvals)
    ask(approvals)
    with pytest.raises(ApprovalError, match="already has 2 approvals waiting for the player"):
        ask(approvals)
    other = approvals.request(DURING, "c9", "Other", "t", ("spend_gil",), "Buy", ASK)
    assert other.state is ApprovalState.PENDING  # the bound is per plugin
    decided = approvals.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", Allow())
    assert decided.state is ApprovalState.APPROVED  # decided at once: nothing waits


def test_g9_a_request_needs_a_summary_and_long_ones_are_cut(approvals: Approvals) -> None:
    with pytest.raises(ApprovalError, match="needs a 'summary'"):
        ask(approvals, "   ")
    assert len(ask(approvals, "x" * 500).summary) == 200
    assert ask(approvals, " Buy ").summary == " Buy "  # kept as sent, as the real host keeps it


def test_f5_a_summary_is_cut_at_200_characters_not_at_200_utf16_code_units(approvals: Approvals) -> None:
    # SPEC: F5 - kept: the real host cuts at 200 UTF-16 code units (an emoji is two there, and a cut may
    # split one); Python counts characters, so a summary of emoji keeps 200 of them here, not 100
    assert ask(approvals, "\U0001f4b0" * 300).summary == "\U0001f4b0" * 200


def test_a3_the_approval_window_is_announced_only_for_pending_approvals(approvals: Approvals) -> None:
    shown: list[str] = []
    unsubscribe = approvals.on_request(lambda a: shown.append(a.id))
    first = ask(approvals)
    approvals.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", Allow())
    unsubscribe()
    ask(approvals)
    assert shown == [first.id]


def test_a4_every_approval_and_its_answer_is_audited(audit: AuditLog, approvals: Approvals) -> None:
    approval = ask(approvals)
    approvals.answer(approval.id, Answer.APPROVE_SESSION)
    requested, answered = audit.tail(2)
    assert (requested.details["state"], answered.details["state"]) == ("pending", "approved")
    assert answered.details["answer"] == "approve_session" and answered.tool == "myplugin_repair"


def test_decided_approvals_are_pruned_beyond_the_limit(clock: ManualClock) -> None:
    approvals = Approvals(clock, keep=3, tag=TAG)
    pending = ask(approvals)
    decided = [approvals.request(DURING, "c1", "MyPlugin", "t", ("spend_gil",), "Buy", Allow()) for _ in range(5)]
    assert approvals.get(pending.id) is pending
    with pytest.raises(ApprovalError):
        approvals.get(decided[0].id)
    assert approvals.get(decided[-1].id).state is ApprovalState.APPROVED
