"""The panels of the /xivmcp window as typed cards: the third-party plugins, and XIV MCP's own modules.

The host builds them (`gates.host`), the player reads them (`xivmcp plugins`, `xivmcp modules`,
the kit's `Player`), and the MCP front shows the plugins' cards as `xiv://cache/plugins` and in
`get_plugin_status`: one type for every reader, camelCase on the wire like the contract's documents.
"""

from __future__ import annotations

from gates.contract import CapabilityMode, DependencyEntry, InstalledInfo, Mode, PluginState, Wire

__all__ = [
    "Awaits",
    "ModuleCard",
    "ModuleTool",
    "ModulesReport",
    "ConsentedTool",
    "PluginCard",
    "PluginView",
    "PluginViews",
    "PluginsReport",
    "ToolCard",
    "ToolView",
]


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
    """One plugin as `/xivmcp → Third-party plugins` shows it, known or connected."""

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
    """`xivmcp plugins`: every plugin's card, sorted by name (or the one asked for, or none)."""

    plugins: list[PluginCard]


class ModuleTool(Wire, kw_only=True):
    """One of XIV MCP's own tools in its module."""

    name: str
    setting: str
    """group (it follows its module), or its own allow, ask or deny."""
    mode: Mode | None
    """What a call of it gets now; None while it is not available."""
    available: bool
    """False while the plugin a maintained integration drives is not loaded."""
    simulated: bool = True
    """False for a tool of the real host that the simulated game does not perform: its settings are
    kept and judged as the real host judges them, and a call of it fails saying it is not simulated."""


class ModuleCard(Wire, kw_only=True):
    """One module as `/xivmcp → Modules` shows it: its modes, and each tool's setting."""

    id: str
    title: str
    description: str
    on: bool
    """Off: its tools are not offered at all."""
    reading: Mode | None
    """None: the module has no reading tools."""
    changes: Mode | None
    """None: the module has no changing tools."""
    plugin: str | None
    """The plugin a maintained integration drives (its tools are offered while it is loaded)."""
    tools: list[ModuleTool]


class ModulesReport(Wire, kw_only=True):
    """`xivmcp modules` (and `xivmcp tools --builtin`): every module, in the window's order."""

    modules: list[ModuleCard]


class InstalledReport(Wire, kw_only=True):
    """`xivmcp installed`, `install` and `uninstall`: every installed plugin, as Dalamud would list it."""

    plugins: list[InstalledInfo]
    message: str | None = None
    """What `install` or `uninstall` did, in a sentence."""


class ToolView(Wire, kw_only=True):
    """One tool of a plugin as the assistant sees it (its description), with its mode now."""

    name: str
    description: str
    read_only: bool
    destructive: bool
    capabilities: list[str]
    """The acting capabilities (without ``read_game``)."""
    mode: Mode
    """What a call of it gets now."""
    setting: Mode | None = None
    """Its own setting (`xivmcp mode PLUGIN TOOL MODE`); None: it follows its capabilities."""
    new: bool = False
    """Not in the registration the player consented to (or its capabilities changed since)."""


class ConsentedTool(Wire, kw_only=True):
    """One tool of the registration the player last consented to, with its capabilities then."""

    name: str
    capabilities: list[str]


class PluginView(Wire, kw_only=True):
    """One plugin's whole card, as the console's Third-party plugins tab shows it: the card, the
    names Dalamud knows it by, its tools with their descriptions, what it was consented to (to
    review what is new side by side) and its dependencies with their install hints."""

    card: PluginCard
    display_name: str
    version: str | None
    tools: list[ToolView]
    consented: list[ConsentedTool]
    """Empty until the player first enabled the plugin."""
    dependencies: list[DependencyEntry]
    session_approvals: int = 0
    """How many "for this session" answers the player gave it (the window's Clear button forgets them)."""
    settings: list[CapabilityMode] = []
    """Each capability's mode as the player set it, or its default: what the window's Allow / Ask /
    Deny buttons show. The card's `capabilities` say what a call gets now (deny while it cannot run)."""


class PluginViews(Wire, kw_only=True):
    """Every plugin's whole card, sorted by name (the console's Third-party plugins tab)."""

    views: list[PluginView]
