"""A plugin author's tests of Restock (`my_plugin.py`), on a private XIV MCP system of real processes.

Run them with `python -m pytest examples` once xivmcp-bus is installed: its pytest plugin gives
the fixtures (`player`, `assistant`, `game`, `plugin_process`, and `async_...` ones to await).
Every test starts Restock itself; the kit stops it at the end and puts the system back (the
player's decisions forgotten, the world as it started) before the next test, so no test depends
on another's order.
"""

from __future__ import annotations

import pytest

from gates.testing import Assistant, Game, PluginProcess, PluginProcesses, SyncAssistant, SyncGame, SyncPlayer

HI_POTION = 4554
PRICE = 320


def start_restock(plugin_process: PluginProcesses) -> PluginProcess:
    plugin = plugin_process.start("my_plugin.py")  # next to this file
    plugin.expect("Restock: registered")  # it prints this once XIV MCP has every tool
    return plugin


def test_buying_asks_the_player_then_spends_gil_for_potions(
    player: SyncPlayer, assistant: SyncAssistant, game: SyncGame, plugin_process: PluginProcesses
) -> None:
    start_restock(plugin_process)
    player.enable("Restock")  # spend_gil is "ask" until the player says otherwise
    call = assistant.start_call_tool("restock_buy", {"count": 3})  # it waits for the player
    approval = player.wait_approval("restock_buy")
    assert approval.capabilities == ["spend_gil"]
    player.approve(approval.approval_id)

    result = call.result()

    assert not result.is_error, result.text
    assert result.structured == {"bought": 3, "gilSpent": 3 * PRICE, "gilLeft": 100_000 - 3 * PRICE}
    assert [(c.by, c.capability) for c in game.changes()] == [("Restock", "spend_gil"), ("Restock", "move_items")]
    assert next(i.count for i in game.state().inventory if i.item_id == HI_POTION) == 20 + 3


def test_a_purchase_the_player_denies_changes_nothing(
    player: SyncPlayer, assistant: SyncAssistant, game: SyncGame, plugin_process: PluginProcesses
) -> None:
    start_restock(plugin_process)
    player.enable("Restock")
    player.mode("Restock", "spend_gil", "deny")

    result = assistant.call_tool("restock_buy", {"count": 1})

    assert result.is_error
    assert "Spend gil" in result.text and "blocked" in result.text
    assert game.changes() == []


@pytest.mark.xivmcp(auto_enable=True)  # enabled as it registers, its capabilities allowed
def test_the_status_reads_the_world_as_the_test_set_it(
    assistant: SyncAssistant, game: SyncGame, plugin_process: PluginProcesses
) -> None:
    game.set("gil", 500)
    start_restock(plugin_process)

    assert assistant.call_tool("restock_status").structured == {"gil": 500, "hiPotions": 20}
    bought = assistant.call_tool("restock_buy", {"count": 2})  # 640 gil, and only 500 held

    assert bought.is_error and bought.text.startswith("Nothing was bought:"), bought.text
    assert [c.summary for c in game.changes()] == ["set gil to 500 (was 100,000)"]  # the test's own, alone


def test_the_players_decision_outlives_a_crash_of_the_plugin(
    player: SyncPlayer, assistant: SyncAssistant, plugin_process: PluginProcesses
) -> None:
    plugin = start_restock(plugin_process)
    player.enable("Restock")

    plugin.restart()  # kill -9, then start again: a crash and a reload
    plugin.expect("Restock: registered")

    assert player.plugin("Restock").state == "enabled"
    assert assistant.call_tool("restock_prices").structured == {"buy": PRICE, "sell": 12}


@pytest.mark.asyncio
@pytest.mark.xivmcp(auto_enable=True)
async def test_the_same_kit_awaited(
    async_assistant: Assistant, async_game: Game, plugin_process: PluginProcesses
) -> None:
    plugin = plugin_process.start("my_plugin.py")
    await plugin.expect_async("Restock: registered")

    async with async_game.changes_during() as changes:
        result = await async_assistant.call_tool("restock_buy", {"count": 1})

    assert not result.is_error, result.text
    assert [c.kind for c in changes] == ["gil", "items"]
