"""The definitions of XIV MCP's bag tools that the simulated game performs (module items_retainers).

    items_retainers   move_items sort_inventory

The input schemas are the real host's (`XivMcp/Tools/InventoryActionTools.cs`), the descriptions
its own, said of what the simulated game has (only the bags have slots); the capabilities are the
real `BuiltInCapabilities`' group for items_retainers (`game_ui`, `move_items`), with `read_game`
first as every core tool here.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._bag_tools import SORT_CATEGORIES, SORT_CONDITIONS
from ._job_definitions import object_schema

__all__ = ["BAG_DEFINITIONS", "BAG_OUTPUT_SCHEMAS"]

_obj = object_schema
_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_LIST: Final = {"type": "array", "items": {"type": "object"}}
_STRINGS: Final = {"type": "array", "items": _STR}
_GROUP: Final = ["read_game", "game_ui", "move_items"]

_MOVE: Final = _obj(
    {
        "from_container": _STR,
        "from_slot": {"type": "integer", "description": "0-based slot index."},
        "item_id": {"type": "integer", "description": "Alternative to from_slot: move the first stack of this item."},
        "quantity": {
            "type": "integer",
            "minimum": 1,
            "description": "Move only this many of the stack (default: the whole stack). Not for crystals.",
        },
        "hq": {"type": "boolean", "description": "With item_id: only HQ (true) or only NQ (false) stacks."},
        "to_container": _STR,
        "to_slot": {"type": "integer", "description": "0-based target slot; omit for the first empty slot."},
    },
    ("to_container",),
)

BAG_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="sort_inventory",
        description="Sorts inventory containers with the game's own /itemsort command: clears the conditions, sets "
        "the given ones (first = primary) and executes the sort. Categories: inventory (main bags), armoury or a "
        "single armory slot (mh, oh, head, body, hands, legs, feet, neck, ears, wrists, rings, soul), saddlebag, "
        "rightsaddlebag, retainer; \"armoury_slots\" for every armory slot. Requires 'Items & retainers' in /xivmcp.",
        input_schema=_obj(
            {
                "categories": {
                    "type": "array",
                    "items": {"type": "string", "enum": [*SORT_CATEGORIES, "armoury_slots"]},
                    "description": 'What to sort, e.g. ["inventory"] or ["armoury_slots"].',
                },
                "conditions": {
                    "type": "array",
                    "description": 'Sort keys in priority order, e.g. [{"by":"ilv","order":"des"},{"by":"id"}].',
                    "items": _obj(
                        {
                            "by": {"type": "string", "enum": list(SORT_CONDITIONS)},
                            "order": {"type": "string", "enum": ["asc", "des"], "description": "Default asc."},
                        },
                        ("by",),
                    ),
                },
            },
            ("categories", "conditions"),
        ),
        capabilities=_GROUP,
    ),
    ToolDefinition(
        name="move_items",
        description="Moves items between slots and containers as a drag in the inventory window: onto an empty slot "
        "it moves, onto a stack of the same item it merges, onto another item it swaps. The source is "
        "from_container+from_slot, or item_id (its first stack, optionally only in from_container); omit to_slot "
        "for the first empty slot of to_container. Container names come from get_inventory (Inventory1-4, ...). "
        "'quantity' moves part of a stack: it is split off first (needs an empty slot in your bags). Stops at the "
        "first failed move unless continue_on_error=true. Requires 'Items & retainers' in /xivmcp.",
        input_schema=_obj(
            {
                "moves": {
                    "type": "array",
                    "description": "Moves, executed in order (max 200).",
                    "items": _MOVE,
                },
                "continue_on_error": {
                    "type": "boolean",
                    "description": "Keep going after a failed move (default false).",
                },
            },
            ("moves",),
        ),
        capabilities=_GROUP,
    ),
)

BAG_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "sort_inventory": _obj(
        {"sorted": _STRINGS, "commands": _STRINGS, "gameMessages": _STRINGS, "note": _STR},
        ("sorted", "commands", "gameMessages", "note"),
    ),
    "move_items": _obj(
        {
            "requested": _INT,
            "moved": _INT,
            "failed": _INT,
            "skipped": _INT,
            "seconds": {"type": "number"},
            "pauseBetweenMoves": _STR,
            "pausesMs": {"type": "array", "items": _INT},
            "results": _LIST,
        },
        ("requested", "moved", "failed", "skipped", "results"),
    ),
}
