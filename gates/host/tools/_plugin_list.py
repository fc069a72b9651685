"""XIV MCP's list_plugins (W5, F2): the installed plugins, as the real host reads them from Dalamud.

The real host lists Dalamud's installed plugins (`XivMcp/Tools/PluginTools.cs`, described by
`XivMcp/Util/DalamudInternals.cs`); here they are the host's installed plugins (F2: the processes
on the bus, the manifests they declared, the player's own list) and XIV MCP itself, which Dalamud
lists too. A plugin loads when its process is on the bus. Flags Dalamud keeps that the bus has no
word for are false; a plugin that declared no repo is shown as a dev plugin. It reads no game, so
it answers whether or not a character is logged in (the real host's runs outside the game's frame).
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata
from typing import Any, Final

from gates.contract import HOST_NAME

from ..policy._installed import InstalledPlugin, InstalledPlugins
from ._args import ToolArgs, ToolHandler
from ._game_definitions import text_arg

__all__ = ["PluginList"]

HOST_DISPLAY_NAME: Final = "XIV MCP"
OFFICIAL: Final = "official"
"""A manifest's repo for a plugin of Dalamud's own repository."""


def _host_version() -> str | None:
    try:
        return metadata.version("xivmcp-bus")
    except metadata.PackageNotFoundError:
        return None


def _described(plugin: InstalledPlugin, loaded: bool, *, dev: bool, third_party: bool) -> dict[str, Any]:
    return {
        "name": plugin.display_name,
        "internalName": plugin.internal_name,
        "version": plugin.version,
        "state": "Loaded" if loaded else "Unloaded",
        "loaded": loaded,
        "dev": dev,
        "thirdParty": third_party,
        "testing": False,
        "outdated": False,
        "banned": False,
        "orphaned": False,
        "decommissioned": False,
        "inDefaultCollection": True,
        "wantedByAnyCollection": loaded,
    }


class PluginList:
    """The handler of list_plugins, over the host's installed plugins."""

    def __init__(self, installed: InstalledPlugins) -> None:
        self._installed = installed

    def handlers(self) -> dict[str, ToolHandler]:
        return {"list_plugins": self._list}

    def _all(self) -> Iterable[dict[str, Any]]:
        itself = InstalledPlugin(HOST_NAME, HOST_DISPLAY_NAME, _host_version())
        yield _described(itself, True, dev=False, third_party=True)  # XIV MCP comes from its own repository
        for plugin in self._installed:
            loaded = self._installed.is_loaded(plugin.internal_name)
            yield _described(plugin, loaded, dev=plugin.repo is None, third_party=plugin.repo not in (None, OFFICIAL))

    async def _list(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        query = text_arg(args, "query")
        loaded_only = args.boolean("loaded_only", False)
        wanted = None if query is None else query.casefold()
        plugins = [
            p
            for p in self._all()
            if (wanted is None or wanted in p["name"].casefold() or wanted in p["internalName"].casefold())
            and (p["loaded"] or not loaded_only)
        ]
        plugins.sort(key=lambda p: p["name"].upper())
        return {"managementEnabled": False, "count": len(plugins), "plugins": plugins}
