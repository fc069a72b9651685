"""Tools over MCP with the official client, in both protocol eras (A1, A3, A5, F3, P2, P5, P6, T4).

A real host in a subprocess, without the simulator's extensions: what the assistant sees is what
the real XIV MCP shows (F3), results as text alone. The sample plugins run in processes of their own.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from PIL import Image

from .xiv_mcp_support import (
    CARELESS_TOOLS,
    MODERN,
    MYPLUGIN_TOOLS,
    RAWPLUGIN_TOOLS,
    WAIT,
    StartPlugin,
    XivSystem,
    connect,
)

pytestmark = pytest.mark.asyncio
ERAS = pytest.mark.parametrize("era", ["legacy", MODERN], ids=["2025-11-25", "2026-07-28"])
CORE = [
    "echo",
    "list_toolsets",
    "search_tools",
    "call_tool",
    "get_plugin_status",
    "run_self_test",
    *("start_job", "list_jobs", "get_job", "update_job", "pause_job", "resume_job", "cancel_job", "wait"),
    *("get_game_status", "get_character", "get_position", "get_inventory", "search_inventory", "get_currencies"),
    *("set_map_flag", "clear_map_flag", "navigate_to", "get_navigation_status", "stop_navigation"),
    *("wait_until_arrived", "list_windows", "open_window", "close_window"),
    *("get_class_jobs", "get_equipment", "list_gearsets", "get_active_quests", "get_aetherytes"),
    *("get_party", "get_targets", "get_nearby_objects", "get_weather_forecast", "list_plugins"),
    *("get_automation_status", "get_market_listings", "buy_item", "sell_item", "request_spending_approval"),
    *("list_approvals", "revoke_approval", "get_retainers", "get_retainer_inventories", "open_retainer"),
    *("close_retainer", "transfer_retainer_items"),
    "take_screenshot",
    *("get_trade", "trade_with_player", "cancel_trade", "move_gil", "equip_items"),
    *("move_items", "sort_inventory"),
    *("interact_with_object", "get_menu", "select_menu_option"),
    *("switch_gearset", "leave_duty", "list_characters", "switch_character", "visit_world"),
]
"""XIV MCP's own tools offered with no plugin loaded (AutoDuty's integration tools come with AutoDuty)."""


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def json_of(result: types.CallToolResult) -> Any:
    """A result as the assistant reads it: its only content, text, as JSON (F3)."""
    assert not result.is_error, text_of(result)
    assert result.structured_content is None and len(result.content) == 1
    return json.loads(text_of(result))


PROVIDED_BY = " [Provided by the third-party plugin {}.]"
"""The real host's end of a plugin tool's description (`XivMcp/Api/PluginApi.cs`, RegisterTool)."""


@ERAS
async def test_initialize_advertises_list_changed_and_resource_subscriptions(xiv: XivSystem, era: str) -> None:
    # SPEC: A1, A2, A9
    async with connect(xiv, era) as s:
        assert s.client.protocol_version == ("2026-07-28" if s.modern else "2025-11-25")
        capabilities = s.client.server_capabilities
        assert capabilities.tools is not None and capabilities.tools.list_changed is True
        assert capabilities.resources is not None and capabilities.resources.subscribe is True
        assert s.client.server_info is not None and s.client.server_info.name == "XivMcp"


@ERAS
async def test_tools_list_offers_core_tools_with_schema_description_and_annotations(xiv: XivSystem, era: str) -> None:
    # SPEC: P2, P5, T5
    async with connect(xiv, era) as s:
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
    assert set(CORE) <= set(tools)
    echo = tools["echo"]
    assert echo.input_schema["required"] == ["text"]
    assert echo.description and "text" in echo.description
    assert echo.annotations is not None and echo.annotations.read_only_hint is True
    assert tools["run_self_test"].input_schema == {"type": "object", "properties": {}}
    call = tools["call_tool"].annotations
    assert call is not None and call.read_only_hint is False and call.destructive_hint is True
    assert call.open_world_hint is False  # as the real host marks every tool


@ERAS
async def test_echo_returns_its_text(xiv: XivSystem, era: str) -> None:
    # SPEC: A5
    async with connect(xiv, era) as s:
        result = await s.client.call_tool("echo", {"text": "hello, Eorzea"})
    assert not result.is_error
    assert text_of(result) == "hello, Eorzea"


@ERAS
async def test_f3_an_unknown_tool_is_the_json_rpc_error_32602_unknown_tool(xiv: XivSystem, era: str) -> None:
    # SPEC: A1
    async with connect(xiv, era) as s:
        with pytest.raises(MCPError) as caught:
            await s.client.call_tool("no_such_tool", {})
    assert caught.value.code == types.INVALID_PARAMS == -32602
    assert caught.value.message == "Unknown tool: no_such_tool"
    assert caught.value.data is None


@ERAS
async def test_f3_output_schema_and_structured_content_are_absent_by_default(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: P5
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("myplugin")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
        placed = await s.client.call_tool("myplugin_set_flag", {"x": 21.4, "y": 9.8, "name": "Summit"})
        found = await s.client.call_tool("search_tools", {"toolset": "MyPlugin"})
    # MyPlugin's results are Structs, so it sends an outputSchema; XIV MCP 2 drops it.
    assert [name for name, tool in tools.items() if tool.output_schema is not None] == []
    assert text_of(placed) == '{"zone":"Tuliyollal","x":21.4,"y":9.8,"mapOpened":true}'  # compact JSON text
    assert placed.structured_content is None and placed.is_error is False
    assert json_of(found)["total"] == len(MYPLUGIN_TOOLS)


@ERAS
async def test_f3_a_plugins_string_result_is_json_text_and_the_hosts_own_is_plain(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # The real host holds a plugin's result as a JsonNode, so even a string goes as JSON text.
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("conformance")
        await s.wait_offered("test_simple_text")
        plugins = await s.client.call_tool("test_simple_text", {})
        own = await s.client.call_tool("echo", {"text": "hello"})
    assert text_of(plugins) == '"This is a simple text response for testing."'
    assert text_of(own) == "hello"


@ERAS
async def test_f3_a_suspended_plugins_tool_stays_listed_with_the_suffix(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: T2
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("careless")
        await s.wait_offered(*CARELESS_TOOLS)
        try:
            bought = await s.client.call_tool("careless_buy_potions", {"count": 1})  # spends gil, undeclared
            tools = {t.name: t for t in await s.list_all()}
            refused = await s.client.call_tool("careless_sell_junk", {})
            status = json_of(await s.client.call_tool("get_plugin_status", {"plugin": "Careless"}))
        finally:
            await xiv.run_cli("lift", "Careless")
    assert json_of(bought) == {"bought": 1, "item": "Hi-Potion"}
    assert [card["state"] for card in status["plugins"]] == ["suspended"]
    assert set(CARELESS_TOOLS) <= set(tools)  # "so the assistant can explain why calls fail"
    description = tools["careless_sell_junk"].description or ""
    assert description.endswith(PROVIDED_BY.format("Careless"))
    assert refused.is_error
    assert text_of(refused) == (
        "Careless is suspended by XIV MCP (careless_buy_potions: 320 gil spent. (not declared)). "
        "Only the player can lift that, in /xivmcp → Third-party plugins."
    )


@ERAS
async def test_f3_a_maintained_integrations_tool_without_its_plugin_is_not_available(xiv: XivSystem, era: str) -> None:
    # SPEC: A5
    async with connect(xiv, era) as s:
        names = await s.tool_names()
        result = await s.client.call_tool("run_duty", {"duty": "Vanguard"})
    assert "run_duty" not in names  # AutoDuty is not loaded
    assert result.is_error
    assert text_of(result) == (
        "'run_duty' is not available right now: the plugin it needs is not installed or not loaded."
    )


@ERAS
async def test_core_tool_refusal_is_an_error_result_written_for_the_assistant(xiv: XivSystem, era: str) -> None:
    # SPEC: P4, P6
    async with connect(xiv, era) as s:
        missing = await s.client.call_tool("echo", {})
        unknown = await s.client.call_tool("search_tools", {"query": "x", "colour": "red"})
        paging = await s.client.call_tool("search_tools", {"limit": 500})
    assert missing.is_error and text_of(missing) == "echo needs 'text', a string."
    assert unknown.is_error and "search_tools has no argument 'colour'" in text_of(unknown)
    assert paging.is_error and "'limit' must be a whole number from 1 to 100" in text_of(paging)


@ERAS
async def test_plugin_tool_runs_in_the_plugin_process(xiv: XivSystem, era: str, start_plugin: StartPlugin) -> None:
    # SPEC: T3, T4
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("myplugin")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        placed = await s.client.call_tool("myplugin_set_flag", {"x": 21.4, "y": 9.8, "name": "Summit"})
        status = await s.client.call_tool("myplugin_status", {})
        off_map = await s.client.call_tool("myplugin_set_flag", {"x": 99, "y": 9.8})
    assert json_of(placed) == {"zone": "Tuliyollal", "x": 21.4, "y": 9.8, "mapOpened": True}, placed
    assert json_of(status)["flag"]["name"] == "Summit"
    assert off_map.is_error and text_of(off_map) == "(99, 9.8) is off the map: map coordinates run from 1 to 42."


@ERAS
async def test_meta_tools_find_and_run_a_plugin_tool(xiv: XivSystem, era: str, start_plugin: StartPlugin) -> None:
    # SPEC: P2
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("raw_gates")
        await s.wait_offered(*RAWPLUGIN_TOOLS)
        toolsets = json_of(await s.client.call_tool("list_toolsets", {}))
        found = json_of(await s.client.call_tool("search_tools", {"query": "ECHOES its", "limit": 5}))
        ran = await s.client.call_tool("call_tool", {"name": "rawplugin_echo", "arguments": {"say": "hi"}})
        nothing = await s.client.call_tool("call_tool", {"name": "rawplugin_nope"})
    sets = {t["name"]: t["tools"] for t in toolsets["items"]}
    assert sets["core"] == len(CORE) and sets["RawPlugin"] == 3
    assert toolsets["total"] == toolsets["showing"] == len(toolsets["items"])
    assert [t["name"] for t in found["items"]] == ["rawplugin_echo"]
    assert found["total"] == found["showing"] == 1 and found["items"][0]["toolset"] == "RawPlugin"
    assert found["items"][0]["inputSchema"] == {"type": "object", "properties": {}}
    assert found["items"][0]["description"].endswith(PROVIDED_BY.format("RawPlugin"))  # as tools/list has it
    assert json_of(ran) == {"echo": {"say": "hi"}}
    assert nothing.is_error and "There is no tool named 'rawplugin_nope'" in text_of(nothing)


@ERAS
async def test_search_tools_pages_with_limit_and_offset(xiv: XivSystem, era: str) -> None:
    # SPEC: P5
    async with connect(xiv, era) as s:
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
        first = json_of(await s.client.call_tool("search_tools", {"limit": 2}))
        rest = json_of(await s.client.call_tool("search_tools", {"limit": "2", "offset": 2}))
    limit = tools["search_tools"].input_schema["properties"]["limit"]
    assert limit["maximum"] == 100 and "Default 20, max 100" in limit["description"]  # stated default and max
    assert first["showing"] == 2 and first["total"] >= len(CORE)
    assert [t["name"] for t in first["items"]] + [t["name"] for t in rest["items"]] == CORE[:4]


@ERAS
async def test_f3_a3_a_tool_set_to_deny_stays_listed_and_its_call_is_refused_with_the_message(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: A3
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("myplugin")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        await xiv.run_cli("mode", "MyPlugin", "myplugin_follow", "deny")
        try:
            names = await s.tool_names()  # the real host lists every third-party tool of an enabled plugin
            result = await s.client.call_tool("myplugin_follow", {})
            found = json_of(await s.client.call_tool("search_tools", {"query": "myplugin_follow"}))
        finally:
            await xiv.run_cli("mode", "MyPlugin", "myplugin_follow", "default")
    assert "myplugin_follow" in names
    [listed] = [item for item in found["items"] if item["name"] == "myplugin_follow"]
    # the display name MyPlugin declares ("My Plugin"), as in the refusal below (F2)
    assert listed["description"].endswith(PROVIDED_BY.format("My Plugin"))
    assert result.is_error
    assert text_of(result) == (
        "myplugin_follow is set to Deny for My Plugin in /xivmcp, so it can't run. The player can change it there."
    )


@ERAS
async def test_ask_call_runs_once_the_player_approves_from_the_shell(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: A3
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("myplugin")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        await xiv.run_cli("mode", "MyPlugin", "myplugin_stop", "ask")
        try:
            outcome: dict[str, Any] = {}

            async def call() -> None:
                outcome["result"] = await s.client.call_tool("myplugin_stop", {})

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                listed = await xiv.run_cli("approvals", "--json", "--wait", str(WAIT))
                approvals = json.loads(listed.stdout)["approvals"]
                assert [(a["plugin"], a["tool"]) for a in approvals] == [("MyPlugin", "myplugin_stop")]
                await xiv.run_cli("approve", approvals[0]["approvalId"])
        finally:
            await xiv.run_cli("mode", "MyPlugin", "myplugin_stop", "default")
    result = outcome["result"]
    assert json_of(result) == {"stopped": False}


@ERAS
async def test_take_screenshot_waits_for_the_player_then_sends_its_png_as_image_content(
    xiv: XivSystem, era: str
) -> None:
    # SPEC: A3, F3 - the content the real McpServer.CallTool builds: the data's text, the caption, the image
    async with connect(xiv, era) as s:
        outcome: dict[str, Any] = {}

        async def call() -> None:
            outcome["result"] = await s.client.call_tool("take_screenshot", {"max_width": 320})

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            listed = await xiv.run_cli("approvals", "--json", "--wait", str(WAIT))
            approvals = json.loads(listed.stdout)["approvals"]
            assert [(a["plugin"], a["tool"]) for a in approvals] == [("XivMcp", "take_screenshot")]
            assert outcome == {}  # the screen's reading mode is ask: nothing is taken before the answer
            await xiv.run_cli("approve", approvals[0]["approvalId"])
    result: types.CallToolResult = outcome["result"]
    assert not result.is_error and result.structured_content is None
    data, caption, image = result.content
    assert isinstance(data, types.TextContent) and isinstance(caption, types.TextContent)
    assert json.loads(data.text) == {
        "area": "game",
        "captured": {"width": 512, "height": 512},
        "image": {"width": 320, "height": 320},
        "gameWindow": {"width": 512, "height": 512},
    }
    assert caption.text == "The game screen."
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    shot = Image.open(io.BytesIO(base64.b64decode(image.data, validate=True)))
    assert (shot.format, shot.size) == ("PNG", (320, 320))


@ERAS
async def test_plugin_status_and_self_test(xiv: XivSystem, era: str, start_plugin: StartPlugin) -> None:
    # SPEC: A12
    async with connect(xiv, era) as s:
        await s.watch()
        await start_plugin("raw_gates")
        await s.wait_offered(*RAWPLUGIN_TOOLS)
        status = json_of(await s.client.call_tool("get_plugin_status", {"plugin": "rawplugin"}))
        report = json_of(await s.client.call_tool("run_self_test", {}))
        unknown = await s.client.call_tool("get_plugin_status", {"plugin": "Nobody"})
    [raw] = status["plugins"]
    assert raw["name"] == "RawPlugin" and raw["state"] == "enabled" and raw["connected"] is True
    checks = {c["plugin"]: c for c in report["checks"]}
    assert checks["RawPlugin"]["ok"] is True
    assert checks["RawPlugin"]["tool"] == "rawplugin_echo"
    assert checks["RawPlugin"]["invokeGate"] == "RawPlugin.XivMcp.Invoke"
    assert unknown.is_error and "XIV MCP knows no plugin named 'Nobody'" in text_of(unknown)


@ERAS
async def test_tools_list_pages_with_a_cursor(xiv: XivSystem, era: str, start_plugin: StartPlugin) -> None:
    # SPEC: A1, P5
    async with connect(xiv, era) as s:
        await s.watch()
        plugin = await start_plugin("many_tools_plugin.py", "120")
        await plugin.expect("registered")
        await s.wait_offered("manytools_t119")
        first = await s.client.list_tools(cache_mode="refresh")
        second = await s.client.list_tools(cursor=first.next_cursor, cache_mode="refresh")
        with pytest.raises(MCPError) as caught:
            await s.client.list_tools(cursor="not-a-cursor", cache_mode="refresh")
        found = json_of(await s.client.call_tool("search_tools", {"toolset": "ManyTools"}))
    # a truncated list says how many there are: the default page is 20
    assert (found["total"], found["showing"], len(found["items"]), found["offset"]) == (120, 20, 20, 0)
    assert len(first.tools) == 100 and first.next_cursor is not None
    assert second.next_cursor is None  # 120 of the plugin's and XIV MCP's own: under 200 in all
    names = [t.name for t in first.tools + second.tools]
    assert names == sorted(names)  # SPEC: F3 - by name, as the real host orders tools/list
    assert set(CORE) <= set(names)
    assert len(set(names)) == len(names) and {f"manytools_t{i:03}" for i in range(120)} <= set(names)
    assert caught.value.code == types.INVALID_PARAMS
