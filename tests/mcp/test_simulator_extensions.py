"""The simulator's extensions, turned on (`xivmcp host --simulator-extensions`): what this simulator
shows the assistant beyond what the real XIV MCP passes on (F3, P5).

Off by default (tests/mcp/test_mcp_tools.py shows the real host's view); on, a tool's outputSchema
is listed and its object result comes as structuredContent too, and a plugin's progress lines reach
a 2025-era caller that sent a progressToken as notifications/progress. A host of its own for this
module, with MyPlugin (whose results are Structs, so it declares outputSchemas) and the game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import anyio
import mcp_types as types
import pytest

from gates.testing import Process

from .xiv_mcp_support import MODERN, MYPLUGIN_TOOLS, ROOT, WAIT, XivSystem, connect

pytestmark = pytest.mark.asyncio
ERAS = pytest.mark.parametrize("era", ["legacy", MODERN], ids=["2025-11-25", "2026-07-28"])


@pytest.fixture(scope="module")
def system_and_plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[XivSystem, Process]]:
    flags = ("--auto-enable", "--test-clock", "--simulator-extensions", "--http", "127.0.0.1:0")
    with XivSystem(tmp_path_factory.mktemp("extended"), *flags, cwd=ROOT) as system:
        system.start()
        system.start_game("--test-clock")
        plugin = system.start_plugin("plugins_sample.myplugin", "--seconds-per-kill", "0.02")
        plugin.wait_line("MyPlugin: registered")
        yield system, plugin


@pytest.fixture
def extended(system_and_plugin: tuple[XivSystem, Process]) -> XivSystem:
    return system_and_plugin[0]


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@ERAS
async def test_f3_p5_with_the_option_output_schemas_are_listed_and_results_come_as_structured_content(
    extended: XivSystem, era: str
) -> None:
    async with connect(extended, era) as s:
        await s.watch()
        await s.wait_offered(*MYPLUGIN_TOOLS)
        tools = {t.name: t for t in await s.list_all()}
        placed = await s.client.call_tool("myplugin_set_flag", {"x": 21.4, "y": 9.8, "name": "Summit"})
    status_schema = tools["myplugin_status"].output_schema  # from its declared return type
    assert status_schema is not None and status_schema["type"] == "object"
    assert tools["search_tools"].output_schema is not None  # XIV MCP's own listing tools have theirs
    assert placed.structured_content == {"zone": "Tuliyollal", "x": 21.4, "y": 9.8, "mapOpened": True}
    assert json.loads(text_of(placed)) == placed.structured_content  # the text as without the option


async def test_f3_with_the_option_a_plugins_progress_reaches_a_2025_caller(
    system_and_plugin: tuple[XivSystem, Process],
) -> None:
    """2025-era sessions get progress on their GET stream (their JSON responses cannot carry it)."""
    # SPEC: J5
    extended, plugin = system_and_plugin
    async with connect(extended, "legacy") as s:
        await s.watch()
        await s.wait_offered(*MYPLUGIN_TOOLS)
        lines: list[tuple[float, str | None]] = []
        two = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            lines.append((progress, message))
            if len(lines) == 2:
                two.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(s.client.call_tool, "myplugin_farm", {"minutes": 600}, None, on_progress)
            with anyio.fail_after(WAIT):
                await two.wait()
            tg.cancel_scope.cancel()
        # Stay connected until the plugin has stopped: the answer to the cancelled request comes
        # first, and the mcp client fails if it arrives while the client is closing.
        await plugin.expect("MyPlugin: stopped farming safely", WAIT)
    assert lines[:2] == [(1.0, "1 kills"), (2.0, "2 kills")]


async def test_f3_p5_with_the_option_a_screenshot_has_its_data_as_structured_content_and_its_image_after(
    extended: XivSystem,
) -> None:
    await extended.run_cli("module", "screen", "reading", "allow")
    try:
        async with connect(extended, MODERN) as s:
            tools = {t.name: t for t in await s.list_all()}
            result = await s.client.call_tool("take_screenshot", {})
    finally:
        await extended.run_cli("module", "screen", "reading", "default")
    schema = tools["take_screenshot"].output_schema
    assert schema is not None and schema["required"] == ["area", "captured", "image", "gameWindow"]
    assert not result.is_error and result.structured_content == json.loads(text_of(result))
    assert [block.type for block in result.content] == ["text", "text", "image"]
