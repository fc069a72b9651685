"""The trade window across processes (W1, W2): other players from the world file, each trade gate's
effect on the world, the changes it records with the capability each needs, and refusals that
change nothing."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from game import SnapshotDelta, TradeGoods, TradeStack, World, default_world
from game._world_file import check_world
from gates.testing import XivMcpSystem

from ._system import TESTER, fresh, game_system, refusal

HI_POTION, ETHER = 4554, 4555


@pytest.fixture(scope="module")
def trades(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with game_system(tmp_path_factory.mktemp("trades")) as system:
        yield system


@pytest.mark.asyncio
async def test_w1_the_default_world_has_players_to_trade_with(trades: XivMcpSystem) -> None:
    async with fresh(trades) as (_, game):
        world = await game.state()
        assert [(o.name, o.trades) for o in world.other_players] == [
            ("Rhiki Rhaki", "accept"),
            ("Ysolde Marchand", "decline"),
            ("Bertliana", "accept"),
        ]
        assert world.trade is None and await game.get_trade() is None


@pytest.mark.asyncio
async def test_w2_a_trade_opens_fills_and_completes_recording_each_capability(trades: XivMcpSystem) -> None:
    async with fresh(trades) as (_, game):
        before = await game.state()
        opened = await game.trade_request("rhiki rhaki")
        assert opened.accepted
        assert [(c.by, c.capability, c.delta) for c in opened.changes] == [(TESTER, "game_ui", SnapshotDelta())]
        window = await game.get_trade()
        assert window is not None and window.partner == "Rhiki Rhaki" and window.they_pressed_trade
        assert window.receive == TradeGoods(items=[TradeStack(item_id=ETHER, count=3)])

        filled = await game.trade_offer([TradeStack(item_id=HI_POTION, count=2)], gil=1_500)
        assert [(c.capability, c.delta) for c in filled.changes] == [("game_ui", SnapshotDelta())]
        done = await game.trade_confirm()
        assert [(c.by, c.kind, c.capability, c.delta) for c in done.changes] == [
            (TESTER, "items", "trade_items", SnapshotDelta(item_total=-2)),
            (TESTER, "gil", "spend_gil", SnapshotDelta(gil=-1_500)),
            (TESTER, "items", "trade_items", SnapshotDelta(item_total=3)),
            (TESTER, "trade", "game_ui", SnapshotDelta()),
        ]
        assert done.changes[0].summary == "traded 2 Hi-Potion to Rhiki Rhaki"
        after = await game.state()
        held = {i.item_id: i.count for i in after.inventory}
        was = {i.item_id: i.count for i in before.inventory}
        assert (held[HI_POTION], held[ETHER]) == (was[HI_POTION] - 2, was.get(ETHER, 0) + 3)
        assert after.player.gil == before.player.gil - 1_500 and after.trade is None


@pytest.mark.asyncio
async def test_w2_a_cancelled_trade_moves_nothing(trades: XivMcpSystem) -> None:
    async with fresh(trades) as (_, game):
        before = (await game.snapshot()).snapshot
        await game.trade_request("Rhiki Rhaki")
        await game.trade_offer([TradeStack(item_id=HI_POTION, count=5)], gil=100)
        cancelled = await game.trade_cancel()
        assert [(c.capability, c.summary) for c in cancelled.changes] == [
            ("game_ui", "cancelled the trade with Rhiki Rhaki; nothing changed hands")
        ]
        assert (await game.snapshot()).snapshot == before and await game.get_trade() is None
        assert (await game.trade_cancel()).changes == []  # none open: nothing to do


@pytest.mark.asyncio
async def test_w2_trade_refusals_change_nothing(trades: XivMcpSystem) -> None:
    async with fresh(trades) as (_, game):
        seq = (await game.snapshot()).seq
        declined = await game.trade_request("Ysolde Marchand")
        assert not declined.accepted and declined.changes == [] and await game.get_trade() is None
        error = await refusal(game.trade_request("Bertliana"))
        assert error.startswith("Game.TradeRequest: Bertliana is ") and "walk within 4 yalms of them first" in error
        error = await refusal(game.trade_request("Nobody"))
        assert error.startswith("Game.TradeRequest: no player called 'Nobody' is in this zone; standing here: ")
        error = await refusal(game.trade_offer([TradeStack(item_id=HI_POTION, count=1)]))
        assert error.startswith("Game.TradeOffer: no trade is open")
        await game.trade_request("Rhiki Rhaki")
        seq = (await game.snapshot()).seq
        error = await refusal(game.trade_offer([TradeStack(item_id=HI_POTION, count=1)] * 6))
        assert error == "Game.TradeOffer: one side of a trade holds 5 stacks and `items` lists 6"
        error = await refusal(game.trade_offer([TradeStack(item_id=HI_POTION, count=9_000)]))
        assert "cannot put 9,000 into the trade" in error
        error = await refusal(game.trade_offer(gil=1_000_001))
        assert error == "Game.TradeOffer: `gil` is 1,000,001: one side of a trade holds 0 to 1,000,000 gil"
        error = await refusal(game.trade_request("Rhiki Rhaki"))
        assert error.startswith("Game.TradeRequest: a trade with Rhiki Rhaki is open")
        assert (await game.snapshot()).seq == seq  # refused: nothing recorded


def test_w1_a_world_file_with_a_wrong_trader_names_the_field() -> None:
    world = default_world()
    world.other_players[0].territory = 9999
    assert "`$.otherPlayers[0].territory` is 9999" in (check_world(world) or "")
    world = default_world()
    world.other_players[0].offers.items.append(TradeStack(item_id=123456, count=1))
    assert "`$.otherPlayers[0].offers.items[1]`" in (check_world(world) or "")
    again = msgspec.json.decode(msgspec.json.encode(default_world()), type=World)  # a world file round trip
    assert again.other_players == default_world().other_players and check_world(again) is None
