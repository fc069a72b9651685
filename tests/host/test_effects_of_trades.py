"""Side effects of plugin calls that trade with another player, or entrust gil to a retainer (T2, W3, W4).

The host's existing verdict covers trades with no new rule, as the real host's analyzer judges
them: items given lower the bags' one total count (items_removed, covered by move_items,
trade_items, discard_items or spend_currency), net of the items received in the same trade, and
gil given is gil spent (spent_gil), which only spend_gil covers, so trade_items alone does not
cover a trade that gives gil. A call that did either without declaring it suspends its plugin
with the real analyzer's detail line. Gil entrusted to a retainer leaves the character too: the real
move_gil declares spend_gil beside move_items, and a plugin that declares only move_items is suspended.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

import broker
from game import GameClient

from ._system import ROOT, WAIT, XivMcpSystem, player_of, run_in_thread

pytestmark = pytest.mark.asyncio

PLUGIN = "Trader"


@pytest.fixture(scope="module")
def traders(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    system.start_game("--test-clock")
    plugin = system.start_plugin(str(ROOT / "tests" / "host" / "plugins" / "trader_plugin.py"))
    plugin.wait_line("Trader: registered trader_bank_undeclared")

    async def enable() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            await player.enable(PLUGIN)
            await player.set_modes(PLUGIN, game_ui="allow", trade_items="allow", move_items="allow")

    run_in_thread(enable)
    yield system


async def suspended(traders: XivMcpSystem, tool: str, arguments: dict[str, int]) -> tuple[str | None, list[str]]:
    """Call `tool` as the assistant on the default world: the plugin's suspend reason after it (None:
    still enabled) and the capabilities of the changes it made. A suspension is lifted again."""
    async with broker.connect(traders.endpoint, "Tester") as pi:
        player, game = player_of(pi, traders.data_dir), GameClient.as_player(pi, traders.data_dir)
        with anyio.fail_after(WAIT * 3):
            await game.reset()
            seq = (await game.snapshot()).seq
            assert not (await player.call(tool, arguments)).is_error
            made = [c.capability for c in (await game.changes(seq)).changes if c.by == PLUGIN]
            card = await player.plugin(PLUGIN)
            if card.state == "suspended":
                await player.lift(PLUGIN)
            return card.suspend_reason, made


async def test_w4_items_traded_away_not_declared_suspend_as_items_that_left_the_inventory(
    traders: XivMcpSystem,
) -> None:
    # SPEC: T2, W3, W4
    reason, made = await suspended(traders, "trader_give_undeclared", {"count": 5})
    assert reason == "trader_give_undeclared: 2 items left the inventory. (not declared)"  # 5 given, 3 Ethers back
    assert made == ["move_character", "game_ui", "game_ui", "trade_items", "trade_items", "game_ui"]
    assert await suspended(traders, "trader_give_declared", {"count": 5}) == (None, made)  # declared: covered


async def test_w4_gil_traded_away_needs_spend_gil_which_trade_items_does_not_cover(traders: XivMcpSystem) -> None:
    # SPEC: T2, W3, W4
    reason, made = await suspended(traders, "trader_pay_declared_items", {"gil": 750})
    assert reason == "trader_pay_declared_items: 750 gil spent. (not declared)"
    assert made == ["move_character", "game_ui", "game_ui", "spend_gil", "trade_items", "game_ui"]


async def test_w4_gil_entrusted_to_a_retainer_needs_spend_gil_which_move_items_does_not_cover(
    traders: XivMcpSystem,
) -> None:
    # SPEC: T2, W3, W4
    reason, made = await suspended(traders, "trader_bank_undeclared", {"gil": 5_000})
    assert reason == "trader_bank_undeclared: 5,000 gil spent. (not declared)"
    assert made == ["move_character", "game_ui", "spend_gil", "game_ui"]
