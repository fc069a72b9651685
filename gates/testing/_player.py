"""`Player`: the player's decisions from Python, one method per `xivmcp` player command (K3).

    player = Player.over(pi, data_dir)                 # on your own bus connection, in your own loop
    await player.enable("MyPlugin")                    # xivmcp enable MyPlugin
    await player.mode("MyPlugin", "spend_gil", "ask")  # xivmcp mode MyPlugin spend_gil ask
    approval = await player.wait_approval("myplugin_restock")
    await player.approve(approval.approval_id, session=True)   # xivmcp approve ID --session

The names and arguments are the command line's (`keep-disabled` is `keep_disabled`, `job pause ID`
is `pause_job(ID)`), and so is the way: every command goes to the host's `XivMcp.Player` gate
through `gates.player.PlayerClient`, which proves the player key of the data dir, and comes back
as that command's reply type (`gates.player`). A refusal raises `PlayerError` with the host's
message; a tool's own error is not a refusal (`CallReply.error`; `result` and `error` are for a
test that expects one or the other). Each command is bounded in time (`within`), so a test never
hangs on a host that stopped answering. In the pytest plugin, `async_player` is this class and
`player` its blocking twin (`SyncPlayer`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec

from broker import PluginInterface
from game import GameClient, GameError
from gates.contract import Answer, InstalledInfo, JobInfo
from gates.player import (
    AdvanceClock,
    AnswerApproval,
    ApprovalAnswer,
    AuditLine,
    CallReply,
    CallTool,
    ClearSession,
    Command,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    HostReset,
    Install,
    JobControlled,
    JobSummary,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListInstalled,
    ListJobs,
    ListModules,
    ListPlugins,
    ModeDecision,
    ModuleCard,
    PendingApproval,
    PlayerClient,
    PlayerError,
    PluginCard,
    PluginDecision,
    PluginsReport,
    ReadAudit,
    ResetForTests,
    SetMode,
    SetModule,
    SetToolSetting,
    ShowJob,
    Uninstall,
)

from ._link import DIRECT, Link, bounded

__all__ = ["AUDIT_WINDOW", "WAIT", "CallOutcomeError", "ClockAdvanced", "Player"]

T = TypeVar("T")
R = TypeVar("R", bound=msgspec.Struct)

WAIT: Final = 10.0
"""Seconds one command may take by default (a loaded 2-core CI machine answers slowly)."""
AUDIT_WINDOW: Final = 1000
"""Audit lines `audit` reads to find where the current test began (the host's last reset)."""


class CallOutcomeError(AssertionError):
    """Raised by `Player.result` when the call failed, and by `Player.error` when it succeeded."""


@dataclass(frozen=True, slots=True)
class ClockAdvanced:
    """`advance_clock`: the host's clock and the game's, moved together as `xivmcp advance-clock` does."""

    host_time: float
    game_time: float | None
    """None when no game on the test clock was there to move (`game_message` says why)."""
    game_message: str = ""


class Player:
    """The player at the /xivmcp window, as a test drives it: every command of `xivmcp`, awaited."""

    def __init__(
        self, client: PlayerClient, game: GameClient | None = None, *, link: Link = DIRECT, within: float = WAIT
    ) -> None:
        """`client` sends the commands; `game` moves the game's test clock with the host's (without
        it, `advance_clock` moves the host's alone); `link` says on which loop they run (see
        `_link`); `within` bounds each command (seconds)."""
        self._client = client
        self._game = game
        self._link = link
        self.within = within

    @classmethod
    def over(cls, pi: PluginInterface, data_dir: Path, *, within: float = WAIT) -> Player:
        """The player over your own bus connection `pi`, with the key of the host's `data_dir`."""
        return cls(PlayerClient.for_data_dir(pi, data_dir), GameClient.as_player(pi, data_dir), within=within)

    async def _send(self, command: Command[R], *, answer_within: float | None = None) -> R:
        """One command, bounded by `answer_within` seconds (default: `within`)."""
        client = self._client
        return await self._run(command.cli_name(), lambda: client.send(command), answer_within)

    async def _run(self, what: str, work: Callable[[], Awaitable[T]], answer_within: float | None = None) -> T:
        limit = self.within if answer_within is None else answer_within
        return await self._link.run(lambda: bounded(limit, f"XIV MCP's answer to the player's `{what}`", work()))

    # --- plugins -----------------------------------------------------------------------------

    async def plugins(self) -> PluginsReport:
        """`xivmcp plugins`: every plugin XIV MCP knows, its state, tools and capability modes."""
        return await self._send(ListPlugins())

    async def plugin(self, name: str) -> PluginCard:
        """One plugin's card from `plugins`; PlayerError if XIV MCP does not know it."""
        cards = (await self._send(ListPlugins(plugin=name))).plugins
        if not cards:
            known = ", ".join(card.name for card in (await self.plugins()).plugins) or "none yet"
            raise PlayerError(
                "plugins", f"XIV MCP knows no plugin named {name!r} (known: {known}); has it registered yet?"
            )
        return cards[0]

    async def enable(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """`xivmcp enable PLUGIN [--digest D]`: consent to the registration shown now (or the one of `digest`)."""
        return await self._decide(EnablePlugin, plugin, digest)

    async def consent(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """`xivmcp consent PLUGIN [--digest D]`: accept a registration that grew (awaiting_consent)."""
        return await self._decide(ConsentPlugin, plugin, digest)

    async def _decide(
        self, kind: type[EnablePlugin] | type[ConsentPlugin], plugin: str, digest: str | None
    ) -> PluginDecision:
        client = self._client

        async def decide() -> PluginDecision:
            shown = digest if digest is not None else await client.digest(plugin)
            return await client.send(kind(plugin=plugin, digest=shown))

        return await self._run("enable" if kind is EnablePlugin else "consent", decide)

    async def keep_disabled(self, plugin: str) -> PluginDecision:
        """`xivmcp keep-disabled PLUGIN`: not asked again until its registration grows."""
        return await self._send(KeepDisabled(plugin=plugin))

    async def lift(self, plugin: str) -> PluginDecision:
        """`xivmcp lift PLUGIN`: lift a suspension (only the player can)."""
        return await self._send(LiftSuspension(plugin=plugin))

    async def clear_session(self, plugin: str) -> PluginDecision:
        """`xivmcp clear-session PLUGIN`: forget its "for this session" approvals (the window's Clear)."""
        return await self._send(ClearSession(plugin=plugin))

    async def mode(self, plugin: str, target: str, mode: str) -> ModeDecision:
        """`xivmcp mode PLUGIN TARGET MODE`: a capability id or one of its tools to allow, ask, deny or default."""
        return await self._send(SetMode(plugin=plugin, target=target, mode=mode))

    async def set_modes(self, plugin: str, /, **modes: str) -> list[ModeDecision]:
        """`mode` for several targets of one plugin, in order: ``set_modes("MyPlugin", game_ui="allow",
        spend_gil="ask")`` (each keyword a capability id or tool name, each value a mode)."""
        return [await self.mode(plugin, target, mode) for target, mode in modes.items()]

    # --- approvals ---------------------------------------------------------------------------

    async def approvals(self, wait: float = 0) -> list[PendingApproval]:
        """`xivmcp approvals [--wait S]`: those waiting; if none does yet, wait up to `wait` s for one."""
        return (await self._send(ListApprovals(wait=wait), answer_within=self.within + wait)).approvals

    async def wait_approval(self, tool: str | None = None, wait: float = WAIT) -> PendingApproval:
        """The approval that waits for `tool` (any tool if None), waiting up to `wait` s for one to be asked."""
        waiting = await self.approvals(wait=wait)
        mine = [a for a in waiting if tool is None or a.tool == tool]
        if not mine:
            asked = ", ".join(f"{a.approval_id} ({a.tool})" for a in waiting) or "none"
            raise PlayerError(
                "approvals",
                f"no approval for {tool or 'any tool'} was asked within {wait:g} s (waiting: {asked}); "
                "is the call running, and is the tool or its capability set to ask?",
            )
        return mine[0]

    async def approve(self, approval_id: str, *, session: bool = False, always: bool = False) -> ApprovalAnswer:
        """`xivmcp approve ID [--session | --always]`: once, for this session, or always for this tool."""
        if session and always:
            raise ValueError("approve() takes session=True or always=True, not both (as `--session` or `--always`).")
        answer = Answer.APPROVE_SESSION if session else Answer.ALWAYS_ALLOW if always else Answer.APPROVE_ONCE
        return await self._send(AnswerApproval(approval_id=approval_id, answer=answer))

    async def decline(self, approval_id: str) -> ApprovalAnswer:
        """`xivmcp decline ID`: the call is told no."""
        return await self._send(AnswerApproval(approval_id=approval_id, answer=Answer.DECLINE))

    # --- audit, calls --------------------------------------------------------------------------

    async def audit(self, plugin: str | None = None, limit: int = 50) -> list[AuditLine]:
        """`xivmcp audit [--plugin P] [-n LIMIT]`, oldest first, from the host's last `reset` on.

        A shared test system is reset before each test, so these are the current test's lines
        (a host never reset gives its whole log, up to `AUDIT_WINDOW` lines). `limit` counts after
        the `plugin` filter.
        """
        entries = (await self._send(ReadAudit(limit=AUDIT_WINDOW))).entries
        resets = [i for i, entry in enumerate(entries) if entry.details.get("reset") is True]
        since = entries[resets[-1] + 1 :] if resets else entries
        mine = [entry for entry in since if plugin is None or entry.plugin == plugin]
        return mine[-limit:] if limit > 0 else []

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> CallReply:
        """`xivmcp call TOOL ARGS`: a tool through the permission gate, as the assistant would call it.

        A call that waits for an approval blocks until it is answered: start it in a task (or,
        in a sync test, with `SyncPlayer.start_call`) and answer it with `wait_approval` + `approve`.
        """
        return await self._send(CallTool(tool=tool, arguments=arguments or {}), answer_within=within)

    async def result(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> Any:
        """`call` for a test that expects it to succeed: the tool's result (CallOutcomeError with the
        error the assistant read if it failed)."""
        reply = await self.call(tool, arguments, within=within)
        if reply.is_error:
            raise CallOutcomeError(f"The call of {tool} failed: {reply.error}")
        return reply.result

    async def error(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> str:
        """`call` for a test that expects it to fail: the error the assistant reads (CallOutcomeError
        with the result if it succeeded)."""
        reply = await self.call(tool, arguments, within=within)
        if not reply.is_error:
            raise CallOutcomeError(f"The call of {tool} succeeded with {reply.result!r}; an error was expected.")
        return reply.error or ""

    # --- jobs --------------------------------------------------------------------------------

    async def jobs(self, finished: bool = True) -> list[JobSummary]:
        """`xivmcp jobs`: every job, newest first (without the finished ones if `finished` is False)."""
        return (await self._send(ListJobs(finished=finished))).jobs

    async def job(self, job_id: str, log_lines: int = 30) -> JobInfo:
        """`xivmcp job ID [-n LINES]`: one job (by id or name) with its steps, results and log."""
        return (await self._send(ShowJob(id=job_id, log_lines=log_lines))).job

    async def pause_job(self, job_id: str) -> JobControlled:
        """`xivmcp job pause ID`."""
        return await self._send(ControlJob(id=job_id, action="pause"))

    async def resume_job(self, job_id: str) -> JobControlled:
        """`xivmcp job resume ID`: the paused step runs again from its start."""
        return await self._send(ControlJob(id=job_id, action="resume"))

    async def cancel_job(self, job_id: str) -> JobControlled:
        """`xivmcp job cancel ID`."""
        return await self._send(ControlJob(id=job_id, action="cancel"))

    # --- XIV MCP's own tools, the clock --------------------------------------------------------

    async def modules(self) -> list[ModuleCard]:
        """`xivmcp modules`: each module of XIV MCP's own tools with its modes and each tool's setting."""
        return (await self._send(ListModules())).modules

    async def module(self, module: str, what: str, mode: str | None = None) -> str:
        """`xivmcp module MODULE reading|changes MODE` or `xivmcp module MODULE on|off`; the host's sentence."""
        return (await self._send(SetModule(module=module, what=what, mode=mode))).message

    async def tool(self, tool: str, setting: str) -> str:
        """`xivmcp tool TOOL group|allow|ask|deny`: one of XIV MCP's own tools on its own; the host's sentence."""
        return (await self._send(SetToolSetting(tool=tool, setting=setting))).message

    # --- the plugins installed ------------------------------------------------------------------

    async def installed(self) -> list[InstalledInfo]:
        """`xivmcp installed`: the plugins installed, as Dalamud would list them, and whether each is loaded."""
        return (await self._send(ListInstalled())).plugins

    async def install(
        self, plugin: str, name: str | None = None, version: str | None = None, repo: str | None = None
    ) -> str:
        """`xivmcp install PLUGIN`: a plugin installed but not running (for the dependency states); the sentence."""
        return (await self._send(Install(plugin=plugin, name=name, version=version, repo=repo))).message or ""

    async def uninstall(self, plugin: str) -> str:
        """`xivmcp uninstall PLUGIN`; the host's sentence."""
        return (await self._send(Uninstall(plugin=plugin))).message or ""

    async def advance_clock(self, seconds: float) -> ClockAdvanced:
        """`xivmcp advance-clock SECONDS`: the host's test clock, and the game's with it (one clock for all)."""
        host_time = (await self._send(AdvanceClock(seconds=seconds))).now
        if self._game is None:
            return ClockAdvanced(host_time, None, "no game client was given to this Player")
        game = self._game
        try:
            moved = await self._link.run(lambda: bounded(self.within, "the game's clock", game.advance_clock(seconds)))
        except GameError as exc:  # no game, or a game on the real clock: its time is its own
            return ClockAdvanced(host_time, None, str(exc))
        return ClockAdvanced(host_time, moved.time)

    async def reset(self) -> HostReset:
        """Put a --test-clock host back at its start (the pytest plugin does this before each test)."""
        return await self._send(ResetForTests(), answer_within=self.within + 10)
