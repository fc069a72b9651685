"""`SyncPlayer`: `Player`, blocking, for sync tests (the `player` fixture).

Every method is `Player`'s, run on the kit's loop until it returns; see `Player` for what each
command does. `start_call` runs `call` in the background, since a call that waits for the
player's approval cannot end while the test that would approve it is blocked on it.
"""

from __future__ import annotations

from typing import Any

from gates.contract import InstalledInfo, JobInfo
from gates.player import (
    ApprovalAnswer,
    AuditLine,
    CallReply,
    HostReset,
    JobControlled,
    JobSummary,
    ModeDecision,
    ModuleCard,
    PendingApproval,
    PluginCard,
    PluginDecision,
    PluginsReport,
)

from ._link import KitLoop
from ._player import WAIT, ClockAdvanced, Player
from ._sync import BackgroundCall

__all__ = ["SyncPlayer"]


class SyncPlayer:
    """The player at the /xivmcp window, every `xivmcp` command as a blocking method."""

    def __init__(self, loop: KitLoop, player: Player) -> None:
        self._loop = loop
        self._player = player
        self._background: list[BackgroundCall[Any]] = []

    def plugins(self) -> PluginsReport:
        """`xivmcp plugins`."""
        return self._loop.call(self._player.plugins)

    def plugin(self, name: str) -> PluginCard:
        """One plugin's card; PlayerError if XIV MCP does not know it."""
        return self._loop.call(lambda: self._player.plugin(name))

    def enable(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """`xivmcp enable PLUGIN [--digest D]`."""
        return self._loop.call(lambda: self._player.enable(plugin, digest))

    def consent(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """`xivmcp consent PLUGIN [--digest D]`."""
        return self._loop.call(lambda: self._player.consent(plugin, digest))

    def keep_disabled(self, plugin: str) -> PluginDecision:
        """`xivmcp keep-disabled PLUGIN`."""
        return self._loop.call(lambda: self._player.keep_disabled(plugin))

    def lift(self, plugin: str) -> PluginDecision:
        """`xivmcp lift PLUGIN`."""
        return self._loop.call(lambda: self._player.lift(plugin))

    def clear_session(self, plugin: str) -> PluginDecision:
        """`xivmcp clear-session PLUGIN`."""
        return self._loop.call(lambda: self._player.clear_session(plugin))

    def mode(self, plugin: str, target: str, mode: str) -> ModeDecision:
        """`xivmcp mode PLUGIN TARGET MODE`."""
        return self._loop.call(lambda: self._player.mode(plugin, target, mode))

    def set_modes(self, plugin: str, /, **modes: str) -> list[ModeDecision]:
        """`mode` for several targets of one plugin: ``set_modes("MyPlugin", game_ui="allow")``."""
        return self._loop.call(lambda: self._player.set_modes(plugin, **modes))

    def approvals(self, wait: float = 0) -> list[PendingApproval]:
        """`xivmcp approvals [--wait S]`."""
        return self._loop.call(lambda: self._player.approvals(wait))

    def wait_approval(self, tool: str | None = None, wait: float = WAIT) -> PendingApproval:
        """The approval that waits for `tool` (any if None), waiting up to `wait` s for one."""
        return self._loop.call(lambda: self._player.wait_approval(tool, wait))

    def approve(self, approval_id: str, *, session: bool = False, always: bool = False) -> ApprovalAnswer:
        """`xivmcp approve ID [--session | --always]`."""
        return self._loop.call(lambda: self._player.approve(approval_id, session=session, always=always))

    def decline(self, approval_id: str) -> ApprovalAnswer:
        """`xivmcp decline ID`."""
        return self._loop.call(lambda: self._player.decline(approval_id))

    def audit(self, plugin: str | None = None, limit: int = 50) -> list[AuditLine]:
        """`xivmcp audit [--plugin P] [-n LIMIT]`, from the host's last reset (this test's lines)."""
        return self._loop.call(lambda: self._player.audit(plugin, limit))

    def call(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> CallReply:
        """`xivmcp call TOOL ARGS`, through the permission gate; blocks until the call ends."""
        return self._loop.call(lambda: self._player.call(tool, arguments, within=within))

    def result(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> Any:
        """`call` that must succeed: the tool's result (CallOutcomeError with the error otherwise)."""
        return self._loop.call(lambda: self._player.result(tool, arguments, within=within))

    def error(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> str:
        """`call` that must fail: the error the assistant reads (CallOutcomeError with the result otherwise)."""
        return self._loop.call(lambda: self._player.error(tool, arguments, within=within))

    def start_call(
        self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT
    ) -> BackgroundCall[CallReply]:
        """`call` in the background: returns at once; `.result()` waits for the call to end."""
        future = self._loop.start(lambda: self._player.call(tool, arguments, within=within))
        call: BackgroundCall[CallReply] = BackgroundCall(future, f"the player's call of {tool}")
        self._background.append(call)
        return call

    def jobs(self, finished: bool = True) -> list[JobSummary]:
        """`xivmcp jobs`."""
        return self._loop.call(lambda: self._player.jobs(finished))

    def job(self, job_id: str, log_lines: int = 30) -> JobInfo:
        """`xivmcp job ID [-n LINES]`."""
        return self._loop.call(lambda: self._player.job(job_id, log_lines))

    def pause_job(self, job_id: str) -> JobControlled:
        """`xivmcp job pause ID`."""
        return self._loop.call(lambda: self._player.pause_job(job_id))

    def resume_job(self, job_id: str) -> JobControlled:
        """`xivmcp job resume ID`."""
        return self._loop.call(lambda: self._player.resume_job(job_id))

    def cancel_job(self, job_id: str) -> JobControlled:
        """`xivmcp job cancel ID`."""
        return self._loop.call(lambda: self._player.cancel_job(job_id))

    def modules(self) -> list[ModuleCard]:
        """`xivmcp modules`."""
        return self._loop.call(self._player.modules)

    def module(self, module: str, what: str, mode: str | None = None) -> str:
        """`xivmcp module MODULE reading|changes MODE`, or `on` / `off`."""
        return self._loop.call(lambda: self._player.module(module, what, mode))

    def tool(self, tool: str, setting: str) -> str:
        """`xivmcp tool TOOL group|allow|ask|deny`."""
        return self._loop.call(lambda: self._player.tool(tool, setting))

    def installed(self) -> list[InstalledInfo]:
        """`xivmcp installed`."""
        return self._loop.call(self._player.installed)

    def install(self, plugin: str, name: str | None = None, version: str | None = None, repo: str | None = None) -> str:
        """`xivmcp install PLUGIN`."""
        return self._loop.call(lambda: self._player.install(plugin, name, version, repo))

    def uninstall(self, plugin: str) -> str:
        """`xivmcp uninstall PLUGIN`."""
        return self._loop.call(lambda: self._player.uninstall(plugin))

    def advance_clock(self, seconds: float) -> ClockAdvanced:
        """`xivmcp advance-clock SECONDS`: the host's test clock and the game's."""
        return self._loop.call(lambda: self._player.advance_clock(seconds))

    def reset(self) -> HostReset:
        """Put a --test-clock host back at its start (the kit does this before each test)."""
        return self._loop.call(self._player.reset)

    def cancel_background(self) -> None:
        """Give up every call started in the background that is still running (the test is over)."""
        for call in self._background:
            call.cancel()
