"""How the host names a plugin to people: its display name, in one place (F2).

The real host words many messages with the plugin's display name, Dalamud's `Name` of the
installed plugin, and falls back to the InternalName when none is installed under it
(`DisplayName(id)` in `XivMcp/Api/PluginApi.cs`): "{DisplayName} can't start jobs: …", a
plugin's job "{name} ({DisplayName})", "The {DisplayName} plugin was unloaded during the call.".

This simulator has no model of the installed plugins yet, so every plugin is named by its
InternalName, which is what the real host shows for a plugin it does not find installed. Every
message that the real host words with the display name asks this function, so the installed
plugins, once modelled, change them all here.
"""

from __future__ import annotations

__all__ = ["display_name"]


def display_name(owner: str) -> str:
    """The name the real host shows for the plugin `owner` (an InternalName): here, `owner` itself."""
    return owner
