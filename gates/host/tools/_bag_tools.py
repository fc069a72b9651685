"""XIV MCP's move_items and sort_inventory over the simulated bags (module items_retainers).

    move_items       'moves' read as the real host reads them (a refusal of the call) ─► each move in
                     order: the source (from_container+from_slot, or the first stack of item_id), the
                     target (to_slot, or the first empty slot), the real host's checks ─► `Game.MoveItems`
                     (recorded as move_items) ─► {index, ok, status: moved|swapped, item, from, to}; a
                     failed move is {ok: false, status: failed, reason} and stops the rest unless
                     continue_on_error
    sort_inventory   'categories' and 'conditions' read as the real host reads them; only the bags by
                     item id are simulated (others refused, naming what is) ─► `Game.SortBags`
                     (recorded as move_items) ─► {sorted, commands, gameMessages, note}

Only the bags (Inventory1-4, 35 slots each) have slots here (`game/_bag_layout.py`). The words are
the real host's (`InventoryActionTools.cs`); what differs is in docs/fidelity.md.
"""

from __future__ import annotations

from typing import Any, Final

from game import BAG_SLOTS, BAGS, BagStack, World
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._game_tools import GameAccess

__all__ = ["SORT_CATEGORIES", "SORT_CONDITIONS", "BagTools"]

SORT_CATEGORIES: Final = (
    *("inventory", "retainer", "armoury", "saddlebag", "rightsaddlebag", "mh", "oh", "head", "body", "hands"),
    *("legs", "feet", "neck", "ears", "wrists", "rings", "soul"),
)
_ARMOURY_SLOTS: Final = SORT_CATEGORIES[5:]
SORT_CONDITIONS: Final = (
    *("id", "spiritbond", "category", "lv", "ilv", "stack", "hq", "materia", "pdamage", "mdamage", "delay"),
    *("autoattack", "blockrate", "blockstrength", "defense", "mdefense", "str", "dex", "vit", "int", "mnd"),
    *("craftsmanship", "control", "gathering", "perception"),
)
SORT_NOTE: Final = (
    "The game applies the sort itself; check get_inventory to see the result. Game error messages, if any, "
    "are listed in gameMessages."
)
NO_PAUSE: Final = "none: the simulated game confirms each move at once"


class _Move:
    """One move as the real host's `MoveRequest.Parse` reads it."""

    def __init__(self, index: int, value: Any) -> None:
        if not isinstance(value, dict):
            raise RefusedError(f"Move #{index}: must be an object.")
        self.index = index
        self.source = None if value.get("from_container") is None else _container(value["from_container"], index)
        if value.get("to_container") is None:
            raise RefusedError(f"Move #{index}: 'to_container' is required.")
        self.target = _container(value["to_container"], index)
        self.from_slot = _whole(value, "from_slot", -1)
        item_id = _whole(value, "item_id", None)
        self.item_id = item_id if item_id is None or item_id > 0 else None
        if self.item_id is None and (self.source is None or self.from_slot is None):
            raise RefusedError(f"Move #{index}: give from_container + from_slot, or item_id.")
        self.hq = value.get("hq")
        self.to_slot = _whole(value, "to_slot", -1)
        self.quantity = _whole(value, "quantity", 1)
        if self.quantity is not None and not 1 <= self.quantity <= 999_999:
            raise RefusedError(f"Move #{index}: 'quantity' must be from 1 to 999999.")


def _whole(value: dict[str, Any], name: str, fallback: int | None) -> int | None:
    if name not in value:
        return None
    number = value[name]
    if isinstance(number, bool) or not isinstance(number, int | float | str):
        return fallback
    try:
        return int(float(number))
    except ValueError:
        return fallback


def _container(name: Any, index: int) -> str:
    found = next((bag for bag in BAGS if bag.casefold() == str(name).strip().casefold()), None)
    if found is None:
        raise RefusedError(
            f"Move #{index}: '{name}' is not a container items can be moved to/from. Valid: {', '.join(BAGS)}"
        )
    return found


def _at(world: World, container: str, slot: int) -> BagStack | None:
    return next((s for s in world.bags if s.container == container and s.slot == slot), None)


def _first_empty(world: World, containers: tuple[str, ...]) -> tuple[str, int] | None:
    taken = {(s.container, s.slot) for s in world.bags}
    return next(((c, i) for c in containers for i in range(BAG_SLOTS) if (c, i) not in taken), None)


def _name(world: World, item_id: int) -> str:
    return next((i.name for i in world.items if i.item_id == item_id), "")


class BagTools:
    """The handlers of move_items and sort_inventory."""

    def __init__(self, game: GameAccess) -> None:
        self._game = game

    def handlers(self) -> dict[str, ToolHandler]:
        return {"move_items": self._move_items, "sort_inventory": self._sort}

    async def _move_items(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        moves = args.values.get("moves")
        if not isinstance(moves, list) or not moves:
            raise RefusedError("'moves' must be a non-empty array.")
        if len(moves) > 200:
            raise RefusedError("At most 200 moves per call.")
        keep_going = args.boolean("continue_on_error", False)
        requests = [_Move(index, value) for index, value in enumerate(moves)]
        results: list[dict[str, Any]] = []
        for request in requests:
            result = await self._move(request)
            results.append(result)
            if not result["ok"] and not keep_going:
                break
        moved = sum(1 for r in results if r["ok"])
        return {
            "requested": len(requests),
            "moved": moved,
            "failed": len(results) - moved,
            "skipped": len(requests) - len(results),
            "seconds": 0.0,
            "pauseBetweenMoves": NO_PAUSE,
            "pausesMs": [],
            "results": results,
        }

    async def _move(self, move: _Move) -> dict[str, Any]:
        try:
            return await self._try_move(move)
        except RefusedError as refusal:
            return {"index": move.index, "ok": False, "status": "failed", "reason": str(refusal)}

    async def _try_move(self, move: _Move) -> dict[str, Any]:
        await self._game.player()  # logged in (the real host's RunLoggedIn)
        client = self._game.client
        world = await self._game.call(client.state())
        if world.player.in_combat:
            raise RefusedError("Can't change the inventory right now (character state: InCombat).")
        if world.trade is not None:
            raise RefusedError("Can't change the inventory right now (character state: TradeOpen).")
        source, slot = self._source(world, move)
        stack = _at(world, source, slot)
        if stack is None:
            raise RefusedError(f"{source}[{slot}] is empty.")
        if move.quantity is not None and move.quantity < stack.count:
            if move.to_slot is None and _first_empty(world, (move.target,)) is None:
                raise RefusedError(f"{move.target} has no empty slot.")
            if _first_empty(world, BAGS) is None:
                raise RefusedError("Splitting needs an empty slot in your bags.")
        if move.to_slot is None:
            if _first_empty(world, (move.target,)) is None:
                raise RefusedError(f"{move.target} has no empty slot.")
        elif not 0 <= move.to_slot < BAG_SLOTS:
            raise RefusedError(f"{move.target} has slots 0-{BAG_SLOTS - 1}.")
        whole = move.quantity is None or move.quantity >= stack.count
        if whole and (source, slot) == (move.target, move.to_slot):
            raise RefusedError("Source and target are the same slot.")
        quantity = None if whole else move.quantity
        done = await self._game.call(client.move_items(source, slot, move.target, move.to_slot, quantity))
        return {
            "index": move.index,
            "ok": True,
            "status": done.status,
            "item": done.item,
            "from": done.from_slot,
            "to": done.to_slot,
        }

    def _source(self, world: World, move: _Move) -> tuple[str, int]:
        if move.item_id is None:
            assert move.source is not None and move.from_slot is not None
            if not 0 <= move.from_slot < BAG_SLOTS:
                raise RefusedError(f"{move.source} has slots 0-{BAG_SLOTS - 1}.")
            return move.source, move.from_slot
        containers = (move.source,) if move.source is not None else tuple(b for b in BAGS if b != move.target)
        for stack in sorted(world.bags, key=lambda s: (BAGS.index(s.container), s.slot)):
            if stack.container in containers and stack.item_id == move.item_id and move.hq is not True:
                return stack.container, stack.slot
        where = "" if move.source is None else f" in {move.source}"
        raise RefusedError(f"Item {move.item_id} ({_name(world, move.item_id)}) not found{where}.")

    async def _sort(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        wanted = [str(c).lower() for c in args.items("categories")]
        categories: list[str] = []
        for category in wanted:
            for each in (
                _ARMOURY_SLOTS if category == "armoury_slots" else ("armoury" if category == "armory" else category,)
            ):
                if each not in categories:
                    categories.append(each)
        if not categories:
            raise RefusedError("'categories' is required.")
        for category in categories:
            if category not in SORT_CATEGORIES:
                raise RefusedError(f"Unknown category '{category}'. Valid: {', '.join(SORT_CATEGORIES)}, armoury_slots")
        conditions = args.values.get("conditions")
        if not isinstance(conditions, list) or not conditions:
            raise RefusedError("'conditions' must be a non-empty array of { by, order }.")
        if len(conditions) > 5:
            raise RefusedError("At most 5 sort conditions.")
        keys = [_condition(c) for c in conditions]
        for category in categories:
            if category != "inventory":
                raise RefusedError(
                    f"Sorting '{category}' is not simulated here: only the bags have slots in this game. "
                    "Use category inventory."
                )
        for by, _order in keys:
            if by != "id":
                raise RefusedError(
                    f"Sorting by '{by}' is not simulated here: the simulated items have only an id to sort by. "
                    "Use condition id (asc or des)."
                )
        await self._game.player()
        world = await self._game.call(self._game.client.state())
        if world.player.in_combat:
            raise RefusedError("Can't change the inventory right now (character state: InCombat).")
        if world.trade is not None:
            raise RefusedError("Can't change the inventory right now (character state: TradeOpen).")
        await self._game.call(self._game.client.sort_bags(descending=keys[0][1] == "des"))
        commands = [
            "/itemsort clear inventory",
            *(f"/itemsort condition inventory {by} {order}" for by, order in keys),
            "/itemsort execute inventory",
        ]
        return {"sorted": categories, "commands": commands, "gameMessages": [], "note": SORT_NOTE}


def _condition(value: Any) -> tuple[str, str]:
    by = value.get("by") if isinstance(value, dict) else None
    if not isinstance(by, str):
        raise RefusedError("Each condition needs 'by'.")
    by = by.lower()
    order = str(value.get("order") or "asc").lower()
    order = "des" if order == "desc" else order
    if by not in SORT_CONDITIONS:
        raise RefusedError(f"Unknown condition '{by}'. Valid: {', '.join(SORT_CONDITIONS)}")
    if order not in ("asc", "des"):
        raise RefusedError("order must be 'asc' or 'des'.")
    return by, order
