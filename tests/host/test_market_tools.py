"""XIV MCP's market and retainer tools against the simulated game, all real processes (W5).

One system for the module (broker, `xivmcp game --test-clock`, host), with the changes of Market &
purchases and Items & retainers allowed (denied by default, as in the real host). Each test puts
the world back as the game started (`Game.Reset`) and the character at its start. Each tool's
effect on the world is read from the game, and each change it made from the game's change log:
made by XivMcp, with the capability it needs. A refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from gates.host.tools._bell import AUTORETAINER_BUSY, NOT_AT_BELL
from gates.host.tools._retainer_tools import LIST_NOT_OPEN

from ._game_session import fresh, made_since, snapshot, start_game_allowing
from ._system import WAIT, XivMcpSystem

pytestmark = pytest.mark.asyncio

SUPPLIER = (14.0, -6.0)
"""The Material Supplier in Tuliyollal (world x, z)."""
BELL = (-8.0, 30.0)


@pytest.fixture(scope="module")
def shops(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "game_navigation", "market", "items_retainers")


async def test_w5_buy_item_buys_from_the_vendor_the_character_stands_at(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game):
        before, seq = await snapshot(game)
        error = await assistant.error("buy_item", {"item": "Hi-Potion", "quantity": 3})
        assert error == (
            "Material Supplier is not nearby; go there first (Tuliyollal (11.5, 11.1)), for example with "
            "navigate_to destination=npc."
        )
        assert await snapshot(game) == (before, seq)  # refused: nothing changed

        await game.set_position(SUPPLIER[0] - 2.0, SUPPLIER[1])
        _, seq = await snapshot(game)
        bought = await assistant.result("buy_item", {"item": "hi-potion", "quantity": 3, "npc": "material"})
        assert bought == {
            "bought": 3,
            "requested": 3,
            "item": "Hi-Potion",
            "from": "Material Supplier",
            "paidWith": "gil",
            "gilSpent": 960,
            "nowInBags": 23,
            "steps": ["Talking to Material Supplier.", "Shop open (Shop).", "Buying 3."],
        }
        assert await made_since(game, seq) == [
            ("XivMcp", "spend_gil", "paid 960 gil for 3 × Hi-Potion"),
            ("XivMcp", "move_items", "received 3 × Hi-Potion from Material Supplier"),
        ]


async def test_w5_buy_item_refusals_change_nothing_and_say_what_to_do(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game):
        await game.set_position(SUPPLIER[0] - 2.0, SUPPLIER[1])
        await game.set("gil", 100)
        before = await snapshot(game)
        for arguments, message in [
            ({"item": "Hi-Potion", "quantity": 0}, "'quantity' must be at least 1."),
            ({"quantity": 1}, "'item' is required."),
            ({"item": "Potion", "quantity": 1, "npc": "Wuk"}, "'Wuk' doesn't sell this item. Use find_vendors."),
            ({"item": "Fire Shard", "quantity": 1}, "No NPC vendor sells this item."),
            ({"item": "Hi-Potion", "quantity": 10}, "Not enough gil: about 3,200 needed, 100 owned."),
            ({"item": "Savage Aim Materia XII", "quantity": 1, "approval": "nope"}, "No approval 'nope'."),
        ]:
            assert await assistant.error("buy_item", arguments) == message
        assert await snapshot(game) == before


async def test_w5_sell_item_lists_through_a_retainer_just_under_the_cheapest_offer(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game):
        before = await snapshot(game)
        assert await assistant.error("sell_item", {"retainer": "Ququru", "item": "Hi-Potion"}) == NOT_AT_BELL
        assert await snapshot(game) == before

        await game.set_position(*BELL)
        _, seq = await snapshot(game)
        selling = {"retainer": "ququru", "item": "Hi-Potion", "quantity": 5, "hq": False, "allow_low_price": False}
        sold = await assistant.result("sell_item", selling)
        assert sold["outcome"] == {"listed": True, "pricePerUnit": 289, "undercut": 290}
        assert (sold["retainer"], sold["item"], sold["quantity"]) == ("Ququru", "Hi-Potion", 5)
        assert [c for c in await made_since(game, seq) if c[1] != "game_ui"] == [
            ("XivMcp", "trade_items", "put 5 × Hi-Potion up for sale at 289 gil each through Ququru")
        ]
        assert (await game.retainers()).open is None  # dismissed again

        [ququru] = await assistant.result("get_market_listings", {"retainer": "Ququru", "compare": True})
        assert ququru["listings"][-1] == {
            "item": "Hi-Potion",
            "quantity": 5,
            "pricePerUnit": 289,
            "lowestCompetitor": {"price": 290, "retainer": "Bortho"},
            "undercut": False,
        }


async def test_w5_the_retainer_tools_open_transfer_and_close_at_a_bell_only(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game):
        retainers = await assistant.result("get_retainers")
        assert [(r["name"], r["classJob"], r["itemCount"], r["marketItemCount"]) for r in retainers] == [
            ("Ququru", "Botanist", 500, 1),
            ("Mirah", "Fisher", 0, 0),
        ]
        before = await snapshot(game)
        assert await assistant.error("open_retainer", {"retainer": "Ququru"}) == NOT_AT_BELL
        transfer = {"transfers": [{"item_id": 4554, "from": "player", "to": "Ququru"}]}
        assert await assistant.error("transfer_retainer_items", transfer) == LIST_NOT_OPEN
        assert await assistant.error("transfer_retainer_items", {"transfers": []}) == (
            "'transfers' must be a non-empty array."
        )
        assert await snapshot(game) == before

        await game.set_position(*BELL)
        _, seq = await snapshot(game)
        assert await assistant.result("open_retainer", {"retainer": "ququru"}) == {"opened": "Ququru"}
        moved = await assistant.result("transfer_retainer_items", transfer)
        assert (moved["completed"], moved["requested"]) == (1, 1)
        assert moved["results"][0]["quantityMoved"] == 20 and moved["results"][0]["error"] is None
        assert await made_since(game, seq) == [
            ("XivMcp", "game_ui", "called Ququru at the bell"),
            ("XivMcp", "move_items", "entrusted 20 × Hi-Potion to Ququru"),
            ("XivMcp", "game_ui", "dismissed Ququru"),
        ]
        [mine] = await assistant.result("get_retainer_inventories", {"retainer": "Ququru", "query": "potion"})
        assert mine["retainers"][0]["items"] == [{"item": "Hi-Potion", "itemId": 4554, "quantity": 20}]

        back = {
            "transfers": [
                {"item_id": 4554, "from": "Ququru", "to": "Mirah"},
                {"item_id": 2, "from": "Mirah", "to": "player"},
            ]
        }
        moved = await assistant.result("transfer_retainer_items", back)
        assert (moved["completed"], moved["requested"]) == (1, 2)
        assert moved["results"][1]["error"] == "Mirah has no Fire Shard."
        assert await assistant.result("close_retainer") == {"closed": None}


async def test_a8_autoretainer_at_the_bell_holds_open_retainer_back_until_it_is_done_then_is_suppressed(
    shops: XivMcpSystem,
) -> None:
    autoretainer = shops.start_plugin("plugins_sample.autoretainer", "--seconds", "600")
    try:
        await autoretainer.expect("AutoRetainer: ready")
        async with fresh(shops) as (assistant, game):
            await game.set_position(*BELL)  # the character comes to the bell: AutoRetainer starts on its own
            await autoretainer.expect("AutoRetainer: processing retainers at the bell")
            _, seq = await snapshot(game)
            assert await assistant.error("open_retainer", {"retainer": "Mirah"}) == AUTORETAINER_BUSY
            status = await assistant.result("get_automation_status")
            assert status == {
                "plugins": {
                    "AutoRetainer": {"busy": True, "multiMode": False, "suppressed": False, "suppressedByXivMcp": False}
                },
                "holdingBell": False,
            }
            assert [c for c in await made_since(game, seq) if c[0] == "XivMcp"] == []  # refused: nothing done

            with anyio.fail_after(WAIT):
                await assistant.pi.get_ipc_subscriber("AutoRetainer.PluginState.AbortAllTasks").invoke_action()
            await autoretainer.expect("AutoRetainer: done")
            assert await assistant.result("open_retainer", {"retainer": "Mirah"}) == {"opened": "Mirah"}
            await autoretainer.expect("AutoRetainer: suppressed")  # held back while XIV MCP uses the bell
            status = await assistant.result("get_automation_status")
            assert status["plugins"]["AutoRetainer"]["suppressedByXivMcp"] is True and status["holdingBell"] is True
            assert await assistant.result("close_retainer") == {"closed": "Mirah"}
            await autoretainer.expect("AutoRetainer: released")
    finally:
        autoretainer.kill()


async def test_t2_myplugin_restock_buys_through_the_games_purchase_path_as_it_declares(shops: XivMcpSystem) -> None:
    myplugin = shops.start_plugin("plugins_sample.myplugin")
    try:
        await myplugin.expect("MyPlugin: registered myplugin_restock")
        async with fresh(shops) as (assistant, game):
            player = assistant.player
            await player.enable("MyPlugin")
            await player.set_modes("MyPlugin", spend_gil="allow", move_items="allow")
            before = await snapshot(game)
            error = await assistant.error("myplugin_restock", {"count": 2})
            assert error == (
                "Material Supplier is not nearby: walk up to them in Tuliyollal first (navigate_to destination=npc), "
                "then call again."
            )
            assert await snapshot(game) == before

            await game.set_position(SUPPLIER[0], SUPPLIER[1] + 1.0)
            _, seq = await snapshot(game)
            bought = await assistant.result("myplugin_restock", {"count": 2, "item": "Ether"})
            assert bought == {"bought": 2, "item": "Ether", "gil": 560, "gilLeft": 100_000 - 560}
            assert await made_since(game, seq) == [
                ("MyPlugin", "spend_gil", "paid 560 gil for 2 × Ether"),
                ("MyPlugin", "move_items", "received 2 × Ether from Material Supplier"),
            ]
            assert (await player.plugin("MyPlugin")).state == "enabled"  # what it did is what it declared
    finally:
        myplugin.kill()
