"""What XIV MCP's own tools do, in the capabilities plugins declare (the real host's
`BuiltInCapabilities`): an approval window for one lists these, and a plugin's job running one is
held to what the player allows that plugin through them.

A reading tool reads the game; a changing one has its own list, else its module's, else it uses
game windows. An integration's tools declare theirs in the real host's integration catalog, which
this simulator does not hold: they get their module's list or game windows (in the fidelity ledger).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["builtin_capabilities"]

_BY_MODULE: Final[Mapping[str, tuple[str, ...]]] = {
    "game_data": ("read_game",),
    "game_navigation": ("game_ui", "move_character"),
    "items_retainers": ("game_ui", "move_items"),
    "market": ("game_ui", "move_character", "spend_gil"),
    "ui_editing": ("edit_settings",),
    "online": ("network",),
    "plugin_management": ("edit_settings",),
    "screen": ("read_game",),
    "trading": ("game_ui", "trade_items"),
    "jobs": ("read_game",),
}

_BY_TOOL: Final[Mapping[str, tuple[str, ...]]] = {
    "switch_character": ("login", "move_character"),
    "refresh_character_list": ("login",),
    "visit_world": ("move_character", "spend_gil"),
    "leave_duty": ("game_ui", "combat"),
    "move_gil": ("move_items", "spend_gil"),
    "turn_in_collectables": ("game_ui", "trade_items"),
    "assign_venture": ("game_ui", "spend_currency"),
    "recall_venture": ("game_ui",),
    "repair_submersible": ("game_ui", "spend_currency"),
    "deploy_submersible": ("game_ui", "spend_currency"),
    "recall_submersible": ("game_ui", "spend_currency"),
    "dye_item": ("game_ui", "move_items", "spend_currency"),
    "buy_item": ("game_ui", "move_character", "spend_gil", "spend_currency"),
    "buy_from_market_board": ("game_ui", "move_character", "spend_gil"),
    "sell_item": ("game_ui", "trade_items"),
    "reprice_listings": ("game_ui", "trade_items"),
    "set_macro": ("edit_settings", "chat_send"),
    "clear_macro": ("edit_settings",),
}


def builtin_capabilities(tool: str, module: str | None, read_only: bool) -> tuple[str, ...]:
    """The capabilities one of XIV MCP's own tools uses, as `BuiltInCapabilities.Of` maps it."""
    if read_only:
        return ("read_game",)
    if (own := _BY_TOOL.get(tool)) is not None:
        return own
    return _BY_MODULE.get(module or "", ("game_ui",))
