"""The definitions of XIV MCP's item tools that the simulated game performs (module items_retainers).

    items_retainers   move_gil equip_items

The texts and the input schemas are the real host's (`XivMcp/Tools/GilTools.cs`, `FashionTools.cs`);
capabilities are the real `BuiltInCapabilities`' (move_gil by tool: `move_items`, `spend_gil`;
equip_items by its module's group: `game_ui`, `move_items`), with `read_game` first as every core
tool here.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._job_definitions import object_schema

__all__ = ["ITEM_DEFINITIONS", "ITEM_OUTPUT_SCHEMAS"]

_obj = object_schema

ITEM_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="move_gil",
        description="Moves gil between the character and a retainer or the free company chest, with the game's own "
        "Gil Transfer window. 'direction' is deposit (character → retainer or chest) or withdraw (→ character); "
        "'amount' is a number (1200, 15k, 1.5m), a percentage (50%) or all. Retainer: at a summoning bell, with "
        "'retainer' naming it (or the retainer that is open). Company chest: standing at the chest with its window "
        "open (navigate_to company_chest, then interact_with_object); FCCH, if installed, is waited for first. Checks "
        "the gil before and after. Requires 'Items & retainers' in /xivmcp.",
        input_schema=_obj(
            {
                "direction": {"type": "string", "enum": ["deposit", "withdraw"]},
                "amount": {"type": "string", "description": "1200, 15k, 1.5m, 50% or all."},
                "where": {"type": "string", "enum": ["retainer", "fc_chest"], "description": "Default: retainer."},
                "retainer": {"type": "string", "description": "The retainer's name (default: the one that is open)."},
            },
            ("direction", "amount"),
        ),
        capabilities=["read_game", "move_items", "spend_gil"],
    ),
    ToolDefinition(
        name="equip_items",
        description="Puts on pieces of gear from the bags or the armoury chest, each into its slot (rings into a free "
        "ring slot), as if the player equipped them. Checks that the current job and level can wear each one. Out of "
        "combat only. Requires 'Items & retainers' in /xivmcp.",
        input_schema={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {"type": ["string", "integer"]},
                    "minItems": 1,
                    "description": "Item names or ids.",
                }
            },
            "required": ["items"],
        },
        capabilities=["read_game", "game_ui", "move_items"],
    ),
)

_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}

ITEM_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "equip_items": _obj({"equipped": {"type": "array", "items": {"type": "object"}}}, ("equipped",)),
    "move_gil": _obj(
        {"moved": _INT, "direction": _STR, "where": _STR, "yourGil": _INT, "storedGil": _INT},
        ("moved", "direction", "where", "yourGil", "storedGil"),
    ),
}
