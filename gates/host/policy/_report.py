"""What `/xivmcp → Third-party plugins` shows: a typed card per plugin, known or connected.

One value for every reader: the player's `plugins` command (and so `xivmcp plugins`), the MCP
resource `xiv://cache/plugins` and the core tools `get_plugin_status` and `run_self_test`. On the
wire it is camelCase JSON like the contract's documents.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from gates.contract import HOST_NAME, CapabilityMode, Mode, PluginState, Wire, acting_capabilities

from ._policy import Policies
from ._records import registration_digest
from ._registrations import Registrations
from ._registry import ToolRegistry

__all__ = ["Awaits", "PluginCard", "PluginReports", "PluginsReport", "ToolCard"]


class ToolCard(Wire, kw_only=True):
    """One tool of a plugin: its mode now, and what it declares."""

    name: str
    mode: Mode
    read_only: bool
    capabilities: list[str]
    """The acting capabilities (without ``read_game``)."""


class Awaits(Wire, kw_only=True):
    """What a plugin waits for the player to consent to: its new tools and capabilities, riskiest first."""

    new_tools: list[str]
    new_capabilities: list[str]


class PluginCard(Wire, kw_only=True):
    name: str
    state: PluginState
    connected: bool
    suspend_reason: str | None
    digest: str
    """The fingerprint of the registration the player decides on: `enable` and `consent` send it back."""
    tools: list[ToolCard]
    capabilities: list[CapabilityMode]
    awaits: Awaits | None
    """None unless the plugin waits for the player's decision."""


class PluginsReport(Wire, kw_only=True):
    plugins: list[PluginCard]


class PluginReports:
    """Builds the cards from the registry, the player's decisions and who is on the bus."""

    def __init__(
        self,
        registry: ToolRegistry,
        policies: Policies,
        registrations: Registrations,
        connected: Callable[[], Collection[str]],
    ) -> None:
        self._registry = registry
        self._policies = policies
        self._registrations = registrations
        self._connected = connected

    def names(self) -> list[str]:
        """Every third-party plugin the host knows or has tools of, sorted."""
        return sorted((set(self._policies.known()) | set(self._registry.owners())) - {HOST_NAME})

    def has(self, name: str) -> bool:
        """Whether `name` has a card (the host knows it, or it has tools here)."""
        return name != HOST_NAME and (self._registry.count_of(name) > 0 or self._policies.knows(name))

    def cards(self) -> list[PluginCard]:
        connected = self._connected()
        return [self.card(name, connected) for name in self.names()]

    def report(self) -> PluginsReport:
        return PluginsReport(plugins=self.cards())

    def card(self, name: str, connected: Collection[str] | None = None) -> PluginCard:
        policies = self._policies
        record = policies.record(name)
        review = policies.review(name, self._registrations.latest(name))
        definitions = [t.definition for t in self._registry.tools_of(name)]
        return PluginCard(
            name=name,
            state=record.state,
            connected=name in (self._connected() if connected is None else connected),
            suspend_reason=record.suspend_reason,
            digest=registration_digest(self._registrations.shown(name)),
            tools=[
                ToolCard(
                    name=d.name,
                    mode=policies.check_tool(name, d),
                    read_only=d.read_only,
                    capabilities=list(acting_capabilities(d)),
                )
                for d in definitions
            ],
            capabilities=policies.capability_modes(name, definitions),
            awaits=Awaits(new_tools=list(review.new_tools), new_capabilities=list(review.new_capabilities))
            if review.needs_decision
            else None,
        )
