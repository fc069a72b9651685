"""``XivMcp.DeclareDependencies``: the tools a plugin's jobs use, and where each one stands (G6).

A declaration replaces the plugin's previous one and ``{"tools": []}`` clears it. A built-in tool
(one of XIV MCP's own) is named alone; another plugin's tool also names that plugin, its name in
the installer, its repository (an ``https://`` URL of its repo.json, or ``"official"``) and the
oldest version that has the tool. At most :data:`MAX_DEPENDENCIES` tools; a tool named twice is
refused, as the real host does.

Each entry is then checked against what the host knows right now, a :class:`PluginWorld`:

* a built-in is ``ok`` (with the optional plugins it would use listed in ``install``, each with
  ``needed: false`` and a ``without`` text), or ``needs_plugin`` when a plugin it cannot run
  without is not loaded;
* another plugin's tool is, in this order, ``plugin_missing`` (not installed),
  ``plugin_outdated`` (its version is known and older than ``minVersion``), ``plugin_not_loaded``
  (installed, but its process is not on the bus: "not enabled in Dalamud"), ``tool_missing``
  (loaded, but that tool isn't registered by it), ``not_enabled`` (the player hasn't enabled it in
  XIV MCP), else ``ok``, with the real host's messages.

The host knows the installed plugins (`_installed.py`): those on the bus, those that declared a
manifest before, and the player's list. A plugin that declared no version is never outdated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from gates.contract import (
    BUILTIN_TOOL_NAMES,
    NAME_PATTERN,
    OFFICIAL_REPO,
    PLUGIN_NAME,
    DependencyDeclaration,
    DependencyEntry,
    DependencyState,
    InstallEntry,
    decode_dependency_declaration,
    is_plugin_repo,
    quote,
    version_key,
)

from ..base._errors import DependencyError
from ._requirements import BUILTIN_REQUIREMENTS, KNOWN_PLUGINS

__all__ = [
    "MAX_DEPENDENCIES",
    "Dependency",
    "DependencyBook",
    "PluginWorld",
    "check_dependencies",
    "check_dependency",
    "parse_dependencies",
    "validate_dependencies",
]

MAX_DEPENDENCIES: Final = 64


@dataclass(frozen=True, slots=True)
class Dependency:
    """One declared tool; ``plugin`` is ``None`` for a built-in."""

    tool: str
    plugin: str | None = None
    name: str | None = None
    repo: str | None = None
    min_version: str | None = None

    @property
    def builtin(self) -> bool:
        return self.plugin is None


@dataclass(frozen=True, slots=True)
class PluginWorld:
    """What the host knows about plugins now: who is connected, and (if known) who is installed and at what version."""

    connected: frozenset[str] = frozenset()
    installed: frozenset[str] | None = None
    versions: Mapping[str, str] = field(default_factory=dict)

    def is_connected(self, plugin: str) -> bool:
        return _has(self.connected, plugin)

    def is_installed(self, plugin: str) -> bool | None:
        """True or False when known; ``None`` when only connected plugins are known (and this one isn't)."""
        if self.is_connected(plugin):
            return True
        if self.installed is None:
            return None
        return _has(self.installed, plugin)

    def version(self, plugin: str) -> str | None:
        wanted = plugin.casefold()
        return next((v for p, v in self.versions.items() if p.casefold() == wanted), None)


def _has(names: Iterable[str], plugin: str) -> bool:
    wanted = plugin.casefold()
    return any(n.casefold() == wanted for n in names)


# --------------------------------------------------------------------------- parsing


def parse_dependencies(
    text: str | bytes, *, is_builtin: Callable[[str], bool] = BUILTIN_TOOL_NAMES.__contains__
) -> tuple[Dependency, ...]:
    """Decodes and validates a ``DeclareDependencies`` document."""
    return validate_dependencies(decode_dependency_declaration(text), is_builtin=is_builtin)


def validate_dependencies(
    declaration: DependencyDeclaration, *, is_builtin: Callable[[str], bool] = BUILTIN_TOOL_NAMES.__contains__
) -> tuple[Dependency, ...]:
    if len(declaration.tools) > MAX_DEPENDENCIES:
        raise DependencyError(
            f"Declare at most {MAX_DEPENDENCIES} tools; this declaration has {len(declaration.tools)}."
        )
    result: list[Dependency] = []
    seen: set[str] = set()
    for declared in declaration.tools:
        tool = declared.tool.strip()
        if not NAME_PATTERN.fullmatch(tool):
            raise DependencyError(
                f"{quote(tool)} is not a valid tool name (3–64 characters a-z, 0-9 and _, starting with a letter)."
            )
        if tool in seen:
            raise DependencyError(f"'{tool}' is declared twice; name each tool once.")
        seen.add(tool)
        if is_builtin(tool):
            if any(_text(v) is not None for v in (declared.plugin, declared.name, declared.repo, declared.min_version)):
                raise DependencyError(
                    f"'{tool}' is built into XIV MCP; declare it with 'tool' alone. "
                    "XIV MCP knows which plugins it needs."
                )
            result.append(Dependency(tool))
            continue
        plugin = _required(declared.plugin, "plugin", tool)
        name = _required(declared.name, "name", tool)
        repo = _required(declared.repo, "repo", tool)
        version = _required(declared.min_version, "minVersion", tool)
        if not PLUGIN_NAME.fullmatch(plugin):
            raise DependencyError(
                f"{quote(plugin)} is not a valid plugin internal name (1–64 characters A-Z, a-z, 0-9, '.', '_', '-')."
            )
        if not is_plugin_repo(repo):
            raise DependencyError(
                f"'repo' of '{tool}' must be the https URL of the plugin's repo.json, "
                'or "official" for Dalamud\'s main repository.'
            )
        if version_key(version) is None:
            raise DependencyError(f"'minVersion' of '{tool}' must be a version like \"1.2.0\", not {quote(version)}.")
        result.append(Dependency(tool, plugin, name[:64], repo, version))
    return tuple(result)


def _text(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip()


def _required(value: str | None, key: str, tool: str) -> str:
    text = _text(value)
    if not text:
        raise DependencyError(
            f"'{tool}' is not an XIV MCP tool. For another plugin's tool, give 'plugin' (its internal name), "
            f"'name', 'repo' (its repo.json URL, or \"official\") and 'minVersion'; '{key}' is missing."
        )
    return text


# --------------------------------------------------------------------------- checking


def check_dependency(
    dependency: Dependency,
    world: PluginWorld,
    *,
    owner_of: Callable[[str], str | None],
    enabled: Callable[[str], bool],
) -> DependencyEntry:
    """Where one dependency stands. ``owner_of`` maps a tool to the plugin that registered it;
    ``enabled`` says whether the player enabled a plugin in XIV MCP (its state is ``enabled``)."""
    if dependency.plugin is None:
        return _check_builtin(dependency.tool, world)
    return _check_plugin_tool(dependency, dependency.plugin, world, owner_of, enabled)


def check_dependencies(
    dependencies: Iterable[Dependency],
    world: PluginWorld,
    *,
    owner_of: Callable[[str], str | None],
    enabled: Callable[[str], bool],
) -> list[DependencyEntry]:
    return [check_dependency(d, world, owner_of=owner_of, enabled=enabled) for d in dependencies]


def _check_builtin(tool: str, world: PluginWorld) -> DependencyEntry:
    install: list[InstallEntry] = []
    for requirement in BUILTIN_REQUIREMENTS.get(tool, ()):
        if world.is_connected(requirement.plugin):
            continue
        known = KNOWN_PLUGINS.get(requirement.plugin)
        install.append(
            InstallEntry(
                plugin=requirement.plugin,
                name=known.name if known else requirement.plugin,
                repo=known.repo if known else OFFICIAL_REPO,
                needed=requirement.needed,
                installed=bool(world.is_installed(requirement.plugin)),
                outdated=False,
                reason=requirement.reason,
                without=requirement.without,
            )
        )
    missing = [i.name for i in install if i.needed]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        message = f"Needs {' and '.join(missing)}, which {verb} not installed or not enabled."
        return DependencyEntry(
            tool=tool, plugin=None, state=DependencyState.NEEDS_PLUGIN, message=message, install=install
        )
    notes = [f"Without {i.name}: {i.without}" if i.without else f"Works better with {i.name}." for i in install]
    message = " ".join(["Ready.", *notes])
    return DependencyEntry(tool=tool, plugin=None, state=DependencyState.OK, message=message, install=install)


def _check_plugin_tool(
    dependency: Dependency,
    plugin: str,
    world: PluginWorld,
    owner_of: Callable[[str], str | None],
    enabled: Callable[[str], bool],
) -> DependencyEntry:
    name = dependency.name or plugin
    minimum = dependency.min_version
    installed = world.is_installed(plugin)

    def entry(state: DependencyState, message: str, *, offer: bool = False, outdated: bool = False) -> DependencyEntry:
        install = []
        if offer:
            install.append(
                InstallEntry(
                    plugin=plugin,
                    name=name,
                    repo=dependency.repo or OFFICIAL_REPO,
                    needed=True,
                    installed=bool(installed),
                    outdated=outdated,
                    reason=f"Provides {dependency.tool}.",
                )
            )
        return DependencyEntry(tool=dependency.tool, plugin=plugin, state=state, message=message, install=install)

    if installed is False:
        return entry(
            DependencyState.PLUGIN_MISSING, f"Needs {name} {minimum} or newer, which is not installed.", offer=True
        )
    have = world.version(plugin)
    have_key = version_key(have) if have else None
    min_key = version_key(minimum) if minimum else None
    if have is not None and have_key is not None and min_key is not None and have_key < min_key:
        return entry(
            DependencyState.PLUGIN_OUTDATED,
            f"Needs {name} {minimum} or newer; {have} is installed.",
            offer=True,
            outdated=True,
        )
    if not world.is_connected(plugin):
        return entry(
            DependencyState.PLUGIN_NOT_LOADED,
            f"{name} is installed but not enabled in Dalamud.",
            offer=True,
        )
    owner = owner_of(dependency.tool)
    if owner is None or owner.casefold() != plugin.casefold():
        return entry(
            DependencyState.TOOL_MISSING, f"{name} is loaded but has not registered {dependency.tool} with XIV MCP."
        )
    if not enabled(owner):
        return entry(DependencyState.NOT_ENABLED, f"{name} is not enabled in XIV MCP → Third-party plugins.")
    return entry(DependencyState.OK, "Ready.")


# --------------------------------------------------------------------------- the declarations


class DependencyBook:
    """Each plugin's current declaration. Declaring replaces; an empty declaration clears.

    Like all of the host's state it belongs to the event loop (see `Host`): no lock."""

    def __init__(self) -> None:
        self._declared: dict[str, tuple[Dependency, ...]] = {}

    def declare(self, owner: str, dependencies: Iterable[Dependency]) -> tuple[Dependency, ...]:
        declared = tuple(dependencies)
        if declared:
            self._declared[owner] = declared
        else:
            self._declared.pop(owner, None)
        return declared

    def declared(self, owner: str) -> tuple[Dependency, ...]:
        return self._declared.get(owner, ())

    def forget(self, owner: str) -> None:
        """Drops a plugin's declaration (it unloaded: declarations go with their plugin)."""
        self._declared.pop(owner, None)
