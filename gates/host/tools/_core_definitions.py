"""The definitions of XIV MCP's own tools (core trust, A5), with the output schemas of those that return lists.

    echo, get_plugin_status, run_self_test     what the host can do before there is a game (A12)
    start_job, get_job, ... wait               background jobs (J10, `_job_definitions.py`)
    get_position, set_map_flag, navigate_to ...  the game tools (W5, W6, `_game_definitions.py`)
    get_class_jobs, get_party, list_plugins ...  reading tools of game_data (W5, `_reading_definitions.py`)
    switch_gearset, leave_duty, visit_world ...  gearsets, duties, characters, worlds (`_world_definitions.py`)
    list_duties, run_duty, ...                 maintained integrations, offered while their plugin is
                                               loaded (`_integrations.py`)
    list_toolsets, search_tools, call_tool     reach hundreds of tools without listing them all (P2)

Lists come back as {total, showing, items}, paged with `limit` and `offset` (P5).
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._bag_definitions import BAG_DEFINITIONS, BAG_OUTPUT_SCHEMAS
from ._game_definitions import GAME_DEFINITIONS, GAME_OUTPUT_SCHEMAS
from ._integrations import INTEGRATION_DEFINITIONS, INTEGRATION_OUTPUT_SCHEMAS
from ._interaction_definitions import INTERACTION_DEFINITIONS, INTERACTION_OUTPUT_SCHEMAS
from ._item_definitions import ITEM_DEFINITIONS, ITEM_OUTPUT_SCHEMAS
from ._job_definitions import JOB_DEFINITIONS, object_schema
from ._market_definitions import MARKET_DEFINITIONS, MARKET_OUTPUT_SCHEMAS
from ._reading_definitions import READING_DEFINITIONS, READING_OUTPUT_SCHEMAS
from ._screen_tools import SCREEN_DEFINITIONS, SCREEN_OUTPUT_SCHEMAS
from ._trade_definitions import TRADE_DEFINITIONS, TRADE_OUTPUT_SCHEMAS
from ._world_definitions import WORLD_DEFINITIONS, WORLD_OUTPUT_SCHEMAS

__all__ = [
    "CORE_DEFINITIONS",
    "CORE_TOOLSET",
    "OUTPUT_SCHEMAS",
    "PAGE_DEFAULT",
    "PAGE_MAX",
    "SELF_TEST_SECONDS",
    "SIMULATOR_ONLY",
    "SIMULATOR_TOOLS",
]

CORE_TOOLSET: Final = "core"
PAGE_DEFAULT: Final = 20
PAGE_MAX: Final = 100
SELF_TEST_SECONDS: Final = 10.0
SIMULATOR_ONLY: Final = " [This simulator's own tool: the real XIV MCP has no tool by this name.]"
"""Ends the description of each tool of this simulator that the real host does not have, so an
assistant (and a plugin author reading tools/list) never takes it for one of XIV MCP's."""


_obj = object_schema

_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_PAGE: Final = {
    "limit": {"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "description": "How many. Default 20, max 100."},
    "offset": {"type": "integer", "minimum": 0, "description": "How many to skip (paging). Default 0."},
}


def _listing(item: dict[str, Any]) -> dict[str, Any]:
    properties = {"total": _INT, "showing": _INT, "offset": _INT, "items": {"type": "array", "items": item}}
    return _obj(properties, ("total", "showing", "items"))


CORE_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="echo",
        description="Returns its 'text' argument unchanged. Use it to check that XIV MCP answers." + SIMULATOR_ONLY,
        input_schema=_obj({"text": {"type": "string", "description": "What to send back."}}, ("text",)),
        read_only=True,
    ),
    ToolDefinition(
        name="list_toolsets",
        description="The groups of tools XIV MCP offers now: 'core' (XIV MCP's own) and one per third-party "
        "plugin, named after it, with how many tools each has. Find tools in a toolset with search_tools."
        + SIMULATOR_ONLY,
        read_only=True,
    ),
    ToolDefinition(
        name="search_tools",
        description="Finds tools by words in their name or description (case-insensitive; every word must "
        "match). Returns {total, showing, items} with each tool's inputSchema; run one with call_tool, or call it "
        "directly. The tools that may run now come first; XIV MCP's own tools that this simulated game does not "
        "perform follow, with simulated: false (a job may name them, but they cannot run here)." + SIMULATOR_ONLY,
        input_schema=_obj(
            {
                "query": {"type": "string", "description": "Words to look for. Empty matches every tool."},
                "toolset": {"type": "string", "description": "Only this toolset, as list_toolsets names it."},
                **_PAGE,
            }
        ),
        read_only=True,
    ),
    ToolDefinition(
        name="call_tool",
        description="Runs any tool by name, as found with search_tools, through the player's permissions "
        "(some tools ask the player first). Returns what the tool returns." + SIMULATOR_ONLY,
        input_schema=_obj(
            {
                "name": {"type": "string", "description": "The tool's name, as search_tools returns it."},
                "arguments": {"type": "object", "description": "The tool's arguments, per its inputSchema."},
            },
            ("name",),
        ),
        destructive=True,
    ),
    ToolDefinition(
        name="get_plugin_status",
        description="Third-party plugins as the player sees them in /xivmcp: state (enabled, suspended, ...), "
        "whether connected, each tool's mode and capability modes, and what a plugin waits for." + SIMULATOR_ONLY,
        input_schema=_obj({"plugin": {"type": "string", "description": "One plugin's InternalName. Default: all."}}),
        read_only=True,
    ),
    ToolDefinition(
        name="run_self_test",
        description="Checks every enabled plugin: that it provides its Invoke gate, and that one of its "
        "read-only tools answers. Returns a report with one check per plugin.",
        read_only=True,
    ),
    *JOB_DEFINITIONS,
    *INTEGRATION_DEFINITIONS,
    *GAME_DEFINITIONS,
    *READING_DEFINITIONS,
    *MARKET_DEFINITIONS,
    *SCREEN_DEFINITIONS,
    *TRADE_DEFINITIONS,
    *ITEM_DEFINITIONS,
    *BAG_DEFINITIONS,
    *INTERACTION_DEFINITIONS,
    *WORLD_DEFINITIONS,
)

OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "list_toolsets": _listing(_obj({"name": _STR, "description": _STR, "tools": _INT}, ("name", "tools"))),
    "search_tools": _listing(
        _obj({"name": _STR, "toolset": _STR, "description": _STR, "inputSchema": {"type": "object"}}, ("name",))
    ),
    "get_plugin_status": _obj({"plugins": {"type": "array", "items": {"type": "object"}}}, ("plugins",)),
    "run_self_test": _obj(
        {
            "ok": {"type": "boolean"},
            "checks": {"type": "array", "items": {"type": "object"}},
            "skipped": {"type": "array", "items": {"type": "object"}},
        },
        ("ok", "checks"),
    ),
    **INTEGRATION_OUTPUT_SCHEMAS,
    **GAME_OUTPUT_SCHEMAS,
    **READING_OUTPUT_SCHEMAS,
    **MARKET_OUTPUT_SCHEMAS,
    **SCREEN_OUTPUT_SCHEMAS,
    **TRADE_OUTPUT_SCHEMAS,
    **ITEM_OUTPUT_SCHEMAS,
    **BAG_OUTPUT_SCHEMAS,
    **INTERACTION_OUTPUT_SCHEMAS,
    **WORLD_OUTPUT_SCHEMAS,
}
SIMULATOR_TOOLS: Final[frozenset[str]] = frozenset(
    d.name for d in CORE_DEFINITIONS if d.description.endswith(SIMULATOR_ONLY)
)
"""This simulator's own tools: a plugin may register any of these names, as in the real host."""
