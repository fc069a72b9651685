"""One plugin's whole card, as the web console's Third-party plugins tab shows it (`ShowPlugin`).

Beside the card every reader gets (`PluginReports`): the names Dalamud knows the plugin by, each
tool as the assistant sees it (its description), the registration the player consented to, so the
console can show what is new side by side, and the dependencies with their install hints.
"""

from __future__ import annotations

from gates.contract import CapabilityMode, RefusedError, acting_capabilities, quote
from gates.player import ConsentedTool, PluginView, ToolView

from ._host import Host

__all__ = ["plugin_view"]


def plugin_view(host: Host, plugin: str) -> PluginView:
    """The console's whole card of `plugin` (refused for a name XIV MCP does not know)."""
    if not host.reports.has(plugin):
        raise RefusedError(f"XIV MCP knows no plugin named {quote(plugin)}; see `xivmcp plugins`.")
    card = host.reports.card(plugin)
    record = host.policies.record(plugin)
    consented = record.consented
    modes = {tool.name: tool.mode for tool in card.tools}
    tools = []
    for registered in host.registry.tools_of(plugin):
        d = registered.definition
        capabilities = sorted(acting_capabilities(d))
        tools.append(
            ToolView(
                name=d.name,
                description=d.description,
                read_only=d.read_only,
                destructive=d.destructive,
                capabilities=capabilities,
                mode=modes[d.name],
                setting=record.tool_modes.get(d.name),
                new=bool(consented) and (d.name not in consented or not set(capabilities) <= consented[d.name]),
            )
        )
    installed = host.installed.find(plugin)
    return PluginView(
        card=card,
        display_name=host.installed.display_name(plugin),
        version=None if installed is None else installed.version,
        tools=tools,
        consented=[ConsentedTool(name=name, capabilities=sorted(caps)) for name, caps in sorted(consented.items())],
        dependencies=host.plugin_requests.dependency_entries(plugin),
        session_approvals=host.policies.sessions.count(plugin),
        settings=[
            CapabilityMode(id=c.id, mode=host.policies.capability_mode(plugin, c.id)) for c in card.capabilities
        ],
    )
