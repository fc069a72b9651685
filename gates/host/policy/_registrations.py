"""What the player is shown of each plugin: its registration as the registry has it now.

`Registrations` keeps, per plugin, the registration last seen (each tool with its acting
capabilities), which the player decides on. While a plugin has no tools here (it unregistered
them, or it is away), deciding again uses what the player consented to before, so deciding on a
plugin that is away never forgets what it was consented to.
"""

from __future__ import annotations

from gates.contract import RefusedError, quote

from ._policy import Policies
from ._records import Registration, registration_of
from ._registry import ToolRegistry

__all__ = ["Registrations"]


class Registrations:
    """Each plugin's latest registration as the player would be shown it (in memory)."""

    def __init__(self, registry: ToolRegistry, policies: Policies) -> None:
        self._registry = registry
        self._policies = policies
        self._seen: dict[str, Registration] = {}

    def refresh(self, owner: str) -> Registration:
        """Take the owner's registration from the registry again (after a tool came or went)."""
        registration = registration_of(t.definition for t in self._registry.tools_of(owner))
        self._seen[owner] = registration
        return registration

    def forget(self, owner: str) -> None:
        self._seen.pop(owner, None)

    def latest(self, owner: str) -> Registration:
        """The registration last seen; empty for a plugin that has none now."""
        return self._seen.get(owner, {})

    def shown(self, plugin: str) -> Registration:
        """What the player decides on now (see the module docstring); refused for an unknown name."""
        seen = self._seen.get(plugin)
        if seen:
            return seen
        tools = self._registry.tools_of(plugin)
        if tools:
            return registration_of(t.definition for t in tools)
        if plugin not in self._policies.known():
            raise RefusedError(f"XIV MCP knows no plugin named {quote(plugin)}; see `xivmcp plugins`.")
        return self._policies.record(plugin).consented
