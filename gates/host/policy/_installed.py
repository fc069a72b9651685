"""The plugins installed, as Dalamud would list them to XIV MCP: InternalName, display name, version, repo,
and whether each is loaded now (F2).

The real host asks Dalamud. Here three things make a plugin installed:

* a process on the bus is installed and loaded, under its InternalName, as it joined;
* the manifest such a process declares (`XivMcp.Simulator.DeclareManifest`: display name,
  version, repo) is kept, so the plugin stays installed, not loaded, once its process ends;
* the player's own list (`xivmcp installed add/remove`): plugins installed but not running.

Everything kept is in the policy database, so a restart of the host knows what was installed.
Names compare case-insensitively, as Dalamud's do; the spelling kept is the one last declared.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from game import GAME_NAME
from gates.contract import (
    HOST_NAME,
    PLUGIN_NAME,
    InstalledInfo,
    PluginManifest,
    RefusedError,
    check_manifest,
    quote,
)

from ._dependencies import PluginWorld

__all__ = ["InstalledPlugin", "InstalledPlugins", "InstalledStore", "Source"]


class Source(StrEnum):
    """Who said a plugin is installed."""

    BUS = "bus"
    """Its process declared its manifest on the bus."""
    PLAYER = "player"
    """The player added it to the installed list."""


@dataclass(frozen=True, slots=True)
class InstalledPlugin:
    internal_name: str
    name: str | None = None
    """The display name; None: the InternalName is shown."""
    version: str | None = None
    repo: str | None = None
    source: Source = Source.BUS

    @property
    def display_name(self) -> str:
        return self.name or self.internal_name


class InstalledStore(Protocol):
    def load_installed(self) -> list[InstalledPlugin]: ...
    def save_installed(self, plugin: InstalledPlugin) -> None: ...
    def delete_installed(self, internal_name: str) -> None: ...


class InstalledPlugins:
    """Every installed plugin, and whether it is loaded (its process on the bus) right now.

    Like all of the host's state it belongs to the event loop (see `Host`): no lock."""

    def __init__(self, store: InstalledStore, connected: Callable[[], Collection[str]]) -> None:
        self._store = store
        self._connected = connected
        self._kept: dict[str, InstalledPlugin] = {p.internal_name.casefold(): p for p in store.load_installed()}
        self.version = 0
        """Goes up with every change to the list kept (the loaded set is the bus's)."""

    def declare(self, internal_name: str, manifest: PluginManifest) -> InstalledPlugin:
        """A process on the bus says what it is; the plugin stays installed after it leaves."""
        plugin = InstalledPlugin(internal_name, manifest.name, manifest.version, manifest.repo, Source.BUS)
        if self._kept.get(internal_name.casefold()) != plugin:
            self._keep(plugin)
        return plugin

    def add(self, plugin: InstalledPlugin) -> InstalledPlugin:
        """The player installs a plugin (or changes what XIV MCP knows of one)."""
        plugin = replace(plugin, source=Source.PLAYER)
        self._keep(plugin)
        return plugin

    def remove(self, internal_name: str) -> InstalledPlugin | None:
        """The player uninstalls a plugin; its process, if running, still counts as installed."""
        plugin = self._kept.pop(internal_name.casefold(), None)
        if plugin is not None:
            self._store.delete_installed(plugin.internal_name)
            self.version += 1
        return plugin

    def install(self, plugin: str, name: str | None, version: str | None, repo: str | None) -> str:
        """The player's `xivmcp install`: checked as a manifest is; the sentence the player reads."""
        if not PLUGIN_NAME.fullmatch(plugin) or _is_system(plugin):
            raise RefusedError(
                f"{quote(plugin)} is not a plugin's InternalName: 1-64 letters, digits, '.', '_' or '-'."
            )
        manifest = check_manifest(PluginManifest(name=name, version=version, repo=repo))
        added = self.add(InstalledPlugin(plugin, manifest.name, manifest.version, manifest.repo))
        said_version = f" {added.version}" if added.version else ""
        return f"Installed {added.display_name}{said_version} ({added.internal_name})."

    def uninstall(self, plugin: str) -> str:
        """The player's `xivmcp uninstall`; the sentence the player reads."""
        removed = self.remove(plugin)
        if removed is None:
            raise RefusedError(
                f"{quote(plugin)} is not on the installed list; `xivmcp installed` shows it (a plugin whose "
                "process is on the bus is installed while it runs)."
            )
        running = " Its process is on the bus, so it stays installed while it runs." if self.is_loaded(plugin) else ""
        return f"Uninstalled {removed.display_name} ({removed.internal_name}).{running}"

    def infos(self) -> list[InstalledInfo]:
        """Every installed plugin as the player's `xivmcp installed` shows it, by InternalName."""
        return [
            InstalledInfo(
                internal_name=p.internal_name,
                name=p.display_name,
                version=p.version,
                repo=p.repo,
                loaded=self.is_loaded(p.internal_name),
            )
            for p in sorted(self, key=lambda p: p.internal_name.casefold())
        ]

    def _keep(self, plugin: InstalledPlugin) -> None:
        self._store.save_installed(plugin)
        self._kept[plugin.internal_name.casefold()] = plugin
        self.version += 1

    # --- reading ---------------------------------------------------------------------------

    def find(self, name: str) -> InstalledPlugin | None:
        """The installed plugin of that InternalName (any case); a process on the bus always is."""
        kept = self._kept.get(name.casefold())
        if kept is not None:
            return kept
        loaded = self._loaded_spelling(name)
        return InstalledPlugin(loaded) if loaded is not None else None

    def is_loaded(self, name: str) -> bool:
        return self._loaded_spelling(name) is not None

    def display_name(self, name: str) -> str:
        """What the real host shows for a plugin: its display name, else its InternalName."""
        plugin = self.find(name)
        return plugin.display_name if plugin is not None else name

    def __iter__(self) -> Iterator[InstalledPlugin]:
        """Every installed plugin: those kept, then processes on the bus with no manifest."""
        yield from self._kept.values()
        for name in sorted(self._connected()):
            if name.casefold() not in self._kept and not _is_system(name):
                yield InstalledPlugin(name)

    def world(self) -> PluginWorld:
        """What a dependency check needs: who is loaded, who is installed, and at what version."""
        installed = list(self)
        return PluginWorld(
            connected=frozenset(self._connected()),
            installed=frozenset(p.internal_name for p in installed),
            versions={p.internal_name: p.version for p in installed if p.version is not None},
        )

    def _loaded_spelling(self, name: str) -> str | None:
        wanted = name.casefold()
        return next((n for n in self._connected() if n.casefold() == wanted), None)


def _is_system(name: str) -> bool:
    """The processes of the system itself, not plugins: XIV MCP and its command line, and the game."""
    return name.startswith(HOST_NAME) or name == GAME_NAME
