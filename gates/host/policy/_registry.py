"""The tool registry: every tool the host offers, by name, with the plugin that owns it (A2).

Names are global: a name belongs to whoever registered it first, and only that owner can replace
or remove it. XIV MCP's own tools are held under :data:`~gates.contract.HOST_NAME`. The few tools
this simulator adds that the real host does not have (`yielding`: echo, search_tools, ...) give
way to a plugin that registers the name, as the real host would let it, and come back when that
plugin's tool goes. The registry
does not validate definitions (see `gates.contract.validate_tool_definition`); it only keeps ownership straight.

It is safe under concurrency as the host has it (A2): registrations arrive from many peers at
once, each a task on the host's one event loop (see `Host`), and no method awaits, so each change
is made whole before another task runs; no lock is needed. Every change that alters the set of
tools bumps :attr:`ToolRegistry.version` and is delivered to the callbacks given to
:meth:`ToolRegistry.on_change`, one change at a time and in version order. Callbacks run right
after the change is visible, and must be quick (set an event, queue a notification); they may
read the registry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from gates.contract import HOST_NAME, NameTakenError, ToolDefinition

from ..base._listeners import Listeners

__all__ = ["ChangeCallback", "RegisteredTool", "RegistryChange", "ToolRegistry"]

_log = logging.getLogger("gates.registry")


@dataclass(frozen=True, slots=True)
class RegisteredTool:
    owner: str
    definition: ToolDefinition

    @property
    def name(self) -> str:
        return self.definition.name


@dataclass(frozen=True, slots=True)
class RegistryChange:
    """One change to the set of tools: which names came, went or were redefined, and by whom."""

    version: int
    owner: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()


ChangeCallback = Callable[[RegistryChange], None]


class ToolRegistry:
    def __init__(
        self,
        core: Iterable[ToolDefinition] = (),
        *,
        core_owner: str = HOST_NAME,
        yielding: Collection[str] = (),
    ) -> None:
        self._core_owner = core_owner
        self._yielding = frozenset(yielding)
        self._shadowed: dict[str, RegisteredTool] = {}
        """Core tools a plugin took the name of, to restore when its tool goes."""
        self._tools: dict[str, RegisteredTool] = {}
        self._by_owner: dict[str, dict[str, RegisteredTool]] = {}
        """Each owner's tools, in the order first registered: a change costs work in proportion
        to that owner's tools, not to every tool of every plugin (B7)."""
        self._version = 0
        self._listeners: Listeners[RegistryChange] = Listeners("registry change")
        for definition in core:
            if definition.name in self._tools:
                raise ValueError(f"Duplicate core tool name {definition.name!r}.")
            self._tools[definition.name] = RegisteredTool(core_owner, definition)
            self._by_owner.setdefault(core_owner, {})[definition.name] = self._tools[definition.name]

    @property
    def version(self) -> int:
        """Goes up by one with every change to the set of tools; never goes down."""
        return self._version

    def on_change(self, callback: ChangeCallback) -> Callable[[], None]:
        """Calls ``callback`` after every change; returns a function that unsubscribes it."""
        return self._listeners.add(callback)

    # ------------------------------------------------------------------ reading

    def get(self, name: str) -> RegisteredTool | None:
        return self._tools.get(name)

    def read_only_of(self, name: str) -> bool | None:
        """Whether the tool only reads; None when no such tool is registered."""
        tool = self._tools.get(name)
        return tool.definition.read_only if tool is not None else None

    def owner_of(self, name: str) -> str | None:
        tool = self._tools.get(name)
        return tool.owner if tool is not None else None

    def tools_of(self, owner: str) -> tuple[RegisteredTool, ...]:
        """An owner's tools, in the order they were first registered."""
        return tuple(self._by_owner.get(owner, {}).values())

    def owners(self) -> tuple[str, ...]:
        """Everyone with tools here (XIV MCP included), in the order they first registered."""
        return tuple(self._by_owner)

    def count_of(self, owner: str) -> int:
        return len(self._by_owner.get(owner, ()))

    def all(self) -> tuple[RegisteredTool, ...]:
        return tuple(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    # ------------------------------------------------------------------ changing

    def register(self, owner: str, definition: ToolDefinition) -> RegisteredTool:
        """Adds a tool, or replaces the owner's own tool of that name.

        Raises :class:`~gates.contract.NameTakenError` if XIV MCP or another plugin owns the name.
        Registering an identical definition again changes nothing and raises no event.
        """
        tool = RegisteredTool(owner, definition)
        existing = self._tools.get(definition.name)
        if existing is not None and existing.owner == self._core_owner and definition.name in self._yielding:
            self._shadowed[definition.name] = existing
            self._drop(existing)
            existing = None
        if existing is not None and existing.owner != owner:
            raise NameTakenError(definition.name, by_xivmcp=existing.owner == self._core_owner)
        if existing == tool:
            return existing
        self._tools[definition.name] = tool
        self._by_owner.setdefault(owner, {})[definition.name] = tool
        if existing is None:
            change = self._bump(owner, added=(definition.name,))
        else:
            change = self._bump(owner, replaced=(definition.name,))
        self._listeners.emit(change)
        return tool

    def unregister(self, owner: str, name: str) -> bool:
        """Removes one of the owner's tools; ``False`` if there is none by that name, or it isn't theirs."""
        existing = self._tools.get(name)
        if existing is None or existing.owner != owner:
            return False
        self._drop(existing)
        self._restore((name,))
        change = self._bump(owner, removed=(name,))
        self._listeners.emit(change)
        return True

    def unregister_all(self, owner: str) -> int:
        """Removes every tool of the owner; returns how many there were."""
        names = tuple(self._by_owner.pop(owner, {}))
        if not names:
            return 0
        for name in names:
            del self._tools[name]
        self._restore(names)
        change = self._bump(owner, removed=names)
        self._listeners.emit(change)
        return len(names)

    def _drop(self, tool: RegisteredTool) -> None:
        del self._tools[tool.name]
        own = self._by_owner[tool.owner]
        del own[tool.name]
        if not own:
            del self._by_owner[tool.owner]

    def _restore(self, names: Iterable[str]) -> None:
        """A core tool a plugin had taken the name of is XIV MCP's again."""
        for name in names:
            if (core := self._shadowed.pop(name, None)) is not None:
                self._tools[name] = core
                self._by_owner.setdefault(core.owner, {})[name] = core

    def _bump(
        self,
        owner: str,
        *,
        added: tuple[str, ...] = (),
        removed: tuple[str, ...] = (),
        replaced: tuple[str, ...] = (),
    ) -> RegistryChange:
        self._version += 1
        return RegistryChange(self._version, owner, added=added, removed=removed, replaced=replaced)
