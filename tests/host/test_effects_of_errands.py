"""Side effects of plugin calls that buy from a vendor or store items with a retainer (T2, W3, W4).

The host's existing verdict covers the market and retainers with no new rule: a purchase lowers
gil (spent_gil, covered by spend_gil), and entrusting items to a retainer lowers the bags' item
total (items_removed, covered by move_items, trade_items, discard_items or spend_currency), since
retainers are not in the snapshot's count, as in the real host's probe. A call that did either
without declaring it suspends its plugin with the real analyzer's detail line.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

import broker
from game import GameClient

from ._system import ROOT, WAIT, XivMcpSystem, player_of, run_in_thread

pytestmark = pytest.mark.asyncio

PLUGIN = "Errand"
SUPPLIER = (14.0, -6.0)
BELL = (-8.0, 30.0)


@pytest.fixture(scope="module")
def errands(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    system.start_game("--test-clock")
    plugin = system.start_plugin(str(ROOT / "tests" / "host" / "plugins" / "errand_plugin.py"))
    plugin.wait_line("Errand: registered errand_store_declared")

    async def enable() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            await player.enable(PLUGIN)
            await player.set_modes(PLUGIN, game_ui="allow", move_items="allow")

    run_in_thread(enable)
    yield system


async def suspended(errands: XivMcpSystem, tool: str, count: int, where: tuple[float, float]) -> str | None:
    """Call `tool` as the assistant, standing at `where` on the default world; the plugin's suspend
    reason after it (None: still enabled). A suspension is lifted again for the next call."""
    async with broker.connect(errands.endpoint, "Tester") as pi:
        player, game = player_of(pi, errands.data_dir), GameClient.as_player(pi, errands.data_dir)
        with anyio.fail_after(WAIT * 3):
            await game.reset()
            await game.set_position(*where)
            assert not (await player.call(tool, {"count": count})).is_error
            card = await player.plugin(PLUGIN)
            if card.state == "suspended":
                await player.lift(PLUGIN)
            return card.suspend_reason


async def test_w4_a_purchase_from_a_vendor_not_declared_suspends_with_the_analyzers_line(errands: XivMcpSystem) -> None:
    # SPEC: T2, W3, W4
    reason = await suspended(errands, "errand_buy_undeclared", 3, (SUPPLIER[0] - 2.0, SUPPLIER[1]))
    assert reason == "errand_buy_undeclared: 960 gil spent. (not declared)"


async def test_w4_items_entrusted_to_a_retainer_not_declared_suspend_as_items_that_left_the_inventory(
    errands: XivMcpSystem,
) -> None:
    # SPEC: T2, W3, W4
    reason = await suspended(errands, "errand_store_undeclared", 4, BELL)
    assert reason == "errand_store_undeclared: 4 items left the inventory. (not declared)"
    assert await suspended(errands, "errand_store_declared", 4, BELL) is None  # declared: move_items covers it


async def test_w4_items_put_up_for_sale_not_declared_suspend_as_items_that_left_the_inventory(
    errands: XivMcpSystem,
) -> None:
    # SPEC: T2, W3, W4
    reason = await suspended(errands, "errand_sell_undeclared", 2, BELL)
    assert reason == "errand_sell_undeclared: 2 items left the inventory. (not declared)"
