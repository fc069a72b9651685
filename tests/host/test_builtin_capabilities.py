"""What XIV MCP's own tools do in plugins' capabilities, as the real host's BuiltInCapabilities.Of maps them."""

from __future__ import annotations

from gates.contract import BUILTIN_TOOLS, CAPABILITY_IDS, NOT_FOR_PLUGINS
from gates.host.policy._builtin_capabilities import builtin_capabilities


def test_f5_a_reading_tool_reads_a_changing_one_has_its_own_list_else_its_modules_else_game_windows() -> None:
    assert builtin_capabilities("get_position", "game_data", True) == ("read_game",)
    bought = ("game_ui", "move_character", "spend_gil", "spend_currency")
    assert builtin_capabilities("buy_item", "market", False) == bought
    assert builtin_capabilities("set_map_flag", "game_navigation", False) == ("game_ui", "move_character")
    assert builtin_capabilities("catch_fish", "autohook", False) == ("game_ui",)  # an integration's: not held here


def test_every_built_in_maps_to_known_capabilities() -> None:
    for tool in BUILTIN_TOOLS.values():
        if tool.name not in NOT_FOR_PLUGINS:
            assert set(builtin_capabilities(tool.name, tool.module, tool.read_only)) <= set(CAPABILITY_IDS), tool.name
