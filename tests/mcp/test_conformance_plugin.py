"""The Conformance sample plugin's fixture tools, through bus and host, as the MCP conformance suite checks them.

The suite itself (`scripts/conformance.py`) needs npm; this test does not: it starts a broker and
a host (`--auto-enable`, so the plugin's tools are offered once it registers, and
`--simulator-extensions`, as the conformance run: the suite checks what MCP offers beyond what the
real XIV MCP passes on, F3) and `plugins_sample.conformance` as real processes, and calls the
tools with the official `mcp` client over Streamable HTTP, in both protocol eras, checking each
result as the suite's scenario does (tools-call-simple-text, tools-call-error,
tools-call-with-progress, json-schema-2020-12).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gates.testing import XivMcpSystem
from plugins_sample import conformance

pytestmark = pytest.mark.asyncio
ROOT = Path(__file__).resolve().parents[2]
WAIT = 10.0
"""Seconds to wait for an event."""
LEGACY, MODERN = "legacy", "auto"
ERAS = pytest.mark.parametrize("era", [LEGACY, MODERN], ids=["2025-11-25", "2026-07-28"])


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    root = tmp_path_factory.mktemp("conformance")
    flags = ("--auto-enable", "--test-clock", "--simulator-extensions", "--http", "127.0.0.1:0")
    with XivMcpSystem(root, *flags, cwd=ROOT) as system:
        system.start()
        plugin = system.start_plugin("plugins_sample.conformance")
        plugin.wait_line("Conformance: ready")  # XIV MCP accepted every tool, so it offers them
        yield system


@contextlib.asynccontextmanager
async def connect(system: XivMcpSystem, era: str, answers: list[str] | None = None) -> AsyncIterator[Client]:
    """An `mcp.Client` of one era; a 2025-era one once its GET stream (where progress comes) is open.
    `answers` gets the content type of each POST's response."""
    stream_open = anyio.Event()

    async def on_response(response: httpx2.Response) -> None:
        if response.request.method == "GET" and response.status_code == 200:
            stream_open.set()
        if response.request.method == "POST" and answers is not None:
            answers.append(response.headers.get("content-type", "").split(";")[0])

    headers = {"Authorization": f"Bearer {system.token}"}
    async with (
        httpx2.AsyncClient(
            headers=headers, timeout=httpx2.Timeout(30), event_hooks={"response": [on_response]}
        ) as http,
        Client(streamable_http_client(system.mcp_url, http_client=http), mode=era) as client,
    ):
        if era == LEGACY:
            with anyio.fail_after(WAIT):
                await stream_open.wait()
        yield client


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


@ERAS
async def test_the_suites_tool_names_are_offered_as_they_are(system: XivMcpSystem, era: str) -> None:
    async with connect(system, era) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert set(conformance.TOOL_NAMES) <= set(names)


@ERAS
async def test_simple_text_returns_the_suites_text(system: XivMcpSystem, era: str) -> None:
    async with connect(system, era) as client:
        result = await client.call_tool("test_simple_text")
    assert not result.is_error
    assert texts(result) == ["This is a simple text response for testing."]


@ERAS
async def test_error_handling_is_an_error_result_with_its_message(system: XivMcpSystem, era: str) -> None:
    async with connect(system, era) as client:
        result = await client.call_tool("test_error_handling", {})
    assert result.is_error
    assert texts(result) == ["This tool intentionally returns an error for testing"]


async def test_tool_with_progress_reports_three_increasing_steps(system: XivMcpSystem) -> None:
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async with connect(system, LEGACY) as client:  # on the session's GET stream
        with anyio.fail_after(WAIT):
            result = await client.call_tool("test_tool_with_progress", {}, None, on_progress)
    assert texts(result) == ["Tool with progress completed."]
    assert [message for _, message in seen] == ["0/100", "50/100", "100/100"]
    values = [progress for progress, _ in seen]
    assert values == sorted(values)


@ERAS
async def test_json_schema_2020_12_keywords_are_advertised_and_the_tool_runs(system: XivMcpSystem, era: str) -> None:
    args = {"name": "Wuk Lamat", "address": {"street": "Sunperch", "city": "Tuliyollal"}}
    async with connect(system, era) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("json_schema_2020_12_tool", args)
    schema = tools["json_schema_2020_12_tool"].input_schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "address" in schema["$defs"]
    assert schema["additionalProperties"] is False
    assert not result.is_error
    assert result.structured_content == {"received": args}


async def test_a1_a_2026_call_is_answered_with_json_so_its_progress_has_nowhere_to_go(system: XivMcpSystem) -> None:
    """As the real host: JSON responses (A1). A 2026-07-28 call is one POST whose progress could
    travel only in an SSE response, so such a caller gets the result and no progress."""
    seen: list[float] = []
    answers: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with connect(system, MODERN, answers) as client:
        with anyio.fail_after(WAIT):
            result = await client.call_tool("test_tool_with_progress", {}, None, on_progress)
    assert texts(result) == ["Tool with progress completed."]
    assert seen == []
    assert answers and set(answers) == {"application/json"}
