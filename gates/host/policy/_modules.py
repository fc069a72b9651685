"""The modules: the player's settings for XIV MCP's own tools (core and maintained trust, A5, W5, F1).

Every module of the real host's permission catalog is here, with its id, title, description and
defaults, and every built-in tool in it (`gates.contract.REAL_HOST`): the ten core modules
(``game_data``, ``game_navigation``, ``items_retainers``, ``market``, ``ui_editing``, ``online``,
``plugin_management``, ``jobs``, ``trading``, ``screen``) and one per maintained integration,
named after the plugin it drives (lower-cased InternalName). The simulated game performs some of
these tools; the others are known, and their settings are kept and judged like any other's (a
job step naming one is decided by its module before it fails as not simulated here). A module
has a mode for reading and one for changes (allow, ask or deny; a module with no changing tools
has no changes mode), can be turned off (its tools are then not offered at all), and each tool
can be set on its own (allow, ask, deny) or follow its module ("group"). Every module is on
until the player turns it off, as in the real host.

The host's plumbing tools (echo, list_toolsets, search_tools, call_tool, get_plugin_status) are
in no module: they read XIV MCP itself, and call_tool puts the tool it runs through the gate.
Settings are kept by a `ModuleStore` (the policy database) before they take effect.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, Protocol

from gates.contract import BUILTIN_TOOLS, REAL_HOST, Mode, quote
from gates.player import ModuleCard, ModuleTool

from ..base._errors import SettingError
from ._decision import Allow, Ask, Decision, Deny

__all__ = [
    "JOBS_MODULE",
    "MODULES",
    "Access",
    "Module",
    "ModuleSettings",
    "ModuleStore",
    "Modules",
]


class Access(StrEnum):
    """Whether a call reads or changes something (from the tool's readOnly flag)."""

    READING = "reading"
    CHANGES = "changes"


@dataclass(frozen=True, slots=True)
class Module:
    """A permission group for XIV MCP's own tools. Ids are stored in the settings: never rename one."""

    id: str
    title: str
    description: str
    reading: Mode | None
    """The default for reading; None: the module has no reading tools."""
    changes: Mode | None
    """The default for changes; None: the module has no changing tools."""
    tools: tuple[str, ...] = ()
    plugin: str | None = None
    """The plugin a maintained integration drives: its tools are offered only while it is loaded."""

    def default(self, access: Access) -> Mode | None:
        return self.reading if access is Access.READING else self.changes


def _catalog_modules() -> tuple[Module, ...]:
    """The real host's modules, in its catalog's order, each with its tools in the catalog's order."""
    tools: dict[str, list[str]] = {}
    for tool in REAL_HOST.tools:
        tools.setdefault(tool.module, []).append(tool.name)
    return tuple(
        Module(m.id, m.title, m.description, m.reading, m.changes, tuple(tools.get(m.id, ())), plugin=m.plugin)
        for m in REAL_HOST.modules
    )


MODULES: Final[tuple[Module, ...]] = _catalog_modules()
"""Every module of the real host: the core ones, then one per maintained integration."""

JOBS_MODULE: Final = "jobs"
_WHERE: Final = "/xivmcp → Modules"
TOOL_SETTINGS: Final = ("group", "allow", "ask", "deny")


@dataclass(slots=True)
class ModuleSettings:
    """What the player set: modes per module and access, modules turned off, tools set on their own."""

    modes: dict[tuple[str, Access], Mode] = field(default_factory=dict)
    off: set[str] = field(default_factory=set)
    tools: dict[str, Mode] = field(default_factory=dict)


class ModuleStore(Protocol):
    def load_module_settings(self) -> ModuleSettings: ...

    def save_module_settings(self, settings: ModuleSettings) -> None: ...


class Modules:
    """The catalog of modules and the player's settings for them, on the event loop (see `Host`)."""

    def __init__(self, store: ModuleStore | None = None, modules: Iterable[Module] = MODULES) -> None:
        self._store = store
        self._modules: dict[str, Module] = {}
        self._of_tool: dict[str, Module] = {}
        self.version = 0
        """Moves on with every module added and every change of the settings (what is offered of
        XIV MCP's own tools depends on them, and on which integrations' plugins are loaded)."""
        for module in modules:
            self.add(module)
        self._settings = store.load_module_settings() if store is not None else ModuleSettings()

    def add(self, module: Module) -> None:
        """A module more (a maintained integration's)."""
        self._modules[module.id] = module
        for tool in module.tools:
            self._of_tool[tool] = module
        self.version += 1

    # --- reading -------------------------------------------------------------------------

    @property
    def modules(self) -> tuple[Module, ...]:
        return tuple(self._modules.values())

    def find(self, module_id: str) -> Module | None:
        return self._modules.get(module_id.lower())

    def module_of(self, tool: str) -> Module | None:
        return self._of_tool.get(tool)

    def is_on(self, module_id: str) -> bool:
        return module_id not in self._settings.off

    def mode(self, module: Module, access: Access) -> Mode:
        """The module's mode for reading or changes (deny for an access the module does not have)."""
        default = module.default(access)
        if default is None:
            return Mode.DENY
        return self._settings.modes.get((module.id, access), default)

    def tool_setting(self, tool: str) -> Mode | None:
        """The tool's own setting, or None when it follows its module."""
        return self._settings.tools.get(tool)

    def tool_mode(self, tool: str, read_only: bool) -> Mode:
        """A tool's effective mode: its own setting, else its module's for its access."""
        own = self.tool_setting(tool)
        if own is not None:
            return own
        module = self._of_tool.get(tool)
        return Mode.ALLOW if module is None else self.mode(module, _access(read_only))

    def decide(self, tool: str, read_only: bool, *, session_approved: bool = False) -> Decision:
        """The gate's verdict on a call of one of XIV MCP's own tools, with the real host's refusals."""
        module = self._of_tool.get(tool)
        if module is None:
            return Allow()
        access = _access(read_only)
        area = module.title
        if not self.is_on(module.id):
            return Deny(
                f"{area} is turned off in {_WHERE}, so {tool} isn't available. The player can turn it on there.",
                reason="module_off",
            )
        mode = self.tool_mode(tool, read_only)
        if mode is Mode.DENY:
            if self.tool_setting(tool) is not None:
                return Deny(
                    f"{tool} is set to Deny in {_WHERE} ({area}), so it can't run. The player can change it there.",
                    reason="tool_denied",
                )
            return Deny(
                f"{area} is set to Deny for {access.value}, so {tool} can't run. The player can change it in {_WHERE}.",
                reason="module_denied",
            )
        if mode is Mode.ALLOW or session_approved:
            return Allow("approved_session" if mode is not Mode.ALLOW else "allowed")
        return Ask(())

    def session_key(self, tool: str, read_only: bool) -> str:
        """What "approve for this session" covers for a core tool: its module and access."""
        module = self._of_tool.get(tool)
        return f"{module.id if module else 'unlisted'}:{_access(read_only).value}"

    # --- what the player sets ---------------------------------------------------------------

    def set_mode(self, module_id: str, access_text: str, mode_text: str) -> Module:
        module = self._known(module_id)
        if access_text not in (Access.READING.value, Access.CHANGES.value):
            raise SettingError(f"{quote(access_text)} is neither reading nor changes: write `reading` or `changes`.")
        access = Access(access_text)
        if module.default(access) is None:
            raise SettingError(f"{module.title} ({module.id}) has no {access.value}: only {_has(module)}.")
        mode = _mode(mode_text)
        draft = _copy(self._settings)
        if mode is None:
            draft.modes.pop((module.id, access), None)
        else:
            draft.modes[(module.id, access)] = mode
        self._commit(draft)
        return module

    def set_on(self, module_id: str, on: bool) -> Module:
        module = self._known(module_id)
        draft = _copy(self._settings)
        if on:
            draft.off.discard(module.id)
        else:
            draft.off.add(module.id)
        self._commit(draft)
        return module

    def set_tool(self, tool: str, setting: str) -> Module:
        module = self._of_tool.get(tool)
        if module is None:
            raise SettingError(
                f"{quote(tool)} is not one of XIV MCP's tools in a module; `xivmcp modules` lists them by module."
            )
        if setting not in TOOL_SETTINGS:
            raise SettingError(f"{quote(setting)} is not a tool setting: use group, allow, ask or deny.")
        draft = _copy(self._settings)
        if setting == "group":
            draft.tools.pop(tool, None)
        else:
            draft.tools[tool] = Mode(setting)
        self._commit(draft)
        return module

    def cards(self, read_only_of: Callable[[str], bool | None], connected: Collection[str] = ()) -> list[ModuleCard]:
        """Each module as the player's Modules panel shows it: its modes, and each tool's setting
        and effective mode, the reading tools first and then the changing ones, each by name, as
        the window lists them. `read_only_of` tells whether a tool the host performs reads (None:
        the simulated game does not perform it, and the real host's catalog says). A maintained
        integration's tools are available only while its plugin is `connected`."""
        cards: list[ModuleCard] = []
        for module in self.modules:
            loaded = module.plugin is None or module.plugin in connected
            tools = []
            for tool in module.tools:
                performed = read_only_of(tool)
                read_only = performed if performed is not None else _catalog_read_only(tool)
                own = self.tool_setting(tool)
                card = ModuleTool(
                    name=tool,
                    setting=own.value if own is not None else "group",
                    mode=self.tool_mode(tool, read_only) if loaded else None,
                    available=loaded,
                    simulated=performed is not None,
                )
                tools.append(((not read_only, tool), card))
            cards.append(
                ModuleCard(
                    id=module.id,
                    title=module.title,
                    description=module.description,
                    on=self.is_on(module.id),
                    reading=None if module.reading is None else self.mode(module, Access.READING),
                    changes=None if module.changes is None else self.mode(module, Access.CHANGES),
                    plugin=module.plugin,
                    tools=[card for _, card in sorted(tools, key=lambda pair: pair[0])],
                )
            )
        return cards

    def snapshot(self) -> ModuleSettings:
        return _copy(self._settings)

    def _known(self, module_id: str) -> Module:
        module = self.find(module_id)
        if module is None:
            names = ", ".join(self._modules)
            raise SettingError(f"There is no module {quote(module_id)}; the modules are: {names}.")
        return module

    def _commit(self, draft: ModuleSettings) -> None:
        """Write `draft` and make it current; a draft equal to the settings now writes nothing (as
        the policies' `_editing`: a committed write waits for the disk)."""
        if draft == self._settings:
            return
        if self._store is not None:
            self._store.save_module_settings(draft)
        self._settings = draft
        self.version += 1


def _access(read_only: bool) -> Access:
    return Access.READING if read_only else Access.CHANGES


def _catalog_read_only(tool: str) -> bool:
    """Whether one of the real host's tools only reads, by its catalog (a name not there: it changes)."""
    builtin = BUILTIN_TOOLS.get(tool)
    return builtin is not None and builtin.read_only


def _has(module: Module) -> str:
    return " and ".join(a.value for a in Access if module.default(a) is not None)


def _mode(text: str) -> Mode | None:
    if text == "default":
        return None
    try:
        return Mode(text)
    except ValueError:
        raise SettingError(f"{quote(text)} is not a mode: use allow, ask, deny or default.") from None


def _copy(settings: ModuleSettings) -> ModuleSettings:
    return ModuleSettings(dict(settings.modes), set(settings.off), dict(settings.tools))
