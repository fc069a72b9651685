"""XIV MCP's trading tools against the simulated game, all real processes (W5).

One system for the module (broker, `xivmcp game --test-clock`, host), with the changes of Trading
allowed (denied by default, as in the real host). Each test puts the world back as the game
started: the character stands a couple of yalms from Rhiki Rhaki, who accepts a trade and offers 3
Ethers, and Ysolde Marchand, who declines. Every trade waits for the player's approval in game,
which shows what both sides hold; the changes a trade made are read from the game's change log:
made by XivMcp, with the capability each needs. A refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from gates.host.tools._trade_tools import TRADE_DECLINED

from ._game_session import fresh, made_since, snapshot, start_game_allowing
from ._system import XivMcpSystem

pytestmark = pytest.mark.asyncio

RHIKI, YSOLDE = "Rhiki Rhaki", "Ysolde Marchand"
GIFT = {"player": "rhiki", "give": {"items": [{"item": "Hi-Potion", "quantity": 2}], "gil": 1500}}
ASKED = (
    "Complete the trade with Rhiki Rhaki? You give: 2 Hi-Potion and 1,500 gil. You receive: 3 Ether. Your "
    "assistant did not say what you get in return; check it. Trades cannot be undone."
)


@pytest.fixture(scope="module")
def trading(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "trading")


async def test_w5_a_trade_waits_for_the_players_approval_with_both_sides_then_changes_hands(
    trading: XivMcpSystem,
) -> None:
    async with fresh(trading) as (assistant, game), anyio.create_task_group() as tg:
        assert await assistant.result("get_trade") == {
            "trading": False,
            "with": None,
            "give": None,
            "receive": None,
            "youPressedTrade": False,
            "theyPressedTrade": False,
        }
        before, seq = await snapshot(game)
        trading_call = assistant.start(tg, "trade_with_player", GIFT)
        window = await assistant.player.wait_approval("trade_with_player")
        assert window.summary == ASKED
        assert await assistant.result("get_trade") == {  # the window is open while the player decides
            "trading": True,
            "with": RHIKI,
            "give": "2 Hi-Potion and 1,500 gil",
            "receive": "3 Ether",
            "youPressedTrade": False,
            "theyPressedTrade": True,
        }
        await assistant.player.approve(window.approval_id)
        assert await trading_call.result() == {
            "traded": True,
            "with": RHIKI,
            "gave": "2 Hi-Potion and 1,500 gil",
            "received": "3 Ether",
        }
        assert [c[1:] for c in await made_since(game, seq)] == [
            ("game_ui", "opened a trade with Rhiki Rhaki, who offers 3 Ether"),
            ("game_ui", "put 2 Hi-Potion and 1,500 gil into the trade with Rhiki Rhaki"),
            ("trade_items", "traded 2 Hi-Potion to Rhiki Rhaki"),
            ("spend_gil", "traded 1,500 gil to Rhiki Rhaki"),
            ("trade_items", "received 3 Ether from Rhiki Rhaki"),
            ("game_ui", "completed the trade with Rhiki Rhaki"),
        ]
        assert {c[0] for c in await made_since(game, seq)} == {"XivMcp"}
        after, _ = await snapshot(game)
        assert (after.gil, after.item_total) == (before.gil - 1_500, before.item_total + 1)
        assert (await assistant.result("get_trade"))["trading"] is False


async def test_w5_every_trade_asks_even_after_approving_always_and_a_decline_moves_nothing(
    trading: XivMcpSystem,
) -> None:
    async with fresh(trading) as (assistant, game), anyio.create_task_group() as tg:
        gift: dict[str, Any] = {"player": RHIKI, "give": {"gil": 10}, "receive": {"items": [{"item": "Ether"}]}}
        first = assistant.start(tg, "trade_with_player", gift)
        window = await assistant.player.wait_approval("trade_with_player")
        assert window.summary == (
            f"Complete the trade with {RHIKI}? You give: 10 gil. You receive: 3 Ether. Trades cannot be undone."
        )
        await assistant.player.approve(window.approval_id, always=True)  # taken as once: a trade asks every time
        assert (await first.result())["traded"] is True
        [module] = [m for m in await assistant.player.modules() if m.id == "trading"]
        assert {t.name: t.setting for t in module.tools}["trade_with_player"] == "group"  # nothing remembered

        before = await snapshot(game)
        second = assistant.start(tg, "trade_with_player", gift)
        await assistant.player.decline((await assistant.player.wait_approval("trade_with_player")).approval_id)
        assert await second.error() == TRADE_DECLINED
        assert (await snapshot(game))[0] == before[0] and await game.get_trade() is None  # cancelled, nothing moved

        third = assistant.start(tg, "trade_with_player", gift)
        await assistant.player.wait_approval("trade_with_player")
        await assistant.player.advance_clock(121)  # no answer within two minutes: declined
        assert await third.error() == TRADE_DECLINED
        assert (await snapshot(game))[0] == before[0] and await game.get_trade() is None


async def test_w5_trade_refusals_change_nothing_and_say_what_to_do(trading: XivMcpSystem) -> None:
    async with fresh(trading) as (assistant, game):
        before = await snapshot(game)
        six = [{"item": "Potion"}] * 6
        for arguments, message in [
            ({}, "'player' is required."),
            ({"player": "Nobody"}, "No player named 'Nobody' is nearby."),
            ({"player": "Bertliana"}, "Bertliana is too far away to trade. Walk up to them first."),
            ({"player": RHIKI, "give": {"items": six}}, "A trade holds at most 5 items (stacks) per side, not 6."),
            ({"player": RHIKI, "give": {"gil": 200_000}}, "You have only 100,000 gil."),
            (
                {"player": RHIKI, "give": {"items": [{"item": "Hi-Potion", "quantity": 30}]}},
                "You have only 20 Hi-Potion in your bags, not 30.",
            ),
            ({"player": RHIKI, "give": {"items": [{"quantity": 1}]}}, "Each item needs 'item'."),
            (
                {"player": RHIKI, "give": {"items": [{"item": "Hi-Potion", "hq": True}]}},
                "You have only 0 Hi-Potion (HQ) in your bags, not 1.",
            ),
        ]:
            assert await assistant.error("trade_with_player", arguments) == message
        assert await snapshot(game) == before  # refused before anything: not even a request

        assert await assistant.error("trade_with_player", {"player": YSOLDE}) == (
            f"{YSOLDE} did not accept the trade request."
        )
        expecting = {"player": RHIKI, "receive": {"items": [{"item": "Ether", "quantity": 5}], "gil": 100}}
        assert await assistant.error("trade_with_player", expecting) == (
            "The trade was stopped: You would receive 3 of 5 Ether. You would receive 0 gil instead of 100."
        )
        assert (await snapshot(game))[0] == before[0] and await game.get_trade() is None  # cancelled
        assert await assistant.player.approvals() == []  # stopped before asking


async def test_w5_cancel_trade_closes_the_open_window_and_nothing_changes_hands(trading: XivMcpSystem) -> None:
    async with fresh(trading) as (assistant, game):
        assert await assistant.result("cancel_trade") == {"cancelled": False}
        await game.trade_request(RHIKI)  # the player opened a trade by hand
        before, seq = await snapshot(game)
        assert await assistant.result("cancel_trade") == {"cancelled": True}
        assert await made_since(game, seq) == [
            ("XivMcp", "game_ui", f"cancelled the trade with {RHIKI}; nothing changed hands")
        ]
        assert (await snapshot(game))[0] == before and await game.get_trade() is None


async def test_w5_trading_changes_are_denied_until_the_player_allows_them(trading: XivMcpSystem) -> None:
    async with fresh(trading) as (assistant, game):
        await assistant.player.module("trading", "changes", "default")
        try:
            before = await snapshot(game)
            error = await assistant.error("trade_with_player", {"player": RHIKI})
            assert error.startswith(
                "Trading is set to Deny for changes, so trade_with_player can't run. The player can change it in "
                "/xivmcp → Modules"
            )
            assert (await assistant.result("get_trade"))["trading"] is False  # reading stays allowed
            assert await snapshot(game) == before
        finally:
            await assistant.player.module("trading", "changes", "allow")
