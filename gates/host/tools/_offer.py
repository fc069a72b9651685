"""Which tools an assistant is offered now, by the real host's rules (F3): XIV MCP's own, then the plugins'.

The real host lists `tools.All.Where(t => t.IsAvailable && gate.IsListed(t))` (`XivMcp/Mcp/McpServer.cs`):

* a third-party tool is listed while its plugin is enabled, does not await the player's consent,
  and is loaded (`XivMcp/Api/PluginApi.cs`, RegisterTool's `Available`). Nothing else hides it: a
  SUSPENDED plugin's tools stay listed "so the assistant can explain why calls fail", and a tool
  the player set to Deny (or whose capability is denied) stays listed too, since `IsListed` is
  true for every third-party tool (`XivMcp.Core/Permissions/ToolGate.cs`); the call then comes
  back with the gate's refusal, which says why. Loaded is implied here: a plugin's tools leave
  the registry with its process.
* XIV MCP's own tools are listed unless their module is switched off, and a maintained
  integration's only while the plugin it drives is loaded (A5, W7).

A plugin's tool is listed with the real host's suffix, ` [Provided by the third-party plugin
{DisplayName}.]`, which the real host appends to the description when the tool registers.

Every reader of this list shows what tools/list shows, so the assistant never finds a tool one
way and misses it another: tools/list and its change notifications (`gates.mcp`), `search_tools`
and `list_toolsets` (the simulator's stand-ins for listing, which an assistant uses instead of
tools/list), and a console's "what the assistant sees". Whether a listed tool may RUN is the
gate's question (`Policies.decide`), asked by every call; the player's view of each plugin is
`PluginReports`' cards.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from typing import Any

from gates.contract import HOST_NAME, ToolDefinition

from ..policy._modules import Modules
from ..policy._policy import Policies
from ..policy._registry import ToolRegistry
from ._core_definitions import CORE_DEFINITIONS, CORE_TOOLSET, OUTPUT_SCHEMAS
from ._integrations import INTEGRATION_PLUGINS

__all__ = ["OfferedTool", "OfferedTools", "internal_name", "third_party_description"]


def internal_name(owner: str) -> str:
    """A plugin named by its InternalName: what the real host shows for a plugin it does not find
    installed, and the default where no installed list is at hand (the host gives its own, F2)."""
    return owner


def third_party_description(description: str, display_name: str) -> str:
    """A plugin tool's description as the real host lists it (`PluginApi.RegisterTool`)."""
    return f"{description} [Provided by the third-party plugin {display_name}.]"


@dataclass(frozen=True, slots=True)
class OfferedTool:
    """A tool as an assistant is offered it.

    `toolset` is "core" or the plugin's InternalName; `description` is what the assistant reads
    (a plugin's with the real host's suffix); `output_schema` is the simulator's extension (XIV
    MCP's own schema of the result, or the one the plugin declared), which the MCP front passes
    on only when the host runs with the simulator's extensions."""

    toolset: str
    definition: ToolDefinition
    description: str
    output_schema: dict[str, Any] | None = None


_DRIVEN: tuple[str, ...] = tuple(sorted(INTEGRATION_PLUGINS))
"""The plugins whose integrations this simulator performs: only their coming and going changes the list."""
_CORE: tuple[OfferedTool, ...] = tuple(
    OfferedTool(CORE_TOOLSET, d, d.description, OUTPUT_SCHEMAS.get(d.name)) for d in CORE_DEFINITIONS
)


class OfferedTools:
    """The tools listed now; `display_name` names a plugin in its tools' descriptions (the host
    points it at the installed plugins, F2), and `names_version` moves on whenever those names may
    have changed (a manifest declared, a plugin installed), so the listing is built again."""

    def __init__(
        self,
        registry: ToolRegistry,
        policies: Policies,
        modules: Modules | None = None,
        connected: Callable[[], Collection[str]] = tuple,
        display_name: Callable[[str], str] = internal_name,
        names_version: Callable[[], int] = lambda: 0,
    ) -> None:
        self._registry = registry
        self._policies = policies
        self._modules = modules
        self._connected = connected
        self._display_name = display_name
        self._names_version = names_version
        self._third_party: tuple[tuple[int, int, int], list[OfferedTool]] = ((-1, -1, -1), [])
        """The third-party tools listed, and the registry's, the policies' and the names' versions
        they are for: a tools/list of 5,000 tools, page by page, would otherwise judge every tool
        each page."""

    def stamp(self) -> Hashable:
        """A value that changes whenever `all()` may: the registry, the player's decisions, the
        plugins' names or the modules changed, or a maintained integration's plugin came or went.
        Equal stamps, equal lists: the MCP front builds its tools/list once per stamp, not once per
        request."""
        versions = self._versions()
        modules = self._modules
        if modules is None:
            return versions
        connected = self._connected()
        loaded = tuple(plugin in connected for plugin in _DRIVEN)
        return (*versions, modules.version, loaded)

    def all(self) -> list[OfferedTool]:
        """Core tools first, then the third-party tools listed now (in registration order)."""
        versions = self._versions()
        cached_for, third_party = self._third_party
        if cached_for != versions:
            third_party = [self._offered(owner, definition) for owner, definition in self.third_party()]
            self._third_party = (versions, third_party)
        return [*self.core(), *third_party]

    def core(self) -> list[OfferedTool]:
        """XIV MCP's own tools that are listed now: not those of a module turned off, nor a
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

    def is_available(self, name: str) -> bool:
        """Whether one of XIV MCP's own tools can be served now: False only for a maintained
        integration's tool while its plugin is not loaded (the real host's `IsAvailable`; a module
        turned off is the gate's refusal, not this)."""
        modules = self._modules
        module = None if modules is None else modules.module_of(name)
        return module is None or module.plugin is None or module.plugin in self._connected()

    def of(self, owner: str) -> list[OfferedTool]:
        """One plugin's tools listed now (work in proportion to its tools alone)."""
        if not self._policies.is_listed(owner):
            return []
        return [self._offered(owner, t.definition) for t in self._registry.tools_of(owner)]

    def third_party(self) -> list[tuple[str, ToolDefinition]]:
        """(owner, definition) of every third-party tool listed now."""
        policies = self._policies
        listed: dict[str, bool] = {}
        found = []
        for t in self._registry.all():
            owner = t.owner
            if owner == HOST_NAME:
                continue
            shown = listed.get(owner)
            if shown is None:
                shown = listed[owner] = policies.is_listed(owner)
            if shown:
                found.append((owner, t.definition))
        return found

    def _versions(self) -> tuple[int, int, int]:
        return (self._registry.version, self._policies.version, self._names_version())

    def _offered(self, owner: str, definition: ToolDefinition) -> OfferedTool:
        description = third_party_description(definition.description, self._display_name(owner))
        return OfferedTool(owner, definition, description, definition.output_schema)
