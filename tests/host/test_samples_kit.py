"""The decorated sample (`plugins_sample.decorated`) as its author would test it: through the kit's fixtures.

The `Plugin` object itself is started as a process (`plugin_process.start(decorated.plugin)`),
the player enables it from Python, and a real MCP client calls its tools: the same declarations
that `Plugin.call` runs in-process (tests/plugin) here cross every process (K4).
"""

from __future__ import annotations

import pytest

from gates.testing import Assistant, Player, PluginProcesses, SyncAssistant, SyncPlayer
from plugins_sample import decorated


@pytest.fixture
def enabled(player: SyncPlayer, plugin_process: PluginProcesses) -> SyncPlayer:
    """Decorated running, enabled, and allowed to mark the map."""
    plugin_process.start(decorated.plugin).wait_registered()
    player.enable("Decorated")
    player.mode("Decorated", "game_ui", "allow")
    return player


def test_the_assistant_sees_the_schemas_the_functions_declare(enabled: SyncPlayer, assistant: SyncAssistant) -> None:
    tools = {tool.name: tool for tool in assistant.list_tools()}
    set_flag = tools["decorated_set_flag"]
    assert set_flag.input_schema["required"] == ["x", "y"]
    assert set_flag.input_schema["properties"]["x"]["maximum"] == 42
    assert set_flag.output_schema is None  # SPEC: F3 - XIV MCP 2 does not pass the return type's schema on
    found = {item["name"] for item in assistant.search_tools("flag", toolset="Decorated")}
    assert found == {"decorated_status", "decorated_set_flag", "decorated_find_spots"}  # "flag" in name or description


@pytest.mark.xivmcp(simulator_extensions=True)
def test_p5_with_the_simulators_extensions_the_return_type_is_the_output_schema_and_structured_content(
    enabled: SyncPlayer, assistant: SyncAssistant
) -> None:
    tools = {tool.name: tool for tool in assistant.list_tools()}
    schema = tools["decorated_set_flag"].output_schema
    assert schema is not None and "mapOpened" in schema["properties"]
    placed = assistant.call_tool("decorated_set_flag", {"x": 21.4, "y": 9.8})
    assert placed.raw.structured_content == {"zone": "Kozama'uka", "x": 21.4, "y": 9.8, "mapOpened": True}
    assert placed.structured == placed.value == placed.raw.structured_content


def test_arguments_are_bound_as_the_function_wants_them(enabled: SyncPlayer, assistant: SyncAssistant) -> None:
    placed = assistant.call_tool("decorated_set_flag", {"x": "21.4", "y": 9.8, "openMap": False})
    assert not placed.is_error, placed.text
    assert placed.raw.structured_content is None  # SPEC: F3 - text alone; the kit reads the JSON in it
    assert placed.structured == {"zone": "Kozama'uka", "x": 21.4, "y": 9.8, "mapOpened": False}
    page = assistant.call_tool("decorated_find_spots", {"query": "kozama", "limit": 1})
    assert (page.structured or {})["total"] == 2 and (page.structured or {})["showing"] == 1


def test_a_value_out_of_range_is_an_error_the_assistant_can_act_on(
    enabled: SyncPlayer, assistant: SyncAssistant
) -> None:
    refused = assistant.call_tool("decorated_set_flag", {"x": 50, "y": 9.8})
    assert refused.is_error
    assert "x" in refused.text and "42" in refused.text


def test_restock_asks_the_player_with_the_price_mid_call(enabled: SyncPlayer, assistant: SyncAssistant) -> None:
    enabled.mode("Decorated", "move_character", "allow")
    call = assistant.start_call_tool("decorated_restock", {"item": "X-Potion", "count": 3})
    enabled.approve(enabled.wait_approval("decorated_restock").approval_id)  # the whole call (spend_gil: ask)
    during = enabled.wait_approval("decorated_restock")
    assert during.summary == "Buy 3 X-Potion for 960 gil"

    enabled.decline(during.approval_id)

    declined = call.result()
    assert declined.is_error and declined.text == "The player declined the purchase; nothing was bought."


@pytest.mark.asyncio
@pytest.mark.xivmcp(auto_enable=True)
async def test_the_same_sample_from_an_async_test(
    async_player: Player, async_assistant: Assistant, plugin_process: PluginProcesses
) -> None:
    await plugin_process.start(decorated.plugin).wait_registered_async()
    assert (await async_player.plugin("Decorated")).state == "enabled"  # --auto-enable
    status = await async_assistant.call_tool("decorated_status")
    assert status.structured == {"flag": None, "kills": 0, "gil": 100_000}
