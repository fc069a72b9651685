"""`Assistant`: a real AI app's view of XIV MCP, through the official `mcp` client with the bearer token.

    async with assistant_client(system.mcp_url, system.token) as client:
        assistant = Assistant(client)
        names = await assistant.tool_names()
        result = await assistant.call_tool("myplugin_set_flag", {"x": 21.4, "y": 9.8})
        assert not result.is_error, result.text

It is what an app sees over Streamable HTTP, not a shortcut: the tools offered now (every page,
never a cached list), a call through the player's settings (a refusal is an `is_error` result
with the text the assistant reads), `search_tools`, and the caches as `xiv://cache/...` resources.
In the pytest plugin, `async_assistant` is this class and `assistant` its blocking twin.

XIV MCP 2 answers a call with text alone, a result as JSON text (F3); the assistant reads that
JSON, and so does `ToolResult`: `value` is the result read from the text, and `structured` the
result when it is an object, whether or not the host also sent it as structuredContent (which it
does only with the simulator's extensions). A test of a plugin reads the same either way.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ._link import CALL_WAIT, DIRECT, Link, bounded

__all__ = ["Assistant", "AssistantError", "ToolResult", "assistant_client"]

T = TypeVar("T")


class AssistantError(Exception):
    """A request of the assistant that could not give what was asked (the text says what to do)."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool call's result as the assistant receives it."""

    text: str
    """The text content (every text block, one per line): the result as JSON, or the error message."""
    structured: dict[str, Any] | None
    """The result when it is a JSON object: the structuredContent, if the host sent one (only with
    the simulator's extensions), else the text read as JSON, as the assistant reads it. None for
    an error or a result that is not an object."""
    is_error: bool
    """True for a refusal or a failure; `text` is then what the assistant reads."""
    raw: types.CallToolResult
    """The result as the `mcp` client decoded it."""
    value: Any = None
    """The result as the assistant reads it: the text as JSON (a plugin's result always is; with
    the simulator's extensions, or from XIV MCP's own tools, a string may come as plain text, which
    is then the text itself). None for an error."""

    def json(self) -> Any:
        """The text as JSON (a tool's result, as XIV MCP sends it); ValueError for an error text."""
        return json.loads(self.text)

    @classmethod
    def of(cls, raw: types.CallToolResult) -> ToolResult:
        """The result as the assistant reads `raw`: its text, and the value the text holds."""
        text = "\n".join(block.text for block in raw.content if isinstance(block, types.TextContent))
        is_error = bool(raw.is_error)
        value = None if is_error else _read(text)
        structured = raw.structured_content
        if structured is None and isinstance(value, dict):
            structured = value
        return cls(text=text, structured=structured, is_error=is_error, raw=raw, value=value)


def _read(text: str) -> Any:
    """The JSON value of a result's text, or the text itself when it is not JSON (plain text)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


@asynccontextmanager
async def assistant_client(url: str, token: str, *, wait: float = CALL_WAIT) -> AsyncIterator[Client]:
    """An official MCP client session on XIV MCP's endpoint with the bearer token, until the block ends."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(wait, read=wait * 10)) as http,
        Client(streamable_http_client(url, http_client=http), read_timeout_seconds=wait) as client,
    ):
        yield client


class Assistant:
    """An AI app connected to XIV MCP: list and call tools, search them, read the caches."""

    def __init__(self, client: Client, *, link: Link = DIRECT, within: float = CALL_WAIT) -> None:
        """`client` is an open `mcp.Client` (see `assistant_client`); `link` says on which loop it runs."""
        self._client = client
        self._link = link
        self.within = within

    async def run(self, work: Callable[[Client], Awaitable[T]]) -> T:
        """`await work(client)` with the official client itself, for what this class does not cover."""
        client = self._client
        return await self._link.run(lambda: bounded(self.within, "the MCP request", work(client)))

    async def list_tools(self) -> list[types.Tool]:
        """Every tool offered now, all pages, asked afresh (never the client's cached list)."""

        async def every_page(client: Client) -> list[types.Tool]:
            tools: list[types.Tool] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                tools += page.tools
                if page.next_cursor is None:
                    return tools
                cursor = page.next_cursor

        return await self.run(every_page)

    async def tool_names(self) -> list[str]:
        """The names of the tools offered now."""
        return [tool.name for tool in await self.list_tools()]

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, within: float | None = None
    ) -> ToolResult:
        """Call a tool as the assistant would; a refused or failed call is a result with `is_error`.

        `within` (default: the assistant's) is the app's time limit: a call still running then
        is given up, and XIV MCP cancels it (J3).
        """
        seconds = self.within if within is None else within

        async def call(client: Client) -> types.CallToolResult:
            return await client.call_tool(name, arguments or {}, read_timeout_seconds=seconds)

        # The client gives up at `seconds`; the bound beyond it only catches a client that does not.
        raw = await self._link.run(
            lambda: bounded(seconds + 5, f"the answer to the call of {name}", call(self._client))
        )
        return ToolResult.of(raw)

    async def search_tools(self, query: str = "", toolset: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """`search_tools`: the tools that may run now whose name or description has every word of `query`."""
        arguments: dict[str, Any] = {"query": query, "limit": limit}
        if toolset is not None:
            arguments["toolset"] = toolset
        result = await self.call_tool("search_tools", arguments)
        if result.is_error or result.structured is None:
            raise AssistantError(f"search_tools failed: {result.text}; check the query, toolset and limit.")
        items: list[dict[str, Any]] = result.structured["items"]
        return items

    async def list_resources(self) -> list[types.Resource]:
        """The resources offered (each of XIV MCP's caches as `xiv://cache/<id>`)."""
        return (await self.run(lambda client: client.list_resources(cache_mode="refresh"))).resources

    async def read_resource(self, uri: str) -> str:
        """The text of a resource, such as ``xiv://cache/plugins``."""
        result = await self.run(lambda client: client.read_resource(uri, cache_mode="refresh"))
        texts = [c.text for c in result.contents if isinstance(c, types.TextResourceContents)]
        if not texts:
            raise AssistantError(f"{uri} has no text content; list_resources() shows what XIV MCP offers.")
        return texts[0]

    async def read_json(self, uri: str) -> Any:
        """A resource's text as JSON (every cache of XIV MCP is JSON)."""
        return json.loads(await self.read_resource(uri))
