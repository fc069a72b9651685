"""The real XIV MCP's own tools, as data: every built-in tool by module, and the plugins it drives (F1).

A plugin author comes here to learn what the real host would refuse. The real host reserves every
name it has for itself, accepts every one of them in a job step and a dependency declaration, and
shows each module in `/xivmcp → Modules`, whether or not this simulator performs the tool. So the
names, modules, read-only flags and one-line summaries are the real host's, read from its source
(`real_host_catalog.json` beside this module names the files and commits); the simulated game
performs some of them (`gates.host` says which), and the rest are known but not simulated.

The catalog is data, not code: a re-read of the real project is a reviewed diff of the JSON file,
and `tests/contract/test_builtins.py` pins the names so such a diff cannot slip in unseen.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.resources import files
from types import MappingProxyType
from typing import Final

import msgspec

from ._codes import Mode

__all__ = [
    "BUILTIN_TOOLS",
    "BUILTIN_TOOL_NAMES",
    "NOT_FOR_PLUGINS",
    "REAL_HOST",
    "BuiltinModule",
    "BuiltinTool",
    "MaintainedPlugin",
    "RealHostCatalog",
    "RealHostSource",
]


class BuiltinTool(msgspec.Struct, rename="camel", frozen=True, kw_only=True):
    """One of the real host's own tools."""

    name: str
    module: str
    """The module (`/xivmcp → Modules`) whose settings rule it: a core module, or an integration's."""
    read_only: bool
    summary: str
    """What the real host's ToolSummaries says it does, in one line."""
    destructive: bool = False
    plugin: str | None = None
    """For a maintained integration: the InternalName of the plugin it drives."""
    not_for_plugins: bool = False
    """The real host refuses it in a plugin's job (`BuiltInCapabilities.NotForPlugins`)."""
    dev_only: bool = False


class BuiltinModule(msgspec.Struct, rename="camel", frozen=True, kw_only=True):
    """A module of `/xivmcp → Modules` with its defaults; ``None`` where the module has no such tools."""

    id: str
    title: str
    description: str
    plugin: str | None
    reading: Mode | None
    changes: Mode | None


class MaintainedPlugin(msgspec.Struct, frozen=True, kw_only=True):
    """A plugin one of the real host's integrations drives, as its PluginCatalog names it."""

    plugin: str
    name: str
    repo: str
    module: str


class RealHostSource(msgspec.Struct, frozen=True, kw_only=True):
    repo: str
    commits: dict[str, str]
    """Each source file read, with the commit it was read at."""
    note: str


class RealHostCatalog(msgspec.Struct, frozen=True, kw_only=True):
    source: RealHostSource
    modules: tuple[BuiltinModule, ...]
    integrations: tuple[MaintainedPlugin, ...]
    tools: tuple[BuiltinTool, ...]


REAL_HOST: Final[RealHostCatalog] = msgspec.json.decode(
    files(__package__).joinpath("real_host_catalog.json").read_bytes(), type=RealHostCatalog
)
BUILTIN_TOOLS: Final[Mapping[str, BuiltinTool]] = MappingProxyType({tool.name: tool for tool in REAL_HOST.tools})
BUILTIN_TOOL_NAMES: Final[frozenset[str]] = frozenset(BUILTIN_TOOLS)
"""Every name the real host keeps for itself: a plugin cannot register one (T6)."""
NOT_FOR_PLUGINS: Final[frozenset[str]] = frozenset(tool.name for tool in REAL_HOST.tools if tool.not_for_plugins)
"""Built-in tools the real host refuses in a plugin's job: "These tools are not available to plugins: …"."""
