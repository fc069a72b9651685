"""The definitions of interact_with_object, get_menu and select_menu_option, in the real host's words.

    game_navigation  interact_with_object get_menu select_menu_option

The texts are the real host's (`XivMcp/Tools/InteractionTools.cs`), cut to what the simulated game
has (no FCCH). Capabilities are the real `BuiltInCapabilities`' by group (game_navigation: game_ui,
move_character), with `read_game` first as every core tool here; get_menu only reads.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._job_definitions import object_schema

__all__ = ["INTERACTION_DEFINITIONS", "INTERACTION_OUTPUT_SCHEMAS", "MAX_INTERACT_DISTANCE"]

MAX_INTERACT_DISTANCE: Final = 8.0
"""Yalms within which interact_with_object reaches an object (the real MaxInteractDistance)."""
_obj = object_schema
_GATE: Final = " Requires 'Game & navigation' in /xivmcp."
_NAVIGATION: Final = ["read_game", "game_ui", "move_character"]
_STR: Final = {"type": "string"}
_BOOL: Final = {"type": "boolean"}
_LIST: Final = {"type": "array"}
_OBJ_OR_NULL: Final = {"type": ["object", "null"]}

INTERACTION_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="interact_with_object",
        description="Targets and interacts with a nearby object, exactly like clicking it: summoning bell, company "
        "chest, voyage control panel, NPCs, ... Choose by name (nearest match) or gameObjectId from "
        "get_nearby_objects. The character does not move: the object must be within about 8 yalms. Summoning bell: "
        "if AutoRetainer is installed it is paused while XIV MCP uses the bell (so it doesn't start processing "
        "ventures) and resumes when the bell is closed; YesAlready/TextAdvance are paused too. Returns which "
        "windows opened." + _GATE,
        input_schema=_obj(
            {
                "name": {
                    "type": "string",
                    "description": 'Object name (e.g. "Summoning Bell", "Company Chest", "Voyage Control Panel").',
                },
                "game_object_id": {
                    "type": "integer",
                    "description": "Exact gameObjectId from get_nearby_objects (alternative to name).",
                },
            }
        ),
        capabilities=_NAVIGATION,
    ),
    ToolDefinition(
        name="get_menu",
        description="Shows the choice menu the game currently displays after an interaction (e.g. the voyage "
        'control panel\'s "Submersible management" / "Airship management", or an NPC\'s options), and whether a '
        "dialogue text box is waiting for a click.",
        read_only=True,
        capabilities=["read_game"],
    ),
    ToolDefinition(
        name="select_menu_option",
        description="Selects an entry of the currently open choice menu (see get_menu) by its text or index, like "
        "clicking it, or advances a waiting dialogue text box (advance_dialogue=true)." + _GATE,
        input_schema=_obj(
            {
                "option": {
                    "type": "string",
                    "description": "Entry text (case-insensitive, prefix match) or index from get_menu.",
                },
                "advance_dialogue": {
                    "type": "boolean",
                    "description": "Instead of a menu entry, click through the waiting dialogue text box.",
                },
            }
        ),
        capabilities=_NAVIGATION,
    ),
)

INTERACTION_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "interact_with_object": _obj(
        {
            "interactedWith": _STR,
            "distance": {"type": "number"},
            "openedWindows": _LIST,
            "conditions": _LIST,
            "fcChest": {"type": ["string", "null"]},
            "summoningBell": _OBJ_OR_NULL,
        },
        ("interactedWith", "distance", "openedWindows"),
    ),
    "get_menu": _obj(
        {"menu": {"type": ["array", "null"]}, "dialogueWaiting": _BOOL, "openWindows": _LIST},
        ("menu", "dialogueWaiting", "openWindows"),
    ),
    "select_menu_option": _obj(
        {"selected": _STR, "advanced": _BOOL, "openWindows": _LIST, "menu": {"type": ["array", "null"]}},
        ("openWindows",),
    ),
}
