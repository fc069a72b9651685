"""Vendors, the market board and retainers across processes (W1, W2): each gate's effect on the
world, the changes it records with the capability each needs, and refusals that change nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from game import INTERACT_REACH, SnapshotDelta, World, default_world
from game._world_file import check_world
from gates.testing import XivMcpSystem

from ._system import TESTER, fresh, game_system, refusal

SUPPLIER = (14.0, -6.0)
"""The Material Supplier in Tuliyollal (world x, z)."""
BELL = (-8.0, 30.0)


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with game_system(tmp_path_factory.mktemp("shops")) as system:
        yield system


@pytest.mark.asyncio
async def test_w1_the_default_world_has_a_vendor_a_market_board_and_retainers(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (_, game):
        [supplier] = await game.vendors()
        assert (supplier.npc, supplier.territory) == ("Material Supplier", 1185)
        assert {(i.item_id, i.price, i.stock) for i in supplier.items} >= {(4554, 320, None), (4555, 280, 30)}
        assert [(m.price, m.retainer) for m in await game.market(4554)] == [(290, "Bortho"), (305, "Tyrlend")]
        held = await game.retainers()
        assert [r.name for r in held.retainers] == ["Ququru", "Mirah"] and held.open is None and not held.at_bell


@pytest.mark.asyncio
async def test_w2_vendor_buy_needs_the_vendor_near_then_pays_and_the_stock_goes_down(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (_, game):
        before = (await game.snapshot()).snapshot
        error = await refusal(game.vendor_buy("Material Supplier", 4555, 2))
        assert error.startswith("Game.VendorBuy: Material Supplier is not nearby: walk up to them in Tuliyollal")
        assert (await game.snapshot()).snapshot == before  # refused: nothing changed

        await game.set_position(SUPPLIER[0] + 2.0, SUPPLIER[1])
        reply = await game.vendor_buy("material supplier", 4555, 2)
        assert [(c.by, c.kind, c.capability, c.delta) for c in reply.changes] == [
            (TESTER, "gil", "spend_gil", SnapshotDelta(gil=-560)),
            (TESTER, "items", "move_items", SnapshotDelta(item_total=2)),
        ]
        [supplier] = await game.vendors()
        assert next(i.stock for i in supplier.items if i.item_id == 4555) == 28
        error = await refusal(game.vendor_buy("Material Supplier", 4555, 29))
        assert error == "Game.VendorBuy: Material Supplier has 28 × Ether left; buy at most that many"
        error = await refusal(game.vendor_buy("Material Supplier", 44162))
        assert "Material Supplier does not sell item 44162" in error


@pytest.mark.asyncio
async def test_w2_retainers_are_called_at_a_bell_and_entrusting_moves_items_out_of_the_bags(
    shops: XivMcpSystem,
) -> None:
    async with fresh(shops) as (_, game):
        error = await refusal(game.open_retainer("Ququru"))
        assert error.startswith("Game.OpenRetainer: the character is not at a summoning bell")
        error = await refusal(game.retainer_transfer(4554, 3))
        assert error.startswith("Game.RetainerTransfer: the character is not at a summoning bell")

        await game.set_position(BELL[0], BELL[1] + INTERACT_REACH - 1)
        opened = await game.open_retainer("ququru")
        assert [(c.kind, c.capability, c.delta) for c in opened.changes] == [("retainer", "game_ui", SnapshotDelta())]
        entrusted = await game.retainer_transfer(4554, 3)
        assert [(c.capability, c.delta) for c in entrusted.changes] == [("move_items", SnapshotDelta(item_total=-3))]
        withdrawn = await game.retainer_transfer(2, 100, "withdraw")
        assert [(c.capability, c.delta) for c in withdrawn.changes] == [("move_items", SnapshotDelta(item_total=100))]
        sold = await game.retainer_sell(4554, 2, 300)
        assert [(c.capability, c.delta) for c in sold.changes] == [("trade_items", SnapshotDelta(item_total=-2))]

        held = await game.retainers()
        ququru = held.retainers[0]
        assert held.open == "Ququru" and held.at_bell
        assert {(i.item_id, i.count) for i in ququru.items} == {(2, 400), (4554, 3)}
        assert (ququru.market[-1].item_id, ququru.market[-1].price, ququru.market[-1].quantity) == (4554, 300, 2)
        closed = await game.close_retainer()
        assert [c.summary for c in closed.changes] == ["dismissed Ququru"]
        assert (await game.close_retainer()).changes == []  # nothing to dismiss: nothing recorded


def _set(path: str, value: object) -> Callable[[World], None]:
    def change(world: World) -> None:
        target: object = world
        *parents, last = path.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else getattr(target, part)  # type: ignore[index]
        setattr(target, last, value)

    return change


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (_set("vendors.0.territory", 1), "`$.vendors[0].territory` is 1, a zone this world does not have"),
        (_set("vendors.0.items.0.price", 0), "`$.vendors[0].items[0].price` is 0"),
        (_set("vendors.0.items.2.stock", -1), "`$.vendors[0].items[2].stock` is -1"),
        (_set("market.0.quantity", 0), "`$.market[0]` sells 0 at 290 gil"),
        (_set("retainers.1.name", "QUQURU"), "`$.retainers` names a retainer twice"),
        (_set("retainer_open", "Nobody"), "`$.retainerOpen` is 'Nobody', not one of the world's retainers"),
    ],
)
def test_w1_a_world_files_vendors_market_and_retainers_are_checked_naming_the_field(
    change: Callable[[World], None], says: str
) -> None:
    world = default_world()
    assert check_world(world) is None
    change(world)
    problem = check_world(world)
    assert problem is not None and problem.startswith(says), problem
