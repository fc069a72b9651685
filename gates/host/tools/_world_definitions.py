"""The definitions of XIV MCP's tools of gearsets, duties, characters and worlds (module
`game_navigation`, W5), as the real host has them.

    switch_gearset     change job by equipping a saved gearset        (`GearsetTools.cs`)
    leave_duty         leave the duty the character is in              (`DutyTools.cs`)
    list_characters    the characters XIV MCP has seen                 (`LoginTools.cs`)
    switch_character   log into another character of the account       (`LoginTools.cs`)
    visit_world        travel to another world, with Lifestream or the player (`LoginTools.cs`)

Names, arguments and descriptions are the real host's, cut to what the simulated game has (one
service account, no lobby or launcher). Capabilities are the real `BuiltInCapabilities`': by tool
for switch_character, visit_world and leave_duty, by the module's group for switch_gearset, with
`read_game` first as every core tool here; list_characters only reads.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._job_definitions import object_schema

__all__ = ["WORLD_DEFINITIONS", "WORLD_OUTPUT_SCHEMAS"]

_obj = object_schema
_GATE: Final = " Requires 'Game & navigation' in /xivmcp."
_STR: Final = {"type": "string"}
_LIST: Final = {"type": "array"}

WORLD_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="switch_gearset",
        description="Changes job by equipping a gearset, like clicking it in the Gear Set list: give its number, name "
        'or a job ("WAR", "Warrior"; the highest item level set of that job). Not in combat.' + _GATE,
        input_schema=_obj({"gearset": {"type": "string", "description": "Gearset number, name or job."}}, ("gearset",)),
        capabilities=["read_game", "game_ui", "move_character"],
    ),
    ToolDefinition(
        name="leave_duty",
        description="Leaves the current duty like the Duty Finder's Leave entry, once you are out of combat (it waits "
        "for the fight to end, never leaves mid-fight)." + _GATE,
        capabilities=["read_game", "game_ui", "combat"],
    ),
    ToolDefinition(
        name="list_characters",
        description="The characters XIV MCP has seen: the account's characters and the character in game — name, "
        "home world, current world, data center, service account, and whether it is on the account in use now.",
        read_only=True,
        capabilities=["read_game"],
    ),
    ToolDefinition(
        name="switch_character",
        description="Logs out and into another character of the account — on any world or data center — and waits "
        "until it is in game. Characters XIV MCP hasn't seen in a character list yet need their home 'world'. Refused "
        "in duties and combat." + _GATE,
        input_schema=_obj(
            {
                "name": {"type": "string", "description": "Character name (from list_characters)."},
                "world": {
                    "type": "string",
                    "description": "Home world — to tell same-named characters apart, or for a character not seen yet.",
                },
                "service_account": {
                    "type": "integer",
                    "description": "Service account (1 = first) for a character not seen yet, if the account has "
                    "several.",
                },
                "timeout_seconds": {
                    "type": "integer",
                    "description": "How long to wait for the character to be in game (default 300).",
                },
            },
            ("name",),
        ),
        capabilities=["read_game", "login", "move_character"],
    ),
    ToolDefinition(
        name="visit_world",
        description="Travels the current character to another world (world visit on the same data center, or data "
        "center travel to another one) and waits until it arrived. With the travel plugin Lifestream it travels by "
        "itself; otherwise XIV MCP asks the player to use World Visit or Data Center Travel and waits for them, so "
        "tell the player. Use switch_character to log into a different character instead." + _GATE,
        input_schema=_obj(
            {
                "world": {
                    "type": "string",
                    "description": 'Destination world (e.g. "Shiva"); your home world returns you home.',
                },
                "timeout_seconds": {
                    "type": "integer",
                    "description": "How long to wait (default 600; data center travel can queue).",
                },
            },
            ("world",),
        ),
        capabilities=["read_game", "move_character", "spend_gil"],
    ),
)

WORLD_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "switch_gearset": _obj(
        {"equipped": {"type": "integer"}, "name": _STR, "job": _STR, "itemLevel": {"type": "integer"}},
        ("equipped", "name", "job"),
    ),
    "list_characters": _obj({"loggedIn": {"type": ["object", "null"]}, "characters": _LIST}, ("characters",)),
    "switch_character": _obj({"loggedIn": _STR, "world": _STR, "steps": _LIST, "note": _STR}, ("loggedIn",)),
    "visit_world": _obj({"arrived": _STR, "dataCenter": _STR, "travelledBy": _STR}, ("arrived", "travelledBy")),
}
"""Output schemas of those whose results are objects (leave_duty answers a sentence, as the real host)."""
