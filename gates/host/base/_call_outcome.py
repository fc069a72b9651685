"""How a call of a tool ended, as the call path, the core tools and the job runner see it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CallOutcome"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """How a call ended: a result, or an error message written for the assistant."""

    result: Any = None
    error: str | None = None
    from_plugin: bool = False
    """The result is a plugin's JSON value (its Invoke's, or CompleteCall's). The real host shows
    such a result to the assistant as JSON text whatever it is, a string too (it holds a JsonNode,
    `XivMcp/Api/PluginApi.cs`), while its own tools' strings go as they are (`McpServer.CallTool`)."""

    @property
    def ok(self) -> bool:
        return self.error is None
