"""The slot layout of the bags (`World.bags`) and how it follows the counts (`World.inventory`).

The counts are the one truth of how many; `reconcile`, which the engine runs after every recorded
change and on a world it starts with, puts the stacks in line with them: what left the bags comes
out of the last stacks of that item, what came in tops up its stacks and then fills the first free
slots. What does not fit into the 4 x 35 slots is counted but lies nowhere; crystals have a
container of their own (as get_inventory's `crystals`) and no place in the bags. `_bags` moves and sorts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ._documents import BagStack, World

__all__ = [
    "BAGS",
    "BAG_SLOTS",
    "CRYSTAL_IDS",
    "bag_order",
    "empty_slots",
    "fill",
    "first_empty",
    "reconcile",
    "stack_at",
    "stack_size",
]

BAGS: Final = ("Inventory1", "Inventory2", "Inventory3", "Inventory4")
"""The bags, in the game's order (the real host's container names)."""
BAG_SLOTS: Final = 35
"""Slots in each bag, numbered from 0."""
CRYSTAL_IDS: Final = range(2, 20)
"""Shards, crystals and clusters: the game keeps them in a container of their own, not in the bags."""


def bag_order(stack: BagStack) -> tuple[int, int]:
    return BAGS.index(stack.container), stack.slot


def _positions(containers: Iterable[str] = BAGS) -> list[tuple[str, int]]:
    return [(bag, slot) for bag in containers for slot in range(BAG_SLOTS)]


def _sizes(world: World) -> dict[int, int]:
    return {item.item_id: max(1, item.stack_size) for item in world.items}


def stack_size(world: World, item_id: int) -> int:
    return _sizes(world).get(item_id, 999)


def stack_at(world: World, container: str, slot: int) -> BagStack | None:
    return next((s for s in world.bags if s.container == container and s.slot == slot), None)


def empty_slots(world: World, containers: Iterable[str] = BAGS) -> list[tuple[str, int]]:
    taken = {(s.container, s.slot) for s in world.bags}
    return [p for p in _positions(containers) if p not in taken]


def first_empty(world: World, containers: Iterable[str] = BAGS) -> tuple[str, int] | None:
    return next(iter(empty_slots(world, containers)), None)


def fill(world: World, stacks: list[BagStack], item_ids: Iterable[int], missing: dict[int, int]) -> None:
    """Put `missing` of each item into `stacks`: its own stacks topped up first, then the first free slots."""
    sizes = _sizes(world)
    taken = {(s.container, s.slot) for s in stacks}
    free = [p for p in _positions() if p not in taken]
    for item_id in item_ids:
        size = sizes.get(item_id, 999)
        left = missing.get(item_id, 0)
        for stack in stacks:
            if left > 0 and stack.item_id == item_id and stack.count < size:
                added = min(left, size - stack.count)
                stack.count += added
                left -= added
        while left > 0 and free:
            container, slot = free.pop(0)
            count = min(left, size)
            stacks.append(BagStack(container=container, slot=slot, item_id=item_id, count=count))
            left -= count


def reconcile(world: World) -> None:
    """Bring the stacks in line with the counts (after a change, or for a world file without them)."""
    sizes = _sizes(world)
    wanted = {h.item_id: h.count for h in world.inventory if h.count > 0 and h.item_id not in CRYSTAL_IDS}
    kept: list[BagStack] = []
    seen: set[tuple[str, int]] = set()
    for stack in world.bags:
        where = (stack.container, stack.slot)
        if stack.container in BAGS and 0 <= stack.slot < BAG_SLOTS and where not in seen and stack.count > 0:
            if stack.item_id in wanted:
                seen.add(where)
                stack.count = min(stack.count, sizes.get(stack.item_id, 999))
                kept.append(stack)
    kept.sort(key=bag_order)
    placed: dict[int, int] = {}
    for stack in kept:
        placed[stack.item_id] = placed.get(stack.item_id, 0) + stack.count
    for stack in reversed(kept):  # what left the bags comes out of the last stacks
        surplus = placed[stack.item_id] - wanted[stack.item_id]
        if surplus > 0:
            taken = min(surplus, stack.count)
            stack.count -= taken
            placed[stack.item_id] -= taken
    kept = [s for s in kept if s.count > 0]
    missing = {item_id: count - placed.get(item_id, 0) for item_id, count in wanted.items()}
    fill(world, kept, [held.item_id for held in world.inventory], missing)
    kept.sort(key=bag_order)
    if kept != world.bags:
        world.bags = kept
