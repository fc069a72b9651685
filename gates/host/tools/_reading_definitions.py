"""The definitions of XIV MCP's reading tools of the module `game_data` (W5), as the real host has them.

    the character   get_class_jobs get_equipment list_gearsets get_active_quests get_aetherytes
    around it       get_party get_targets get_nearby_objects get_weather_forecast
    Dalamud         list_plugins

Names, arguments and result fields are the real host's (`XivMcp/Tools/CharacterTools.cs`,
`InventoryTools.cs`, `GearsetTools.cs`, `UnlockTools.cs`, `WorldTools.cs`, `FishingTools.cs`,
`PluginTools.cs`); the descriptions say what the simulated game has of it. Each is read-only and
declares `read_game` alone, as the real host's reading tools do. The argument checks these tools
share (a list of strings, an optional number, a clamped whole number) sit here too.
"""

from __future__ import annotations

from typing import Any, Final

from game import OBJECT_KINDS
from gates.contract import ToolDefinition

from ._args import ToolArgs
from ._game_definitions import optional_number
from ._job_definitions import object_schema

__all__ = ["READING_DEFINITIONS", "READING_OUTPUT_SCHEMAS", "string_list", "whole_number"]

_obj = object_schema
_READ: Final = ["read_game"]


def _reading(name: str, description: str, properties: dict[str, Any] | None = None) -> ToolDefinition:
    schema = None if properties is None else _obj(properties)
    return ToolDefinition(name=name, description=description, input_schema=schema, read_only=True, capabilities=_READ)


READING_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    _reading(
        "get_class_jobs",
        "Level, current EXP and EXP needed for the next level for every class and job of the logged-in character, "
        "whether each is unlocked, and the desynthesis skill of crafters. Set include_locked=false to leave out the "
        "classes and jobs at level 0.",
        {
            "include_locked": {
                "type": "boolean",
                "description": "List the classes and jobs not unlocked yet too (default true).",
            }
        },
    ),
    _reading(
        "get_equipment",
        "The gear the logged-in character wears, slot by slot, with item level, equip level, materia, dyes, glamour, "
        "spiritbond and condition, and the average item level.",
    ),
    _reading(
        "list_gearsets",
        "The saved gearsets (numbered as in the game, with name, job, item level and how many of their items are "
        "missing from the inventory) and which one is worn.",
    ),
    _reading(
        "get_active_quests",
        "The quests in the logged-in character's journal (accepted, not completed yet) with the step each is on, the "
        "daily quest allowances and the leve allowances. The simulated game has no tribal quests, levequests or "
        "tribal reputation: those lists are empty.",
    ),
    _reading(
        "get_aetherytes",
        "The aetherytes the character can teleport to (every one of the simulated world), with zone, teleport gil "
        "cost and favourite flag.",
    ),
    _reading(
        "get_party",
        "Members of the current party: name, world, job, level, HP/MP, zone, position, distance and status effects, "
        "and who leads it.",
    ),
    _reading(
        "get_targets",
        "The logged-in character's current target, with its HP and status effects. The simulated game has one "
        "target only: focus, soft, mouse-over and previous targets are always null.",
    ),
    _reading(
        "get_nearby_objects",
        "Lists what stands around the character in its zone (players of the party, NPCs, enemies, aetherytes, "
        "summoning bells and other objects), nearest first. Filter by kind, name and maximum distance.",
        {
            "kinds": {
                "type": "array",
                "items": {"type": "string", "enum": list(OBJECT_KINDS)},
                "description": "Object kinds to include (default all). Enemies and battle NPCs are 'BattleNpc', "
                "players are 'Pc'.",
            },
            "query": {"type": "string", "description": "Case-insensitive part of the object name."},
            "max_distance": {"type": "number", "description": "Maximum distance in yalms (default unlimited)."},
            "limit": {"type": "integer", "description": "Max objects (default 50, max 500)."},
            "detailed": {
                "type": "boolean",
                "description": "Include MP, status effects and the like (default false).",
            },
        },
    ),
    _reading(
        "get_weather_forecast",
        "The weather forecast of a zone (default: the current one), worked out from the zone's weather chances as "
        "the game does, on the game's clock: the current Eorzean time, the weather on screen when you are in that "
        "zone, and the next weather periods (each lasts 8 Eorzean hours, about 23 real minutes) with their start "
        "time and the weather before. With 'weather', also when that weather comes next.",
        {
            "zone": {"type": "string", "description": "Zone name or territory id (default: the current zone)."},
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 24,
                "description": "How many periods to list (default 6).",
            },
            "weather": {
                "type": "string",
                "description": 'A weather to look for, such as "Rain": lists its next periods.',
            },
        },
    ),
    _reading(
        "list_plugins",
        "Lists the installed plugins (XIV MCP itself, and those on the bus or on the player's installed list) with "
        "name, internal name, version, load state (Loaded/Unloaded) and flags. Use the internal name with the other "
        "plugin tools.",
        {
            "query": {"type": "string", "description": "Case-insensitive filter on name or internal name."},
            "loaded_only": {"type": "boolean", "description": "Only list loaded plugins (default false)."},
        },
    ),
)

_INT: Final = {"type": "integer"}
_NUM: Final = {"type": "number"}
_LIST: Final = {"type": "array"}
_OBJ: Final = {"type": "object"}
_OR_NULL: Final = {"type": ["object", "null"]}

READING_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "get_class_jobs": _obj({"currentClassJob": _OR_NULL, "classJobs": _LIST}, ("currentClassJob", "classJobs")),
    "get_equipment": _obj({"averageItemLevel": _NUM, "slots": _LIST}, ("averageItemLevel", "slots")),
    "list_gearsets": _obj({"current": {"type": ["integer", "null"]}, "gearsets": _LIST}, ("current", "gearsets")),
    "get_active_quests": _obj(
        {"acceptedQuests": _LIST, "dailyQuests": _LIST, "levequests": _LIST, "leveAllowances": _INT},
        ("acceptedQuests", "dailyQuests", "levequests"),
    ),
    "get_party": _obj(
        {
            "size": _INT,
            "isAlliance": {"type": "boolean"},
            "leaderIndex": {"type": ["integer", "null"]},
            "members": _LIST,
        },
        ("size", "isAlliance", "leaderIndex", "members"),
    ),
    "get_targets": _obj(
        dict.fromkeys(("target", "focusTarget", "softTarget", "mouseOverTarget", "previousTarget"), _OR_NULL),
        ("target",),
    ),
    "get_nearby_objects": _obj({"total": _INT, "objects": _LIST}, ("total", "objects")),
    "get_weather_forecast": _obj(
        {
            "zone": _OBJ,
            "eorzeaTime": {"type": "string"},
            "chances": _LIST,
            "periods": _LIST,
            "next": {"type": ["array", "null"]},
        },
        ("zone", "eorzeaTime", "chances", "periods"),
    ),
    "list_plugins": _obj(
        {"managementEnabled": {"type": "boolean"}, "count": _INT, "plugins": _LIST}, ("count", "plugins")
    ),
}
"""Output schemas of those whose results are objects (get_aetherytes returns a bare list, as the real host)."""


# --- the checks of the arguments these tools share ------------------------------------------


def string_list(args: ToolArgs, name: str) -> list[str]:
    """A list of strings as sent, or one comma-separated string (the real host's `StringList`), trimmed."""
    raw = args.values.get(name)
    if isinstance(raw, str) and not raw.lstrip().startswith("["):
        names = raw.split(",")
    else:
        names = [item if isinstance(item, str) else str(item) for item in args.items(name)]
    return [n.strip() for n in names if n.strip()]


def whole_number(args: ToolArgs, name: str, default: int, low: int, high: int) -> int:
    """A whole number held within [low, high] (the real host's `Int` clamps rather than refuses)."""
    value = optional_number(args, name, str(default))
    return default if value is None else int(min(max(value, low), high))
