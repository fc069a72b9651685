"""What `/xivmcp → Third-party plugins` shows: a card per plugin, known or connected, built here.

The cards are the player's types (`gates.player.PluginCard`), one value for every reader: the
player's `plugins` command (and so `xivmcp plugins`), the MCP resource `xiv://cache/plugins` and
the core tools `get_plugin_status` and `run_self_test`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from gates.contract import HOST_NAME, acting_capabilities
from gates.player import Awaits, PluginCard, PluginsReport, ToolCard

from ._policy import Policies
from ._records import registration_digest
from ._registrations import Registrations
from ._registry import ToolRegistry

__all__ = ["PluginReports"]


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
