"""The gate that puts on a piece of gear from the bags (`Game.Equip`).

    Game.Equip   {itemId}: the item goes into its slot of the current character's sheet (a ring into
                 a free ring slot, else the right one); what was worn there goes back into the bags

The checks are the game's: not in combat, the item is gear (`World.gear`), the character's level
and job can wear it, and the bags hold one. An item worn already changes nothing. Equipping moves
an item out of the bags: recorded as `move_items`, the capability of the real host's
items_retainers module (the snapshot's `item_total` counts the bags, not what is worn, as the real
probe counts bags and armoury but not the equipped items).
"""

from __future__ import annotations

from gates.contract import CapabilityId

from ._args import _Args
from ._classjobs import find_class_job
from ._documents import InventoryItem, World
from ._engine import GameEngine
from ._errors import Refusal
from ._gear_documents import RING, GearInfo
from ._replies import ChangeReply
from ._sheet import EQUIP_SLOTS, CharacterSheet, EquippedItem

__all__ = ["EquipArgs", "EquipReply", "check_gear", "equip", "gear_of", "ring_slot"]


class EquipArgs(_Args, kw_only=True):
    item_id: int


class EquipReply(ChangeReply, kw_only=True):
    """`Game.Equip`: the slot the item is worn in, and whether it was worn already."""

    slot: str
    """The slot it is worn in (`EQUIP_SLOTS`)."""
    already: bool = False
    """It was worn already: nothing changed."""


def gear_of(world: World, item_id: int) -> GearInfo | None:
    return next((g for g in world.gear if g.item_id == item_id), None)


def ring_slot(sheet: CharacterSheet) -> str:
    """The free ring slot, the right one first; the right one when both are taken."""
    worn = {e.slot for e in sheet.equipment}
    return next((s for s in ("RightRing", "LeftRing") if s not in worn), "RightRing")


def _sheet(world: World) -> CharacterSheet:
    content_id = world.player.content_id
    found = next((s for s in world.sheets if s.content_id == content_id), None)
    if found is None:
        found = CharacterSheet(content_id=content_id)
        world.sheets.append(found)
    return found


def equip(engine: GameEngine, args: EquipArgs, by: str) -> EquipReply:
    engine.require_logged_in("change gear")
    world, player = engine.world, engine.world.player
    item = engine.item(args.item_id)
    sheet = next((s for s in world.sheets if s.content_id == player.content_id), CharacterSheet(content_id=0))
    worn = next((e for e in sheet.equipment if e.item_id == item.item_id), None)
    if worn is not None:
        return EquipReply(slot=worn.slot, already=True)
    if player.in_combat:
        raise Refusal("the character is in combat and cannot change gear; end the fight first (Game.EndCombat)")
    gear = gear_of(world, item.item_id)
    if gear is None:
        raise Refusal(f"{item.name} ({item.item_id}) is not gear: the world's `gear` gives it no slot")
    if player.level < gear.equip_level:
        raise Refusal(f"{item.name} needs level {gear.equip_level}; the character is level {player.level}")
    job = find_class_job(player.job)
    if gear.jobs and (job is None or all(find_class_job(j) != job for j in gear.jobs)):
        raise Refusal(f"{item.name} cannot be worn as {player.job}; it is for {', '.join(gear.jobs)}")
    if engine.held(item.item_id) < 1:
        raise Refusal(f"the bags hold no {item.name} ({item.item_id}); Game.GetInventory lists what they hold")
    slot = ring_slot(sheet) if gear.slot == RING else gear.slot
    piece = EquippedItem(
        slot=slot, item_id=item.item_id, name=item.name, item_level=gear.item_level, equip_level=gear.equip_level
    )
    old = next((e for e in sheet.equipment if e.slot == slot), None)

    def put_on() -> None:
        own = _sheet(world)
        engine.remove_items(item.item_id, 1)
        if old is not None:
            own.equipment.remove(old)
            held = next((i for i in world.inventory if i.item_id == old.item_id), None)
            if held is None:
                world.inventory.append(InventoryItem(item_id=old.item_id, name=old.name, count=1))
            else:
                held.count += 1
        own.equipment.append(piece)
        own.equipment.sort(key=lambda e: EQUIP_SLOTS.index(e.slot) if e.slot in EQUIP_SLOTS else len(EQUIP_SLOTS))

    summary = f"put on {item.name} ({slot})" + ("" if old is None else f"; {old.name} went back into the bags")
    change = engine.record(by, CapabilityId.MOVE_ITEMS, "items", summary, put_on)
    return EquipReply(slot=slot, changes=[change])


def check_gear(world: World) -> str | None:
    """Why a world file's `gear` cannot be used, naming the field, or None (W1)."""
    catalog = {item.item_id for item in world.items}
    slots = {*EQUIP_SLOTS, RING}
    for index, gear in enumerate(world.gear):
        where = f"$.gear[{index}]"
        if gear.item_id not in catalog:
            return f"`{where}.itemId` is {gear.item_id}, an item the catalog (`$.items`) does not have"
        if gear.slot not in slots:
            return f"`{where}.slot` is {gear.slot!r}: use one of {', '.join(sorted(slots))}"
        for job in gear.jobs:
            if find_class_job(job) is None:
                return f"`{where}.jobs` names {job!r}, not a class or job of the game (use abbreviations such as WAR)"
    if len({g.item_id for g in world.gear}) != len(world.gear):
        return "`$.gear` lists an item twice: each item is gear once"
    return None
