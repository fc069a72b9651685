"""Which tools an assistant is offered now: XIV MCP's own, then every third-party tool that may run.

A third-party tool is offered while its plugin is enabled (and so connected: tools leave the
registry with their process) and the player has not set it, or one of its capabilities, to deny.
`tools/list`, `search_tools`, `list_toolsets` and the change notifications all read this one list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gates.contract import HOST_NAME, Mode, ToolDefinition

from ._core_definitions import CORE_DEFINITIONS, CORE_TOOLSET, OUTPUT_SCHEMAS
from ._policy import Policies
from ._registry import ToolRegistry

__all__ = ["OfferedTool", "OfferedTools"]


@dataclass(frozen=True, slots=True)
class OfferedTool:
    """A tool as an assistant is offered it: its toolset ("core" or the plugin's name) and definition."""

    toolset: str
    definition: ToolDefinition
    output_schema: dict[str, Any] | None = None


_CORE: tuple[OfferedTool, ...] = tuple(
    OfferedTool(CORE_TOOLSET, d, OUTPUT_SCHEMAS.get(d.name)) for d in CORE_DEFINITIONS
)


class OfferedTools:
    def __init__(self, registry: ToolRegistry, policies: Policies) -> None:
        self._registry = registry
        self._policies = policies

    def all(self) -> list[OfferedTool]:
        """Core tools first, then the third-party tools that may run now."""
        return [*_CORE, *(OfferedTool(owner, definition) for owner, definition in self.third_party())]

    def of(self, owner: str) -> list[OfferedTool]:
        """One plugin's tools that may run now (work in proportion to its tools alone)."""
        policies = self._policies
        if not policies.can_run(owner):
            return []
        return [
            OfferedTool(owner, t.definition)
            for t in self._registry.tools_of(owner)
            if policies.check_tool(owner, t.definition) is not Mode.DENY
        ]

    def third_party(self) -> list[tuple[str, ToolDefinition]]:
        """(owner, definition) of every third-party tool that may run now."""
        policies = self._policies
        return [
            (t.owner, t.definition)
            for t in self._registry.all()
            if t.owner != HOST_NAME
            and policies.can_run(t.owner)
            and policies.check_tool(t.owner, t.definition) is not Mode.DENY
        ]
