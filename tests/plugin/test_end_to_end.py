"""A plugin declared from functions, as its own process, through a real host and the official MCP client
(P3, P4, P5, P6, T4, T5, K4).

The plugin (`authored_plugin.py`) registers with `plugin.run()`; the assistant is an `mcp.Client`.
"""

from __future__ import annotations

import json
import sys

import anyio
import anyio.to_thread
import mcp_types as types
import pytest

from tests.mcp.xiv_mcp_support import MODERN, Session, XivSystem, connect

from .plugins.authored_plugin import plugin

pytestmark = pytest.mark.asyncio
ERAS = pytest.mark.parametrize("era", ["legacy", MODERN], ids=["2025-11-25", "2026-07-28"])
TOOLS = ("authored_set_flag", "authored_status", "authored_fail", "authored_count")


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def listed(session: Session) -> dict[str, types.Tool]:
    await session.watch()
    await session.wait_offered(*TOOLS)
    return {t.name: t for t in (await session.client.list_tools(cache_mode="refresh")).tools}


@ERAS
async def test_tools_list_shows_the_schemas_read_from_the_functions(authored_system: XivSystem, era: str) -> None:
    # SPEC: P3, P5, T5
    async with connect(authored_system, era) as s:
        tools = await listed(s)
    declared = {d.name: d for d in plugin.definitions}
    flag = tools["authored_set_flag"]
    # SPEC: F3 - the docstring, with the real host's suffix naming the plugin
    suffix = " [Provided by the third-party plugin Authored.]"
    assert flag.description == declared["authored_set_flag"].description + suffix
    assert flag.input_schema == declared["authored_set_flag"].input_schema
    assert flag.input_schema["required"] == ["x", "y"]
    assert flag.output_schema == declared["authored_set_flag"].output_schema
    assert flag.output_schema is not None and flag.output_schema["required"] == ["zone", "x", "y", "mapOpened"]
    assert tools["authored_status"].input_schema == {"type": "object", "properties": {}}
    assert tools["authored_status"].output_schema is None
    assert tools["authored_count"].output_schema == declared["authored_count"].output_schema


@ERAS
async def test_a_call_returns_structured_content_after_tolerant_binding(authored_system: XivSystem, era: str) -> None:
    # SPEC: P4, P5, T3
    async with connect(authored_system, era) as s:
        await listed(s)
        placed = await s.client.call_tool("authored_set_flag", {"X": "21.4", "y": 9.8, "openMap": "false"})
        counted = await s.client.call_tool("authored_count", {"to": "4"})
    assert not placed.is_error
    assert placed.structured_content == {"zone": "Kozama'uka", "x": 21.4, "y": 9.8, "mapOpened": False}
    assert json.loads(text_of(placed)) == placed.structured_content
    assert not counted.is_error and counted.structured_content == {"counted": 4}


@ERAS
async def test_binding_and_tool_errors_reach_the_assistant_as_their_messages(
    authored_system: XivSystem, era: str
) -> None:
    # SPEC: P4, P6, T4
    async with connect(authored_system, era) as s:
        await listed(s)
        off_map = await s.client.call_tool("authored_set_flag", {"x": "far", "y": 9.8})
        unknown = await s.client.call_tool("authored_set_flag", {"x": 2, "y": 2, "colour": "red"})
        tool_error = await s.client.call_tool("authored_fail", {"how": "tool"})
        other = await s.client.call_tool("authored_fail", {"how": "divide"})
    assert off_map.is_error and text_of(off_map) == (
        "authored_set_flag: 'x' must be a number from 1 to 42; got \"far\"."
    )
    assert unknown.is_error and text_of(unknown) == (
        "authored_set_flag has no argument 'colour'. Its arguments are x, y (required) and zone, open_map (optional)."
    )
    assert tool_error.is_error and text_of(tool_error) == (
        "Not at a summoning bell. Use navigate_to with destination summoning_bell first."
    )
    assert other.is_error and text_of(other) == "ZeroDivisionError: division by zero"
    # The author sees the bug's traceback on the plugin's stderr; a refusal the tool meant is no bug.
    said = (authored_system.logs / "authored.log").read_text(encoding="utf-8")
    assert "authored_fail raised ZeroDivisionError" in said and "Traceback (most recent call last)" in said
    assert "1 / 0" in said and "McpToolError" not in said



@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGTERM for a console process")
async def test_sigterm_stops_a_plugin_as_ctrl_c_does(authored_system: XivSystem) -> None:
    plugin = authored_system.start_plugin("plugins_sample.decorated")  # its entry point is plugin.run()
    async with authored_system.connect("SigtermTest") as pi:
        with anyio.fail_after(30):
            await pi.wait_until(lambda: "Decorated" in pi.peers)
        # It leaves the bus and ends itself with 0 (a process SIGTERM kills says -15).
        assert await anyio.to_thread.run_sync(plugin.terminate) == 0
        with anyio.fail_after(30):
            await pi.wait_peer_gone("Decorated")
