"""The summoning bell XIV MCP uses, and AutoRetainer held back while it does (the real `PluginCompat`, A8).

AutoRetainer starts processing ventures when the character comes to a summoning bell. Before XIV
MCP touches the bell or a retainer (`Bell.acquire`), as the real host's `AcquireBell`:

    AutoRetainer.PluginState.IsBusy, and not suppressed by XIV MCP  ─► refused: it is working
    AutoRetainer.GetMultiModeEnabled                                 ─► refused: it drives the character
    AutoRetainer.GetSuppressed is false                              ─► AutoRetainer.SetSuppressed(true)

`Bell.release` lifts XIV MCP's suppression once its bell session is over (close_retainer, or a
transfer or sale that closes the retainer). A plugin that is not on the bus is skipped; one that
does not answer counts as not answering (`None`), as the real host's `Ipc<T>` does.

`AutomationStatus` is get_automation_status: the automation plugins on the bus and what XIV MCP
pauses of them (the real `PluginCompat.Status()`): only loaded plugins are listed.
"""

from __future__ import annotations

import logging
from typing import Final

import anyio

from broker import PluginInterface
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._clickers import CLICKERS, Clickers

__all__ = ["AUTORETAINER", "AUTORETAINER_BUSY", "AUTORETAINER_MULTI_MODE", "NOT_AT_BELL", "AutomationStatus", "Bell"]

log = logging.getLogger("gates.bell")

AUTORETAINER: Final = "AutoRetainer"
BUSY_GATE: Final = "AutoRetainer.PluginState.IsBusy"
MULTI_MODE_GATE: Final = "AutoRetainer.GetMultiModeEnabled"
SUPPRESSED_GATE: Final = "AutoRetainer.GetSuppressed"
SET_SUPPRESSED_GATE: Final = "AutoRetainer.SetSuppressed"
PLUGIN_SECONDS: Final = 5.0
AUTORETAINER_BUSY: Final = (
    "AutoRetainer is currently processing retainers. Wait until it is done (or stop it), then retry."
)
AUTORETAINER_MULTI_MODE: Final = (
    "AutoRetainer multi mode is enabled and controls the character; disable multi mode first."
)
NOT_AT_BELL: Final = (
    "The retainer list is not open. Use a summoning bell first (navigate_to summoning_bell, then interact_with_object)."
)
"""The real host's `RequireBell` (MarketTools.cs); here the character stands within reach of a bell."""


class Bell:
    """XIV MCP's hold on the summoning bell, and its suppression of AutoRetainer meanwhile."""

    def __init__(self, pi: PluginInterface) -> None:
        self._pi = pi
        self.suppressed_by_us = False
        self.holding = False

    @property
    def peers(self) -> frozenset[str]:
        return self._pi.peers

    def loaded(self) -> bool:
        """Whether AutoRetainer is on the bus and answers IsBusy."""
        return AUTORETAINER in self._pi.peers and self._pi.get_ipc_subscriber(BUSY_GATE).has_function()

    async def ask(self, gate: str) -> bool | None:
        """AutoRetainer's answer to one of its bool gates; None when it does not answer."""
        subscriber = self._pi.get_ipc_subscriber(gate)
        if not subscriber.has_function():
            return None
        try:
            with anyio.fail_after(PLUGIN_SECONDS):
                answer = await subscriber.invoke_func()
        except Exception as exc:  # the real host's Ipc<T>: unavailable is null
            log.debug("IPC %s unavailable: %s: %s", gate, type(exc).__name__, exc)
            return None
        return answer if isinstance(answer, bool) else None

    async def _set_suppressed(self, value: bool) -> None:
        subscriber = self._pi.get_ipc_subscriber(SET_SUPPRESSED_GATE)
        try:
            with anyio.fail_after(PLUGIN_SECONDS):
                await subscriber.invoke_action(value)
        except Exception as exc:
            log.warning("IPC %s failed: %s: %s", SET_SUPPRESSED_GATE, type(exc).__name__, exc)

    async def acquire(self) -> None:
        """Before XIV MCP touches the bell or a retainer: refused while AutoRetainer is working."""
        if self.loaded():
            if await self.ask(BUSY_GATE) is True and not self.suppressed_by_us:
                raise RefusedError(AUTORETAINER_BUSY)
            if await self.ask(MULTI_MODE_GATE) is True:
                raise RefusedError(AUTORETAINER_MULTI_MODE)
            if not self.suppressed_by_us and await self.ask(SUPPRESSED_GATE) is False:
                await self._set_suppressed(True)
                self.suppressed_by_us = True
                log.info("AutoRetainer suppressed while XIV MCP uses the summoning bell")
        self.holding = True

    async def release(self, reason: str) -> None:
        """The bell session is over: AutoRetainer may work again."""
        if not self.holding and not self.suppressed_by_us:
            return
        self.holding = False
        if self.suppressed_by_us:
            self.suppressed_by_us = False
            await self._set_suppressed(False)
            log.info("AutoRetainer released (%s)", reason)


class AutomationStatus:
    """The handler of get_automation_status."""

    def __init__(self, bell: Bell, clickers: Clickers) -> None:
        self._bell = bell
        self._clickers = clickers

    def handlers(self) -> dict[str, ToolHandler]:
        return {"get_automation_status": self._status}

    async def _status(self, args: ToolArgs, _: object) -> dict[str, object]:
        bell, peers = self._bell, self._bell.peers
        plugins: dict[str, object] = {}
        if bell.loaded():
            plugins[AUTORETAINER] = {
                "busy": await bell.ask(BUSY_GATE),
                "multiMode": await bell.ask(MULTI_MODE_GATE),
                "suppressed": await bell.ask(SUPPRESSED_GATE),
                "suppressedByXivMcp": bell.suppressed_by_us,
            }
        for clicker in CLICKERS:
            if clicker in peers:
                plugins[clicker] = {"pausedByXivMcp": self._clickers.paused}
        return {"plugins": plugins, "holdingBell": bell.holding}
