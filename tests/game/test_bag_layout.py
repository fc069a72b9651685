"""The bags' slot layout follows the counts (`game/_bag_layout.py`); world files without one still load."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from game import BagStack, World, default_world, load_world
from game._bag_layout import reconcile


def test_w1_a_world_file_without_bags_loads_and_gets_them_from_its_counts(tmp_path: Path) -> None:
    document = json.loads(msgspec.json.encode(default_world()))
    del document["bags"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    world = load_world(path)
    reconcile(world)  # as the engine does with the world it starts with
    assert world.bags == default_world().bags
    assert [(s.container, s.slot, s.item_id, s.count) for s in world.bags[:2]] == [
        ("Inventory1", 0, 4554, 20),
        ("Inventory1", 1, 44162, 5),
    ]
    assert all(s.item_id not in range(2, 20) for s in world.bags)  # crystals have a container of their own


def test_w1_a_layout_that_disagrees_with_the_counts_is_brought_in_line() -> None:
    world = default_world()
    for item in world.items:
        if item.item_id == 4554:
            item.stack_size = 8
    world.bags = [
        BagStack(container="Inventory4", slot=34, item_id=4554, count=20),  # over the stack size
        BagStack(container="Inventory9", slot=0, item_id=44162, count=5),  # not a bag
        BagStack(container="Inventory2", slot=35, item_id=44178, count=1),  # not a slot
        BagStack(container="Inventory2", slot=2, item_id=3, count=450),  # a crystal
        BagStack(container="Inventory2", slot=1, item_id=41763, count=1),  # not in the bags' counts
    ]
    reconcile(world)
    potions = [(s.container, s.slot, s.count) for s in world.bags if s.item_id == 4554]
    assert potions == [("Inventory1", 0, 8), ("Inventory1", 1, 4), ("Inventory4", 34, 8)]
    assert all(s.item_id != 41763 for s in world.bags)
    bagged = [i for i in world.inventory if i.item_id not in range(2, 20)]
    placed = {i.item_id: sum(s.count for s in world.bags if s.item_id == i.item_id) for i in bagged}
    assert placed == {i.item_id: i.count for i in bagged}
    assert all(s.item_id != 3 for s in world.bags)


def test_w1_what_does_not_fit_the_140_slots_is_counted_but_lies_nowhere() -> None:
    world: World = default_world()
    for item in world.inventory:
        if item.item_id == 4554:
            item.count = 999 * 200
    reconcile(world)
    assert len(world.bags) == 4 * 35
    assert sum(i.count for i in world.inventory if i.item_id == 4554) == 999 * 200
