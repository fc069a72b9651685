"""The game windows XIV MCP drives, and the auto-accept plugins ("clickers") it pauses meanwhile (A8, W8).

    WindowTools   list_windows open_window close_window: the main menu windows, with the real host's texts
    Clickers      while a window XIV MCP opened with open_window is still open, YesAlready and TextAdvance
                  hold "XivMcp" in their StopRequests sets (so they do not click through it); once the
                  last one is closed (by close_window, the player or any plugin), XIV MCP takes its name out

The real host adds its name to those plugins' Dalamud data shares (`HashSet<string>`). Across
processes the owner of a set serves it as call gates: `<Plugin>.StopRequests.Add(name) -> bool`,
`.Remove(name) -> bool` and `.List() -> str` (a JSON list). A plugin not on the bus is skipped;
a plugin that fails to answer is logged, never an error of the tool call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Final

import anyio

from broker import PluginInterface
from game import Change, Window
from gates.contract import HOST_NAME, RefusedError, quote

from ._args import ToolArgs, ToolHandler
from ._game_definitions import MAIN_WINDOWS, MainWindow, text_arg
from ._game_tools import GameAccess

__all__ = ["CLICKERS", "Clickers", "WindowTools", "find_window"]

log = logging.getLogger("gates.clickers")

CLICKERS: Final = ("YesAlready", "TextAdvance")
"""The plugins that answer dialogs by themselves, and so would fight XIV MCP over its windows."""
PLUGIN_SECONDS: Final = 5.0
"""How long a clicker plugin may take to answer Add or Remove before XIV MCP goes on without it."""


class Clickers:
    """Holds the clickers paused while a window XIV MCP opened is open, and releases them after."""

    def __init__(self, pi: PluginInterface) -> None:
        self._pi = pi
        self._ours: set[str] = set()
        """The game windows open_window opened that are still open."""
        self._paused = False
        self._lock = anyio.Lock()

    @property
    def paused(self) -> bool:
        return self._paused

    async def opened(self, window: str) -> None:
        """XIV MCP opened `window`: pause the clickers (again: one that started since is paused too)."""
        async with self._lock:
            self._ours.add(window)
            await self._tell("Add")
            self._paused = True

    async def refresh(self, windows: Iterable[Window]) -> None:
        """The game's windows now: release the clickers once none of XIV MCP's is open any more."""
        async with self._lock:
            self._ours &= {w.name for w in windows if w.opened_by == HOST_NAME}
            if self._paused and not self._ours:
                await self._tell("Remove")
                self._paused = False

    async def _tell(self, what: str) -> None:
        for plugin in CLICKERS:
            gate = self._pi.get_ipc_subscriber(f"{plugin}.StopRequests.{what}")
            if not gate.has_function():
                continue  # not installed here: nothing to pause
            try:
                with anyio.fail_after(PLUGIN_SECONDS):
                    await gate.invoke_func(HOST_NAME)
            except Exception as exc:  # a clicker's trouble must not fail the window tool
                log.warning("%s.StopRequests.%s(%s) failed: %s: %s", plugin, what, HOST_NAME, type(exc).__name__, exc)


def find_window(wanted: str | None) -> MainWindow:
    """A main menu window by id or name (exact, then part of a name), as the real host's ResolveCommand."""
    if wanted is None:
        raise RefusedError("'window' is required.")
    folded = wanted.casefold()
    found = [w for w in MAIN_WINDOWS if str(w.id) == wanted or w.name.casefold() == folded] or [
        w for w in MAIN_WINDOWS if folded in w.name.casefold() or folded == w.addon.casefold()
    ]
    if len(found) > 1:
        names = ", ".join(w.name for w in found)
        raise RefusedError(f"{quote(wanted)} is ambiguous: {names}. Use one of these names (list_windows).")
    if not found:
        raise RefusedError(f"Unknown window {quote(wanted)}. Use list_windows.")
    return found[0]


class WindowTools:
    """The handlers of list_windows, open_window and close_window."""

    def __init__(self, game: GameAccess) -> None:
        self._game = game
        self.clickers = Clickers(game.pi)
        self._following = False

    def handlers(self) -> dict[str, ToolHandler]:
        return {"list_windows": self._list, "open_window": self._open, "close_window": self._close}

    async def _windows(self) -> list[Window]:
        return await self._game.call(self._game.client.windows())

    async def _list(self, args: ToolArgs, _: Any) -> list[dict[str, Any]]:
        shown = {w.name for w in await self._windows()}
        return [{"id": w.id, "name": w.name, "unlocked": w.unlocked, "open": w.addon in shown} for w in MAIN_WINDOWS]

    async def _open(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        window = find_window(text_arg(args, "window"))
        await self._game.player()
        if window.addon in {w.name for w in await self._windows()}:
            return {"window": window.name, "action": "already open", "open": True, "note": None}
        if not window.unlocked:
            raise RefusedError("That window is not unlocked for this character. list_windows shows which are.")
        self.follow()  # before the window opens: its closing can't come before XIV MCP listens
        await self._game.call(self._game.client.open_window(window.addon))
        await self.clickers.opened(window.addon)
        return {"window": window.name, "action": "opened", "open": True, "note": None}

    async def _close(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        wanted = text_arg(args, "window")
        if wanted is None:
            raise RefusedError("'window' is required.")
        await self._game.player()
        windows = await self._windows()
        # An open game window by its own name first (Shop, SelectYesno, ...), then the main menu's.
        shown = next((w.name for w in windows if w.name.casefold() == wanted.casefold()), None)
        if shown is not None:
            name = addon = shown
        else:
            menu = find_window(wanted)
            name, addon = menu.name, menu.addon
            if addon not in {w.name for w in windows}:
                return {"window": name, "action": "already closed"}
        await self._game.call(self._game.client.close_window(addon))
        await self.clickers.refresh(await self._windows())
        return {"window": name, "action": "closed"}

    def follow(self) -> None:
        """Follow the game's window changes from the first window XIV MCP opens on: anyone closing
        XIV MCP's last window releases the clickers."""
        if not self._following:
            self._game.on_change(self._changed)
            self._following = True

    async def _changed(self, change: Change) -> None:
        if self.clickers.paused and change.kind in ("window", "login"):  # else nothing to release
            await self.clickers.refresh(await self._windows())
