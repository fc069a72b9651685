"""Where the items in the bags lie: four bags of 35 slots, as the real game's Inventory1-4.

    World.inventory   how many of each item the bags hold: the one truth of how many
    World.bags        where they lie, stack by stack (`BagStack`): derived from the counts

The counts change as they always did (buying, selling, trading, equipping, …); after every
recorded change `_bag_layout.reconcile` brings the stacks in line with them.

    Game.MoveItems   {fromContainer, fromSlot, toContainer, toSlot, quantity?}: a drag in the
                     inventory window: onto an empty slot it moves, onto the same item it merges
                     (up to the stack size), onto another item it swaps; a quantity less than the
                     stack is split off into the first empty slot first
    Game.SortBags    {descending?}: the game's /itemsort by item id: stacks merged, in id order

Both are recorded as `move_items`, the capability of the real host's items_retainers module.
"""

from __future__ import annotations

from gates.contract import CapabilityId

from ._args import _Args
from ._bag_layout import BAG_SLOTS, BAGS, CRYSTAL_IDS, bag_order, empty_slots, fill, first_empty, stack_at, stack_size
from ._documents import BagStack
from ._engine import GameEngine
from ._errors import Refusal
from ._replies import ChangeReply

__all__ = ["MoveItemsArgs", "MoveItemsReply", "SortBagsArgs", "move_items", "sort_bags"]


class MoveItemsArgs(_Args, kw_only=True):
    from_container: str
    from_slot: int
    to_container: str
    to_slot: int | None = None
    """None: the first empty slot of `to_container`."""
    quantity: int | None = None
    """Move only this many of the stack (None: all of it)."""


class MoveItemsReply(ChangeReply, kw_only=True):
    """`Game.MoveItems`: what moved from which bag slot to which, and whether two stacks swapped."""

    status: str
    """"moved" (onto an empty slot or merged into a stack of the same item) or "swapped"."""
    from_slot: str
    to_slot: str
    item: str


def _bag(name: str) -> str:
    bag = next((b for b in BAGS if b.casefold() == name.strip().casefold()), None)
    if bag is None:
        raise Refusal(f"{name!r} is not a bag of this game: use one of {', '.join(BAGS)}")
    return bag


def _slot(bag: str, slot: int) -> int:
    if not 0 <= slot < BAG_SLOTS:
        raise Refusal(f"{bag} has slots 0-{BAG_SLOTS - 1}; slot {slot} is not one of them")
    return slot


def move_items(engine: GameEngine, args: MoveItemsArgs, by: str) -> MoveItemsReply:
    engine.require_logged_in("move items")
    world = engine.world
    if world.player.in_combat:
        raise Refusal("the character is in combat and cannot move items; end the fight first (Game.EndCombat)")
    if world.trade is not None:
        raise Refusal("the trade window is open and the bags cannot change; cancel the trade first (Game.TradeCancel)")
    source_bag, target_bag = _bag(args.from_container), _bag(args.to_container)
    source_slot = _slot(source_bag, args.from_slot)
    source = stack_at(world, source_bag, source_slot)
    if source is None:
        raise Refusal(f"{source_bag}[{source_slot}] is empty; Game.State's `bags` shows where the items lie")
    count = source.count if args.quantity is None else args.quantity
    if count < 1:
        raise Refusal(f"quantity is {count}: move at least 1")
    split = count < source.count
    split_to = first_empty(world) if split else None
    if split and split_to is None:
        raise Refusal("splitting a stack needs an empty slot in the bags; free one first")
    if args.to_slot is None:  # the first empty slot once the part has split off
        target = next((p for p in empty_slots(world, [target_bag]) if p != split_to), None)
        if target is None:
            raise Refusal(f"{target_bag} has no empty slot; give toSlot")
        target_slot = target[1]
    else:
        target_slot = _slot(target_bag, args.to_slot)
    if (source_bag, source_slot) == (target_bag, target_slot):
        raise Refusal("the source and the target are the same slot")
    held = stack_at(world, target_bag, target_slot)
    name = engine.item_name(source.item_id)
    swapped = held is not None and held.item_id != source.item_id
    size = stack_size(world, source.item_id)

    def drag() -> None:
        moving = source
        if split_to is not None:  # the part splits off into the first empty slot, then moves from there
            source.count -= count
            moving = BagStack(container=split_to[0], slot=split_to[1], item_id=source.item_id, count=count)
            world.bags.append(moving)
        target = stack_at(world, target_bag, target_slot)
        if target is None:
            moving.container, moving.slot = target_bag, target_slot
        elif target.item_id == moving.item_id:
            merged = min(moving.count, max(0, size - target.count))
            target.count += merged
            moving.count -= merged
            if moving.count == 0:
                world.bags.remove(moving)
        else:
            target.container, target.slot = moving.container, moving.slot
            moving.container, moving.slot = target_bag, target_slot
        world.bags.sort(key=bag_order)

    whence, whither = f"{source_bag}[{source_slot}]", f"{target_bag}[{target_slot}]"
    summary = f"moved {count} {name} from {whence} to {whither}"
    if held is not None:
        summary += f" (swapped with {engine.item_name(held.item_id)})" if swapped else " (merged)"
    change = engine.record(by, CapabilityId.MOVE_ITEMS, "items", summary, drag)
    status = "swapped" if swapped else "moved"
    return MoveItemsReply(status=status, from_slot=whence, to_slot=whither, item=name, changes=[change])


class SortBagsArgs(_Args, kw_only=True):
    descending: bool = False


def sort_bags(engine: GameEngine, args: SortBagsArgs, by: str) -> ChangeReply:
    engine.require_logged_in("sort the bags")
    world = engine.world
    if world.player.in_combat:
        raise Refusal("the character is in combat and cannot sort the bags; end the fight first (Game.EndCombat)")
    if world.trade is not None:
        raise Refusal("the trade window is open and the bags cannot change; cancel the trade first (Game.TradeCancel)")
    held = {h.item_id: h.count for h in world.inventory if h.item_id not in CRYSTAL_IDS}
    order = sorted(held, reverse=args.descending)

    def sort() -> None:
        stacks: list[BagStack] = []
        fill(world, stacks, order, held)
        world.bags = sorted(stacks, key=bag_order)

    way = "descending" if args.descending else "ascending"
    change = engine.record(by, CapabilityId.MOVE_ITEMS, "items", f"sorted the bags by item id ({way})", sort)
    return ChangeReply(changes=[change])
