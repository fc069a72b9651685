"""The capability catalog (what a tool may do, how risky it is) and XIV MCP's own tool names.

Before the player chooses, only reading (low risk) runs without asking; a critical capability
can be asked or denied, never always allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from ._codes import CapabilityId, Mode, Risk

__all__ = [
    "CAPABILITIES",
    "CAPABILITY_IDS",
    "CORE_TOOL_NAMES",
    "Capability",
    "default_mode",
    "find_capability",
    "is_mode_allowed",
]


@dataclass(frozen=True, slots=True)
class Capability:
    """One entry of the catalog: what a tool may do, how risky it is, and what the player reads."""

    id: CapabilityId
    risk: Risk
    title: str
    description: str

    @property
    def default(self) -> Mode:
        return default_mode(self.risk)


def default_mode(risk: Risk) -> Mode:
    """Before the player chooses, only reading (low risk) runs without asking."""
    return Mode.ALLOW if risk is Risk.LOW else Mode.ASK


def is_mode_allowed(risk: Risk, mode: Mode) -> bool:
    """A critical capability can be asked or denied, never always allowed."""
    return not (risk is Risk.CRITICAL and mode is Mode.ALLOW)


CAPABILITIES: Final[tuple[Capability, ...]] = (
    Capability(
        CapabilityId.READ_GAME,
        Risk.LOW,
        "Read game state",
        "Reads the character, inventory, zone and other game data; changes nothing. Added to every tool for you.",
    ),
    Capability(
        CapabilityId.GAME_UI,
        Risk.MEDIUM,
        "Use game windows",
        "Opens, closes and clicks game windows and menus, and talks to NPCs.",
    ),
    Capability(
        CapabilityId.MOVE_CHARACTER,
        Risk.MEDIUM,
        "Move the character",
        "Walks, mounts, teleports, or changes zone, instance or world.",
    ),
    Capability(
        CapabilityId.MOVE_ITEMS,
        Risk.MEDIUM,
        "Move items",
        "Moves items between bags, armoury, saddlebag, retainers or chests.",
    ),
    Capability(CapabilityId.NETWORK, Risk.MEDIUM, "Go online", "Sends requests to web services outside the game."),
    Capability(CapabilityId.COMBAT, Risk.HIGH, "Fight", "Enters duties or fights; the character can die."),
    Capability(CapabilityId.SPEND_GIL, Risk.HIGH, "Spend gil", "Pays gil, including teleports and repairs."),
    Capability(
        CapabilityId.SPEND_CURRENCY,
        Risk.HIGH,
        "Spend other currencies",
        "Pays tomestones, scrips, seals, MGP or items used as currency.",
    ),
    Capability(
        CapabilityId.TRADE_ITEMS,
        Risk.HIGH,
        "Sell or trade items",
        "Lists on the market board, sells to vendors or trades with players.",
    ),
    Capability(CapabilityId.CHAT_SEND, Risk.HIGH, "Send chat", "Sends chat or commands other players can see."),
    Capability(
        CapabilityId.LOGIN,
        Risk.HIGH,
        "Log out or switch characters",
        "Logs out, switches character or closes the game.",
    ),
    Capability(CapabilityId.EDIT_SETTINGS, Risk.HIGH, "Change settings", "Changes game, plugin or file settings."),
    Capability(
        CapabilityId.DISCARD_ITEMS,
        Risk.CRITICAL,
        "Destroy items",
        "Discards or desynthesises items, anything that can't be undone. Always asked.",
    ),
)
CAPABILITY_IDS: Final[tuple[str, ...]] = tuple(c.id.value for c in CAPABILITIES)
_BY_ID: Final[Mapping[str, Capability]] = MappingProxyType({c.id.value: c for c in CAPABILITIES})


def find_capability(capability_id: str) -> Capability | None:
    """The catalog entry for an id, or ``None`` for an id the host does not know."""
    return _BY_ID.get(capability_id)


# XIV MCP's own tool names (core tools, the integrations it maintains, and this project's
# simulated ones). A plugin can't register any of them, and DeclareDependencies names them alone.
CORE_TOOL_NAMES: Final[frozenset[str]] = frozenset(
    """
    get_game_status get_character get_class_jobs get_inventory search_inventory get_equipment
    list_gearsets get_currencies list_unlock_categories check_unlocks get_active_quests check_quests
    get_party get_targets get_nearby_objects get_fates get_aetherytes get_companions get_submersibles
    list_game_sheets search_game_data get_game_data_row inspect_window run_self_test
    get_collections get_armoire get_glamour_dresser get_job_actions get_hotbars get_macros set_macro
    clear_macro list_waymark_presets get_waymark_preset set_waymark_preset place_waymark_preset
    list_windows open_window close_window interact_with_object get_menu select_menu_option
    load_game_data navigate_to get_navigation_status stop_navigation get_automation_status
    get_position set_map_flag clear_map_flag wait_until_arrived start_route
    list_characters switch_character refresh_character_list visit_world switch_gearset
    sort_inventory move_items get_retainers get_retainer_inventories open_retainer close_retainer
    refresh_retainer_inventories transfer_retainer_items get_fc_chest fc_chest_transfer find_ventures
    assign_venture recall_venture turn_in_collectables
    get_item_sources find_vendors buy_item request_spending_approval list_approvals revoke_approval
    get_market_prices get_market_listings get_sales get_sale_history sell_item reprice_listings
    get_crafting_lists set_crafting_list delete_crafting_list craft_item crafting_control
    get_gather_lists set_gather_list delete_gather_list set_auto_gather plan_craft prepare_craft_plan
    gather_until run_crafting_list
    list_duties run_duty get_duty_status stop_duty leave_duty
    start_job list_jobs get_job update_job pause_job resume_job cancel_job wait
    list_plugins set_plugin_enabled reload_plugin list_plugin_config_files get_plugin_config
    set_plugin_config get_cache_status wait_for_cache_refresh
    get_plugin_status list_toolsets search_tools call_tool get_player teleport echo
    """.split()
)
