"""The definitions of XIV MCP's core game tools (W5, W6), with the real host's names, descriptions and schemas.

    game_data        get_game_status get_character get_position get_inventory search_inventory get_currencies
    game_navigation  set_map_flag clear_map_flag navigate_to get_navigation_status stop_navigation
                     list_windows open_window close_window
    jobs             wait_until_arrived (a waiting step: it blocks nothing, J8)

The texts are the real host's, cut to what the simulated game has (no retainers, materia, duties,
Lifestream, ...). Reading tools declare `read_game` only, as the real host's read-only tools do;
the others take the `game_navigation` group's capabilities where they can move the character
(`game_ui`, `move_character`) and `game_ui` alone where they only touch the map or a window.
`MAIN_WINDOWS` is the main menu as open_window knows it. The checks of the arguments several
schemas share (map coordinates, clamped numbers, trimmed strings) sit with those schemas.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Final, NamedTuple

from gates.contract import RefusedError, ToolDefinition, quote

from ._args import ToolArgs
from ._job_definitions import object_schema

__all__ = [
    "CONTAINER_GROUPS",
    "CONTAINER_HELP",
    "DESTINATIONS",
    "GAME_DEFINITIONS",
    "GAME_OUTPUT_SCHEMAS",
    "MAIN_WINDOWS",
    "MainWindow",
    "clamped",
    "map_point",
    "optional_number",
    "text_arg",
]

_obj = object_schema
_READ: Final = ["read_game"]
_UI: Final = ["read_game", "game_ui"]
_MOVE: Final = ["read_game", "game_ui", "move_character"]


class MainWindow(NamedTuple):
    """A window open_window opens: its main command id (None: not in the main menu), its name in
    list_windows, and the game window (addon) that shows it."""

    id: int | None
    name: str
    addon: str
    unlocked: bool = True


MAIN_WINDOWS: Final[tuple[MainWindow, ...]] = (
    MainWindow(2, "Character", "Character"),
    MainWindow(4, "Journal", "Journal"),
    MainWindow(5, "Timers", "ContentsInfo"),
    MainWindow(6, "Achievements", "Achievement"),
    MainWindow(9, "Crafting Log", "RecipeNote"),
    MainWindow(10, "Inventory", "Inventory"),
    MainWindow(13, "Friend List", "FriendList"),
    MainWindow(16, "Map", "AreaMap"),
    MainWindow(17, "Emotes", "Emote"),
    MainWindow(21, "User Macros", "Macro"),
    MainWindow(25, "Armoury Chest", "ArmouryBoard"),
    # The simulated character is in no free company, so its window stays locked (and shows the refusal).
    MainWindow(27, "Free Company", "FreeCompany", unlocked=False),
    MainWindow(33, "Duty Finder", "ContentsFinder"),
    MainWindow(35, "Teleport", "Teleport"),
    MainWindow(61, "Mount Guide", "MountNoteBook"),
    MainWindow(62, "Minion Guide", "MinionNoteBook"),
    MainWindow(66, "Currency", "Currency"),
    MainWindow(69, "Orchestrion List", "OrchestrionPlayList"),
    MainWindow(77, "Chocobo Saddlebag", "InventoryBuddy"),
    MainWindow(None, "Titles", "CharacterTitle"),  # the real host's one agent window
)

CONTAINER_GROUPS: Final = ("bags", "crystals", "currency")
CONTAINER_HELP: Final = f"Groups: {', '.join(CONTAINER_GROUPS)}. The simulated game has no other containers."
DESTINATIONS: Final = tuple(
    "summoning_bell company_chest workshop inn home fc_house apartment object npc fishing_spot flag".split()
)
"""navigate_to's destinations: the real host's, and the map flag (this project's extension)."""

_ZONE: Final = {
    "type": "string",
    "description": 'Zone name (e.g. "Tuliyollal", "Limsa Lominsa Lower Decks") or territory id. Default: the zone '
    "you are in.",
}
_X: Final = {"type": "number", "description": "Map X coordinate, as the in-game map shows it (about 1 to 42)."}
_Y: Final = {"type": "number", "description": "Map Y coordinate, as the in-game map shows it."}
_WINDOW: Final = {"type": "string", "description": "Window name (or main command id) from list_windows."}
_CONTAINERS: Final = {
    "type": "array",
    "items": {"type": "string"},
    "description": 'Container groups. Default: ["bags"].',
}
_AND_THE_GATE: Final = " Requires 'Game & navigation' in /xivmcp."

GAME_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="get_game_status",
        description="Overall client state: whether a character is logged in, character name/world, current zone, "
        "Eorzea time and all active condition flags (in combat, ...).",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="get_character",
        description="Profile of the logged-in character: name, content id, home and current world, current job and "
        "level, and position.",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="get_position",
        description="Where the player is: zone (territory), the current map, map coordinates as the in-game map "
        "shows them (X/Y), the world position (yalms), and the map flag if one is set (its zone, coordinates and "
        "distance).",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="get_inventory",
        description="Lists the items in one or more inventory containers of the logged-in character (default: the "
        "four main bags), with item names and quantities. Also reports free bag slots. " + CONTAINER_HELP,
        input_schema=_obj(
            {
                "containers": _CONTAINERS,
                "include_details": {
                    "type": "boolean",
                    "description": "Accepted as the real host does; the simulated game has no materia, dyes, "
                    "spiritbond or condition to add.",
                },
            }
        ),
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="search_inventory",
        description="Finds items by (partial) name or item id across the character's containers (by default the "
        "bags and crystals) and reports where each stack is and the total count. " + CONTAINER_HELP,
        input_schema=_obj(
            {
                "query": {"type": "string", "description": "Case-insensitive part of the item name."},
                "item_id": {"type": "integer", "description": "Exact item id (alternative to query)."},
                "containers": {**_CONTAINERS, "description": "Restrict the search to these container groups."},
                "include_retainers": {
                    "type": "boolean",
                    "description": "Accepted as the real host does; retainers are not searched here "
                    "(get_retainer_inventories lists what they hold).",
                },
            }
        ),
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="get_currencies",
        description="All currencies of the logged-in character: gil, MGP, Wolf Marks, every allagan tomestone "
        "type, plus the raw contents of the currency container.",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="set_map_flag",
        description="Places the flag on the player's map (the same flag as right-clicking the map) at map "
        "coordinates in any zone, and opens the map at it by default. Only marks the spot: nothing moves. Use "
        "wait_until_arrived to wait for the player to get there." + _AND_THE_GATE,
        input_schema=_obj(
            {
                "x": _X,
                "y": _Y,
                "zone": _ZONE,
                "open_map": {"type": "boolean", "description": "Open the map at the flag. Default true."},
                "name": {"type": "string", "description": "What the spot is (shown as the map window title)."},
            },
            ("x", "y"),
        ),
        capabilities=_UI,
    ),
    ToolDefinition(
        name="clear_map_flag",
        description="Removes the flag from the player's map." + _AND_THE_GATE,
        capabilities=_UI,
    ),
    ToolDefinition(
        name="navigate_to",
        description="Gets the character to a destination. Walking is automatic when the player has the navigation "
        "plugin vnavmesh; otherwise XIV MCP shows the player the way and waits: it puts the flag on the map and asks "
        "them to walk, names the aetheryte to teleport to, or asks them to enter the inn room or house. Tell the "
        "player when that happens. Destinations: summoning_bell (nearby one, otherwise the preferred bell location, "
        "the inn), company_chest (FC house), workshop (FC workshop, walks to the voyage control panel), inn, home, "
        "fc_house, apartment, object (by name in the current zone), npc (an NPC anywhere in the world by name: "
        "travels to its zone and walks up to it), fishing_spot (a fishing spot by name or id: travels there and "
        "walks to the water until Cast can be used, as a Fisher), or flag (the flag on the map, as set_map_flag put "
        "it; this project's extension). Waits until arrived (or the timeout) and returns the steps taken; then use "
        "interact_with_object. stop_navigation aborts. Teleports cost gil as usual." + _AND_THE_GATE,
        input_schema=_obj(
            {
                "destination": {"type": "string", "enum": list(DESTINATIONS)},
                "name": {
                    "type": "string",
                    "description": 'For destination=object: the object\'s name (e.g. "Material Supplier"). For '
                    "destination=npc: the NPC's name (e.g. \"Wuk Evu\"). For destination=fishing_spot: the spot's "
                    "name or id.",
                },
                "timeout_seconds": {
                    "type": "integer",
                    "description": "Give up after this long (default 600, max 1800). The player may need a while "
                    "when they walk or teleport themselves.",
                },
            },
            ("destination",),
        ),
        capabilities=_MOVE,
    ),
    ToolDefinition(
        name="get_navigation_status",
        description="Whether walking (pathfinding) and travel (teleports) are automatic or done by the player "
        "following XIV MCP's directions, whether something is moving the character right now, and the phase of a "
        'running navigate_to (for example "waiting for you to walk to Summoning Bell"). Only the navigation plugins '
        "the player has installed are listed.",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="stop_navigation",
        description="Stops a running navigate_to, and any walking or travel the navigation plugins are doing, "
        "immediately." + _AND_THE_GATE,
        capabilities=_MOVE,
    ),
    ToolDefinition(
        name="wait_until_arrived",
        description="Waits until the player is in a zone and within a radius of map coordinates there (on the "
        "ground, ignoring height), then returns. Without coordinates it waits for the map flag. Does not move the "
        "character: the player (or another tool) does. Fails after the timeout, which leaves a job pending so it "
        "can be retried. Meant as a job step.",
        input_schema=_obj(
            {
                "zone": _ZONE,
                "x": _X,
                "y": _Y,
                "radius": {"type": "number", "description": "How close counts as arrived, in yalms. Default 10."},
                "timeout_minutes": {
                    "type": "integer",
                    "description": "Give up after this long. Default 60, at most 1440.",
                },
            }
        ),
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="list_windows",
        description="Lists the game windows open_window can open (the main menu commands: Achievements, Armoury "
        "Chest, Character, Chocobo Saddlebag, Currency, Mount Guide, Orchestrion List, Timers, ...), with whether "
        "each is unlocked and currently open.",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="open_window",
        description='Opens a game window like clicking it in the main menu, e.g. "Achievements", "Chocobo '
        'Saddlebag", "Armoury Chest", "Currency", "Timers". Use list_windows for names. Does nothing if the window '
        "is already open. Use close_window to close it again." + _AND_THE_GATE,
        input_schema=_obj({"window": _WINDOW}, ("window",)),
        capabilities=_UI,
    ),
    ToolDefinition(
        name="close_window",
        description="Closes a game window: a main menu window (see list_windows), or any other open game window "
        "by its name (e.g. Shop, SelectYesno)." + _AND_THE_GATE,
        input_schema=_obj(
            {
                "window": {
                    "type": "string",
                    "description": "Window name / main command id from list_windows, or the name of an open game "
                    "window.",
                }
            },
            ("window",),
        ),
        capabilities=_UI,
    ),
)

_NUM: Final = {"type": "number"}
_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_BOOL: Final = {"type": "boolean"}
_OBJ: Final = {"type": "object"}
_LIST: Final = {"type": "array"}
_OR_NULL: Final = {"type": ["object", "null"]}
_TEXT_OR_NULL: Final = {"type": ["string", "null"]}

GAME_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "get_game_status": _obj(
        {
            "loggedIn": _BOOL,
            "character": _TEXT_OR_NULL,
            "world": _OR_NULL,
            "territory": _OR_NULL,
            "conditions": _LIST,
            "eorzeaTime": _STR,
        },
        ("loggedIn", "conditions", "eorzeaTime"),
    ),
    "get_character": _obj(
        {"name": _STR, "contentId": _INT, "homeWorld": _OBJ, "currentWorld": _OBJ, "level": _INT, "position": _OBJ},
        ("name", "level", "position"),
    ),
    "get_position": _obj({"zone": _OBJ, "map": _OBJ, "world": _OBJ, "flag": _OR_NULL}, ("zone", "map", "world")),
    "get_inventory": _obj({"freeBagSlots": _INT, "containers": _LIST}, ("freeBagSlots", "containers")),
    "search_inventory": _obj({"items": _LIST}, ("items",)),
    "get_currencies": _obj({"gil": _INT, "tomestones": _LIST, "currencyContainer": _LIST}, ("gil",)),
    "set_map_flag": _obj(
        {"flag": _OBJ, "distance": {"type": ["number", "null"]}, "mapOpened": _BOOL}, ("flag", "mapOpened")
    ),
    "clear_map_flag": _obj({"cleared": _BOOL}, ("cleared",)),
    "navigate_to": _obj(
        {"arrived": _BOOL, "destination": _STR, "at": _OBJ, "reason": _STR, "steps": _LIST},
        ("arrived", "destination", "steps"),
    ),
    "get_navigation_status": _obj(
        {
            "walking": _STR,
            "travel": _STR,
            "plugins": _OBJ,
            "navigation": _STR,
            "preferredBellLocation": _STR,
            "requirements": _LIST,
        },
        ("walking", "travel", "plugins", "navigation"),
    ),
    "stop_navigation": _obj({"stopped": _BOOL}, ("stopped",)),
    "wait_until_arrived": _obj(
        {"arrived": _BOOL, "at": _STR, "seconds": _NUM, "world": _OBJ}, ("arrived", "at", "seconds", "world")
    ),
    "open_window": _obj(
        {"window": _STR, "action": _STR, "open": _BOOL, "note": _TEXT_OR_NULL}, ("window", "action", "open")
    ),
    "close_window": _obj({"window": _STR, "action": _STR}, ("window", "action")),
}
"""Output schemas of the tools whose results are fixed objects (list_windows returns a bare list, as the real host)."""


# --- the checks of the arguments these schemas share -------------------------------------


def text_arg(args: ToolArgs, name: str) -> str | None:
    """A string argument trimmed, None when left out or empty (the real host's `String`)."""
    value = args.text(name)
    return None if value is None else (value.strip() or None)


def optional_number(args: ToolArgs, name: str, example: str, what: str | None = None) -> float | None:
    """A number as sent, or as a numeric string (the real host's `Float`); None when left out.
    The refusal names the argument, and what it is when `what` says so."""
    value = args.values.get(name)
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):
            number = float(value)
    if number is None or not math.isfinite(number):
        named = quote(name) if what is None else f"{quote(name)} ({what})"
        raise RefusedError(f"{named} must be a number, such as {example}; got {quote(value)}.")
    return number


def map_point(args: ToolArgs) -> tuple[float, float] | None:
    """The map coordinates `x` and `y`, checked; None when both are left out."""
    x = optional_number(args, "x", "21.4", "map X coordinate")
    y = optional_number(args, "y", "18.2", "map Y coordinate")
    if x is None and y is None:
        return None
    if x is None:
        raise RefusedError("'x' (map X coordinate) is required.")
    if y is None:
        raise RefusedError("'y' (map Y coordinate) is required.")
    if not (1 <= x <= 42 and 1 <= y <= 42):
        raise RefusedError(f"({x:g}, {y:g}) is off the map: map coordinates run from 1 to 42.")
    return x, y


def clamped(args: ToolArgs, name: str, default: float, low: float, high: float) -> float:
    """A number argument held within [low, high]: the real host's `Int` clamps rather than refuses."""
    value = optional_number(args, name, f"{default:g}", f"{low:g} to {high:g}, default {default:g}")
    return default if value is None else min(max(value, low), high)
