"""How a call of a tool ended, as the call path, the core tools and the job runner see it.

A result may carry images besides its value, as the real host's `ToolResultWithImages` does
(`XivMcp/Mcp/McpTool.cs`): the MCP front sends each as an image content after the value's text,
the player's `call` gets them as bytes, and a job step keeps the value alone (the real
JobManager's `ToNode` drops the images).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CallOutcome", "ToolImage"]


@dataclass(frozen=True, slots=True)
class ToolImage:
    """An image a tool returns besides its value (`ToolImage` of the real host): PNG bytes, with an
    optional caption the assistant reads as a text content just before it."""

    data: bytes
    caption: str | None = None
    mime_type: str = "image/png"


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """How a call ended: a result, or an error message written for the assistant."""

    result: Any = None
    error: str | None = None
    from_plugin: bool = False
    """The result is a plugin's JSON value (its Invoke's, or CompleteCall's). The real host shows
    such a result to the assistant as JSON text whatever it is, a string too (it holds a JsonNode,
    `XivMcp/Api/PluginApi.cs`), while its own tools' strings go as they are (`McpServer.CallTool`)."""
    images: tuple[ToolImage, ...] = ()
    """Images besides the result (take_screenshot's); only XIV MCP's own tools return any."""

    @property
    def ok(self) -> bool:
        return self.error is None
