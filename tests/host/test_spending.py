"""Spending the player approves in game (W5): buy_item asks before a purchase not paid in gil, and
standing approvals (request_spending_approval, list_approvals, revoke_approval) let purchases
spend up to a budget without asking again, in the real host's words. All real processes; the
player answers each window with `approve`/`decline`, or lets it run out on the host's test clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import anyio.abc
import pytest

from gates.host.tools._spending import DECLINED

from ._game_session import Assistant, fresh, made_since, snapshot, start_game_allowing
from ._system import XivMcpSystem

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def shops(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    """The module's system, with Game & navigation, Market & purchases and Items & retainers changes allowed."""
    yield start_game_allowing(system, "game_navigation", "market", "items_retainers")


SUPPLIER = (12.0, -6.0)
MATERIA = "Savage Aim Materia XII"
POETICS = "Allagan Tomestone of Poetics"


async def test_w5_a_purchase_not_paid_in_gil_waits_for_the_players_approval(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game), anyio.create_task_group() as tg:
        await game.set_position(*SUPPLIER)
        _, seq = await snapshot(game)
        buying = assistant.start(tg, "buy_item", {"item": MATERIA, "quantity": 3})
        window = await assistant.player.wait_approval("buy_item")
        assert window.summary.startswith(f"Buy {MATERIA} with a non-gil currency? Buy 3x {MATERIA} from Material")
        await assistant.player.approve(window.approval_id)
        bought = await buying.result()
        assert (bought["bought"], bought["paidWith"], bought["gilSpent"]) == (
            3,
            "non-gil currency (approved in game)",
            None,
        )
        assert bought["steps"][:2] == ["Waiting for approval in game.", "Approved in game."]
        assert await made_since(game, seq) == [
            ("XivMcp", "spend_currency", f"paid 450 {POETICS} for 3 × {MATERIA}"),
            ("XivMcp", "move_items", f"received 3 × {MATERIA} from Material Supplier"),
        ]

        before = await snapshot(game)
        declined = assistant.start(tg, "buy_item", {"item": MATERIA, "quantity": 1})
        await assistant.player.decline((await assistant.player.wait_approval("buy_item")).approval_id)
        assert await declined.error() == DECLINED
        assert await snapshot(game) == before  # declined: nothing changed


async def test_w5_an_unanswered_window_times_out_on_the_hosts_clock_and_buys_nothing(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game), anyio.create_task_group() as tg:
        await game.set_position(*SUPPLIER)
        before = await snapshot(game)
        buying = assistant.start(tg, "buy_item", {"item": MATERIA, "quantity": 1})
        await assistant.player.wait_approval("buy_item")
        await assistant.player.advance_clock(121)
        assert await buying.error() == (
            "No answer in game within 120 s; nothing was done. Ask the player to watch for the XIV MCP approval window."
        )
        assert await snapshot(game) == before


async def approved(assistant: Assistant, tg: anyio.abc.TaskGroup, arguments: dict[str, Any]) -> dict[str, Any]:
    """request_spending_approval, approved by the player."""
    asking = assistant.start(tg, "request_spending_approval", arguments)
    window = await assistant.player.wait_approval("request_spending_approval")
    assert window.summary.startswith("Approve spending ")
    await assistant.player.approve(window.approval_id)
    result: dict[str, Any] = await asking.result()
    return result


async def test_w5_a_standing_approval_spends_its_budget_without_asking_then_is_used_up_or_revoked(
    shops: XivMcpSystem,
) -> None:
    async with fresh(shops) as (assistant, game), anyio.create_task_group() as tg:
        assert await assistant.error("request_spending_approval", {"currency": POETICS, "max_amount": 0}) == (
            "'max_amount' must be positive."
        )
        granted = await approved(
            assistant, tg, {"currency": "poetics", "max_amount": 300, "items": [MATERIA], "purpose": "Melding"}
        )
        assert (granted["currency"], granted["max"], granted["items"], granted["state"]) == (
            POETICS,
            300,
            [MATERIA],
            "active",
        )
        await game.set_position(*SUPPLIER)
        bought = await assistant.result("buy_item", {"item": MATERIA, "quantity": 3, "approval": granted["id"]})
        assert bought["bought"] == 2  # 300 approved: two at 150, never more
        assert bought["steps"][0] == f"Using standing approval {granted['id']} (300 {POETICS} left)."
        assert await assistant.player.approvals() == []  # no window was opened
        [listed] = await assistant.result("list_approvals")
        assert (listed["spent"], listed["remaining"], listed["state"]) == (300, 0, "used up")
        assert await assistant.error("buy_item", {"item": MATERIA, "quantity": 1, "approval": granted["id"]}) == (
            f"Approval {granted['id']} is used up (300/300 {POETICS})."
        )

        marks = await approved(assistant, tg, {"currency": "Wolf Marks", "max_amount": 1000})
        assert await assistant.error("buy_item", {"item": MATERIA, "quantity": 1, "approval": marks["id"]}) == (
            f"That purchase was not paid with Wolf Marks, so approval {marks['id']} doesn't cover it; stopped."
        )
        assert await assistant.result("revoke_approval", {"id": marks["id"]}) == {"revoked": marks["id"]}
        assert await assistant.error("buy_item", {"item": MATERIA, "quantity": 1, "approval": marks["id"]}) == (
            f"Approval {marks['id']} was revoked in game."
        )
        states = {a["id"]: a["state"] for a in await assistant.result("list_approvals")}
        assert states[marks["id"]] == "revoked" and states[granted["id"]] == "used up"
