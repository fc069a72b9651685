"""Which tools an assistant is offered now: XIV MCP's own, then every third-party tool that may run.

A third-party tool is offered while its plugin is enabled (and so connected: tools leave the
registry with their process) and the player has not set it, or one of its capabilities, to deny.
`tools/list`, `search_tools`, `list_toolsets` and the change notifications all read this one list.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from typing import Any

from gates.contract import HOST_NAME, Mode, ToolDefinition

from ..policy._modules import Modules
from ..policy._policy import Policies
from ..policy._registry import ToolRegistry
from ._core_definitions import CORE_DEFINITIONS, CORE_TOOLSET, OUTPUT_SCHEMAS

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
    def __init__(
        self,
        registry: ToolRegistry,
        policies: Policies,
        modules: Modules | None = None,
        connected: Callable[[], Collection[str]] = tuple,
    ) -> None:
        self._registry = registry
        self._policies = policies
        self._modules = modules
        self._connected = connected
        self._third_party: tuple[tuple[int, int], list[OfferedTool]] = ((-1, -1), [])
        """The third-party tools offered, and the registry's and the policies' versions they are
        for: a tools/list of 5,000 tools, page by page, would otherwise judge every tool each page."""

    def stamp(self) -> Hashable:
        """A value that changes whenever `all()` may: the registry, the player's decisions or the
        modules changed, or a maintained integration's plugin came or went. Equal stamps, equal
        lists: the MCP front builds its tools/list once per stamp, not once per request."""
        versions = (self._registry.version, self._policies.version)
        modules = self._modules
        if modules is None:
            return versions
        connected = self._connected()
        loaded = tuple(m.plugin in connected for m in modules.modules if m.plugin is not None)
        return (*versions, modules.version, loaded)

    def all(self) -> list[OfferedTool]:
        """Core tools first, then the third-party tools that may run now."""
        versions = (self._registry.version, self._policies.version)
        cached_for, third_party = self._third_party
        if cached_for != versions:
            third_party = [OfferedTool(owner, definition) for owner, definition in self.third_party()]
            self._third_party = (versions, third_party)
        return [*self.core(), *third_party]

    def core(self) -> list[OfferedTool]:
        """XIV MCP's own tools that are offered now: not those of a module turned off, nor a
        maintained integration's while its plugin is not loaded (A5, W7)."""
        modules = self._modules
        registry = self._registry
        # a simulator-only tool whose name a plugin took is that plugin's now (the registry says whose)
        mine = [tool for tool in _CORE if registry.owner_of(tool.definition.name) == HOST_NAME]
        if modules is None:
            return mine
        connected: Collection[str] | None = None
        offered = []
        for tool in mine:
            module = modules.module_of(tool.definition.name)
            if module is not None:
                if not modules.is_on(module.id):
                    continue
                if module.plugin is not None:
                    connected = self._connected() if connected is None else connected
                    if module.plugin not in connected:
                        continue
            offered.append(tool)
        return offered

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
