"""The real host's own tools, as the contract holds them (F1, T6).

The names are pinned here by module: a re-read of the real project (`real_host_catalog.json`)
that adds, drops or moves a tool fails this test until the change is reviewed and written here too.
"""

from __future__ import annotations

import pytest

from gates.contract import (
    BUILTIN_TOOL_NAMES,
    BUILTIN_TOOLS,
    NOT_FOR_PLUGINS,
    REAL_HOST,
    DefinitionError,
    Mode,
    NameTakenError,
    ToolDefinition,
    validate_tool_definition,
)

PINNED: dict[str, str] = {
    "game_data": """
        check_quests check_unlocks get_active_quests get_aetherytes get_armoire get_cache_status
        get_character get_class_jobs get_collections get_companions get_currencies get_equipment get_fates
        get_game_data_row get_game_status get_glamour_dresser get_hotbars get_inventory get_job_actions
        get_nearby_objects get_party get_position get_submersibles get_targets get_weather_forecast
        inspect_window list_game_sheets list_gearsets list_plugins list_unlock_categories plan_craft
        run_self_test search_game_data search_inventory wait_for_cache_refresh
    """,
    "game_navigation": """
        abandon_quest capture_ui_events clear_map_flag close_window get_automation_status get_menu
        get_navigation_status interact_with_object leave_duty list_characters list_windows load_game_data
        navigate_to open_window place_waymark_preset press_xivmcp_control recover_game_state
        refresh_character_list run_autoretainer select_menu_option set_map_flag show_xivmcp_window
        start_route stop_navigation switch_character switch_gearset visit_world
    """,
    "items_retainers": """
        assign_venture close_retainer collect_submersible deploy_submersible dye_item equip_items
        find_ventures get_fc_chest get_retainer_inventories get_retainers move_gil move_items open_retainer
        recall_submersible recall_venture refresh_retainer_inventories repair_submersible
        retrieve_glamour_item sort_inventory transfer_retainer_items turn_in_collectables
    """,
    "market": """
        buy_from_market_board buy_item get_market_listings get_sale_history get_sales list_approvals
        reprice_listings request_spending_approval revoke_approval sell_item sell_to_vendor
    """,
    "ui_editing": """
        clear_macro get_macros get_waymark_preset list_waymark_presets set_macro set_waymark_preset
    """,
    "online": """
        find_fish get_fashion_report get_item_sources get_market_prices
    """,
    "plugin_management": """
        get_plugin_config list_plugin_config_files reload_plugin set_plugin_config set_plugin_enabled
    """,
    "screen": """
        take_screenshot
    """,
    "trading": """
        cancel_trade get_trade trade_with_player
    """,
    "jobs": """
        cancel_job get_job list_jobs pause_job resume_job start_job update_job wait wait_until_arrived
    """,
    "autoduty": """
        farm_duty_item get_duty_status list_duties run_duty stop_duty
    """,
    "artisan": """
        craft_item crafting_control delete_crafting_list get_crafting_lists prepare_craft_plan
        run_crafting_list set_crafting_list
    """,
    "gatherbuddyreborn": """
        delete_gather_list gather_until get_gather_lists set_auto_gather set_gather_list
    """,
    "itemvendorlocation": """
        find_vendors
    """,
    "fcch": """
        fc_chest_transfer
    """,
    "saucy": """
        build_triad_deck complete_fashion_report farm_triad_cards get_saucy_stats get_triad_decks
        list_triad_cards list_triad_npcs play_jumbo_cactpot play_mini_cactpot play_triple_triad
        present_fashion_report set_triad_deck stop_saucy
    """,
    "vsatisfy": """
        deliver_custom_delivery do_custom_deliveries get_custom_deliveries stop_custom_delivery
    """,
    "distantseas": """
        board_ocean_fishing fish_ocean_voyages get_ocean_fishing_schedule get_ocean_fishing_status
        go_ocean_fishing import_ocean_presets set_ocean_fishing_alarm
    """,
    "autohook": """
        catch_fish fish_until set_autohook_preset stop_fishing
    """,
    "questionable": """
        complete_quest do_quests do_tribe_dailies get_questing_status start_main_scenario stop_questing
    """,
}


def test_f1_the_catalog_holds_every_built_in_of_the_real_host_by_module() -> None:
    held: dict[str, set[str]] = {}
    for tool in BUILTIN_TOOLS.values():
        held.setdefault(tool.module, set()).add(tool.name)
    assert held == {module: set(names.split()) for module, names in PINNED.items()}
    assert len(BUILTIN_TOOL_NAMES) == 175


def test_f1_every_tool_belongs_to_a_module_of_the_catalog_and_names_its_source() -> None:
    modules = {module.id for module in REAL_HOST.modules}
    assert {tool.module for tool in REAL_HOST.tools} == modules
    assert REAL_HOST.source.repo == "IndividualGather/xiv-mcp"
    assert all(len(commit) == 40 for commit in REAL_HOST.source.commits.values())
    maintained = {plugin.plugin for plugin in REAL_HOST.integrations}
    assert {tool.plugin for tool in REAL_HOST.tools if tool.plugin} <= maintained


def test_f1_the_modules_have_the_real_defaults() -> None:
    by_id = {module.id: module for module in REAL_HOST.modules}
    assert (by_id["game_data"].reading, by_id["game_data"].changes) == (Mode.ALLOW, None)
    assert (by_id["game_navigation"].reading, by_id["game_navigation"].changes) == (Mode.ALLOW, Mode.DENY)
    assert (by_id["online"].reading, by_id["online"].changes) == (Mode.DENY, None)
    assert (by_id["plugin_management"].reading, by_id["plugin_management"].changes) == (Mode.DENY, Mode.DENY)
    assert (by_id["jobs"].reading, by_id["jobs"].changes) == (Mode.ALLOW, Mode.ALLOW)
    assert (by_id["screen"].reading, by_id["screen"].changes) == (Mode.ASK, None)


def test_f1_the_tools_plugins_may_not_use_are_the_real_hosts() -> None:
    assert NOT_FOR_PLUGINS == {
        "start_job", "update_job", "pause_job", "resume_job", "cancel_job", "list_plugin_config_files",
        "get_plugin_config", "set_plugin_config", "set_plugin_enabled", "reload_plugin", "take_screenshot",
        "request_spending_approval", "revoke_approval", "show_xivmcp_window", "press_xivmcp_control",
        "capture_ui_events",
    }  # fmt: skip


@pytest.mark.parametrize("name", ["take_screenshot", "move_gil", "trade_with_player", "equip_items", "catch_fish"])
def test_t6_a_plugin_cannot_register_a_built_in_of_the_real_host(name: str) -> None:
    definition = ToolDefinition(name=name, description="Mine.", read_only=True)
    with pytest.raises(NameTakenError) as refused:
        validate_tool_definition(definition)
    assert str(refused.value) == f"'{name}' is an XIV MCP tool; pick another name (prefix it with your plugin's name)."


@pytest.mark.parametrize("name", ["echo", "list_toolsets", "search_tools", "call_tool", "get_plugin_status"])
def test_f1_the_simulators_own_tool_names_are_free_for_a_plugin_as_in_the_real_host(name: str) -> None:
    definition = ToolDefinition(name=name, description="Mine.", read_only=True)
    try:
        validate_tool_definition(definition)
    except DefinitionError as error:  # pragma: no cover - the failure message is the point
        pytest.fail(f"{name} is refused: {error}")
