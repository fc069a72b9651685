"""The player's desk: the game's `/xivmcp` window, reached over the `XivMcp.Player` gate.

In the game only the player clicks that window; here only a process that can read the player
key (`DATA_DIR/player.key`, mode 0600, written by the host at start) can use the gate, so a
plugin on the bus cannot enable itself or approve its own calls. The key is proven by challenge
and response (`gates.player`), never sent.

`call` stands in for an AI app: when the process that sent it leaves the bus before the answer
(killed, or gave up), the call is abandoned as an app giving up would: the plugin gets Cancel
and two minutes to stop (an approval it was waiting for is withdrawn). `approvals` can wait a
little for one to be asked (`xivmcp approvals --wait SECONDS`), so scripts need not poll.

Long because it is the one table of every player command and its answer (`_answer`); what an
answer needs beyond a line or two lives beside it (`_plugin_view`, `PlayerActions`, the jobs).
"""

from __future__ import annotations

from typing import Final, TypeVar, cast

import anyio
import anyio.abc
import msgspec

from broker import current_caller
from gates.contract import (
    Answer,
    JobInfo,
    JobReply,
    PluginState,
    RefusedError,
    error_reply,
    exception_reply,
    ok_reply,
    quote,
)
from gates.datadir import secret
from gates.player import (
    PLAYER_KEY_FILE,
    AdvanceClock,
    AnswerApproval,
    ApprovalAnswer,
    ApprovalsReport,
    AuditReport,
    CallImage,
    CallReply,
    CallTool,
    ClearSession,
    Command,
    ConsentPlugin,
    ConsoleTicket,
    ControlJob,
    EnablePlugin,
    HostClock,
    HostReset,
    HostStats,
    Install,
    InstalledReport,
    JobControlled,
    JobsReport,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListedTool,
    ListInstalled,
    ListJobs,
    ListModules,
    ListPlugins,
    ListTools,
    ModulesReport,
    OpenConsole,
    PendingApproval,
    PlayerCommand,
    PlayerHelloReply,
    PluginsReport,
    PluginViews,
    ReadAudit,
    ResetForTests,
    SetMode,
    SetModule,
    SettingChanged,
    SetToolSetting,
    ShowJob,
    ShowPlugin,
    ShowPlugins,
    StatsReport,
    ToolsReport,
    Uninstall,
    decode_player_auth,
    decode_player_command,
    host_proof,
)

from ._call_events import CallEvents
from ._challenges import Challenges
from ._host import Host
from ._plugin_view import plugin_view
from .base._clock import SystemClock
from .jobs._runner import FINISHED, LISTED
from .jobs._tools import job_summary, job_view
from .policy._approvals import Approval
from .tools._core_definitions import CORE_TOOLSET, SIMULATOR_TOOLS

R = TypeVar("R", bound=msgspec.Struct)

MAX_NONCE: Final = 128
"""The longest client nonce `XivMcp.PlayerHello` takes."""
MAX_WAIT: Final = 60.0
"""The longest a player command waits for something to happen (`approvals --wait`), in seconds."""
RESET_JOBS_WAIT: Final = 10.0
"""How long `reset` waits (real seconds) for the jobs it cancelled to stop: a step's plugin answers
Cancel, or has left the bus (then its call fails at once)."""


class PlayerDesk:
    """Answers the player's commands, each with its reply type (`gates.player`): `{"ok": true, …}`,
    or `{"ok": false, "error": "…"}` with the message the player reads."""

    def __init__(self, host: Host, task_group: anyio.abc.TaskGroup) -> None:
        self.host = host
        self._key = secret(host.config.data_dir / PLAYER_KEY_FILE, "player key")
        self._challenges = Challenges(SystemClock())  # real time: a nonce's lifetime is no test's business
        self._tg = task_group
        self._running: dict[str, set[anyio.CancelScope]] = {}
        """The commands under way, by the InternalName of the process that sent them."""
        self._approval_asked = anyio.Event()
        host.approvals.on_request(lambda _: self._approval_asked.set())

    def hello(self, client_nonce: str | None) -> str:
        """`XivMcp.PlayerHello`: prove this host knows the key, and hand out a nonce for one command."""
        if not client_nonce or len(client_nonce) > MAX_NONCE:
            return error_reply(
                f"XivMcp.PlayerHello takes a random nonce of 1 to {MAX_NONCE} characters "
                "(the xivmcp commands send one)."
            )
        nonce = self._challenges.issue(current_caller())  # the caller's own: nobody spends another's (B7)
        reply = PlayerHelloReply(nonce=nonce, proof=host_proof(self._key, client_nonce))
        return ok_reply(reply)

    async def handle(self, auth_json: str | None, command_json: str | None) -> str:
        command_json = command_json or ""
        try:
            auth = decode_player_auth(auth_json or "")
        except RefusedError:
            auth = None
        if auth is None or not self._challenges.redeem(self._key, current_caller(), auth, command_json):
            return error_reply(
                "Only the player can use XivMcp.Player: ask XivMcp.PlayerHello for a nonce and prove the key "
                "from player.key in XIV MCP's data dir (the xivmcp commands do this; the key itself is never sent)."
            )
        caller = current_caller()
        with anyio.CancelScope() as scope:
            self._running.setdefault(caller, set()).add(scope)
            try:
                command = decode_player_command(command_json)
                reply = await self._answer(command)
                if not isinstance(reply, command.reply_type):  # the desk and the protocol disagree: a bug here
                    raise TypeError(
                        f"{type(command).__name__} is answered with {command.reply_type.__name__}, "
                        f"not {type(reply).__name__}."
                    )
                return ok_reply(reply)
            except Exception as exc:
                return exception_reply(exc)
            finally:
                scopes = self._running.get(caller, set())
                scopes.discard(scope)
                if not scopes:
                    self._running.pop(caller, None)
        # Cancelled by `caller_left`: nobody is there to read a reply.
        return error_reply(f"{caller} left the bus; the command was abandoned.")

    async def answer(self, command: Command[R]) -> R:
        """One command from this process itself (the web console, which the player proved at its
        login): its reply, or RefusedError with the message the player reads."""
        reply = await self._answer(cast(PlayerCommand, command))
        if not isinstance(reply, command.reply_type):
            raise TypeError(f"{type(command).__name__} is answered with {type(reply).__name__}")
        return cast(R, reply)

    def _events_to(self, gate: str) -> CallEvents:
        """Events of a call for the caller's own action gate (a process can only be told on its own)."""
        caller = current_caller()
        if not gate.startswith(f"{caller}."):
            raise RefusedError(f"'notify' must be a gate of your own ({caller}.…), not {quote(gate)}.")
        return CallEvents(self.host.pi.get_ipc_subscriber(gate), self._tg)

    def caller_left(self, name: str) -> None:
        """The process `name` left the bus: give up what it asked for, as an app that gives up on a
        call (a direct call is cancelled: its plugin gets Cancel and two minutes to stop)."""
        self._challenges.forget(name)
        for scope in self._running.pop(name, set()):
            scope.cancel()

    async def _wait_for_approval(self, seconds: float) -> None:
        """Wait (in real time, at most `seconds`) until an approval waits for the player."""
        with anyio.move_on_after(min(max(seconds, 0.0), MAX_WAIT)):
            while not self.host.approvals.pending():
                if self._approval_asked.is_set():
                    self._approval_asked = anyio.Event()
                await self._approval_asked.wait()

    async def _answer(self, command: PlayerCommand) -> msgspec.Struct:
        """The reply to one command, of the command's reply type: a decision about a plugin is the
        player's action itself (`PlayerActions`), anything else a method of the desk."""
        match command:
            case ListPlugins():
                return self._plugins(command)
            case EnablePlugin():
                return self.host.player.enable(command.plugin, command.digest)
            case ConsentPlugin():
                return self.host.player.consent(command.plugin, command.digest)
            case KeepDisabled():
                return self.host.player.keep_disabled(command.plugin)
            case LiftSuspension():
                return self.host.player.lift(command.plugin)
            case SetMode():
                return self.host.player.set_mode(command.plugin, command.target, command.mode)
            case ListApprovals():
                return await self._approvals(command)
            case AnswerApproval():
                return self._answer_approval(command)
            case ReadAudit():
                return self._audit(command)
            case CallTool():
                return await self._call(command)
            case HostStats():
                return StatsReport(calls=self.host.calls.running, approvals=len(self.host.approvals.pending()))
            case ListJobs():
                return self._jobs(command)
            case ShowJob():
                return self._job(command)
            case ControlJob():
                return self._control_job(command)
            case AdvanceClock():
                return HostClock(now=self.host.player.advance_clock(command.seconds))
            case ResetForTests():
                return await self._reset()
            case ListModules():
                return ModulesReport(
                    modules=self.host.modules.cards(self.host.registry.read_only_of, self.host.pi.peers)
                )
            case ListTools():
                return ToolsReport(tools=self._listed_tools())
            case SetModule():
                return SettingChanged(message=self.host.player.set_module(command.module, command.what, command.mode))
            case SetToolSetting():
                return SettingChanged(message=self.host.player.set_core_tool(command.tool, command.setting))
            case ListInstalled():
                return InstalledReport(plugins=self.host.installed.infos())
            case Install():
                said = self.host.installed.install(command.plugin, command.name, command.version, command.repo)
                return InstalledReport(plugins=self.host.installed.infos(), message=said)
            case Uninstall():
                said = self.host.installed.uninstall(command.plugin)
                return InstalledReport(plugins=self.host.installed.infos(), message=said)
            case ShowPlugin():
                return plugin_view(self.host, command.plugin)
            case ShowPlugins():
                return PluginViews(views=[plugin_view(self.host, name) for name in self.host.reports.names()])
            case ClearSession():
                return self.host.player.clear_session(command.plugin)
            case OpenConsole():
                tickets = self.host.console_tickets
                return ConsoleTicket(ticket=tickets.issue(), seconds=tickets.lifetime)
        raise AssertionError(f"unhandled player command {command!r}")

    def _listed_tools(self) -> list[ListedTool]:
        """What tools/list lists now, by name (F3), each marked when the real XIV MCP has no such tool."""
        offered = sorted(self.host.offered.all(), key=lambda tool: tool.definition.name)
        return [
            ListedTool(
                name=t.definition.name,
                toolset=t.toolset,
                read_only=t.definition.read_only,
                description=t.description,
                simulator_only=t.toolset == CORE_TOOLSET and t.definition.name in SIMULATOR_TOOLS,
            )
            for t in offered
        ]

    def _plugins(self, command: ListPlugins) -> PluginsReport:
        reports = self.host.reports
        if command.plugin is None:
            return PluginsReport(plugins=reports.cards())
        return PluginsReport(plugins=[reports.card(command.plugin)] if reports.has(command.plugin) else [])

    async def _approvals(self, command: ListApprovals) -> ApprovalsReport:
        if command.wait > 0:
            await self._wait_for_approval(command.wait)
        now = self.host.clock.now()
        return ApprovalsReport(
            approvals=[
                PendingApproval(
                    approval_id=a.id,
                    plugin=a.plugin,
                    tool=a.tool,
                    kind=a.kind.value,
                    capabilities=list(a.capabilities),
                    summary=a.summary,
                    seconds_left=None if a.deadline is None else round(a.deadline - now, 1),
                    critical=a.critical,
                    caller=a.caller,
                )
                for a in self.host.approvals.pending()
            ]
        )

    def _answer_approval(self, command: AnswerApproval) -> ApprovalAnswer:
        approval = self.host.player.answer(command.approval_id, command.answer)
        return ApprovalAnswer(approval_id=approval.id, state=approval.state, message=_answered(approval))

    def _audit(self, command: ReadAudit) -> AuditReport:
        """Every field of each line, defaults included: the player's `audit` shows each line whole."""
        return AuditReport(entries=[entry.line() for entry in self.host.audit.tail(command.limit, command.plugin)])

    async def _call(self, command: CallTool) -> CallReply:
        host, tool = self.host, command.tool
        if host.registry.get(tool) is None:
            owner = host.policies.consented_owner(tool)
            raise RefusedError(
                f"{quote(tool)} is a tool of {owner}, which is not connected right now; start it, then "
                "call again (`xivmcp plugins` shows who is connected)."
                if owner is not None
                else f"No tool named {quote(tool)}; `xivmcp plugins` lists every plugin's tools."
            )
        events = self._events_to(command.notify) if command.notify else None
        owner = host.registry.owner_of(tool)
        was_suspended = owner is not None and host.policies.state(owner) is PluginState.SUSPENDED
        try:
            outcome = await host.call_tool(
                tool,
                command.arguments,
                on_progress=None if events is None else events.progress,
                on_approval=None if events is None else events.approval,
            )
        finally:
            if events is not None:
                await events.aclose()  # every event reaches the player before the result
        if outcome.ok:
            images = [CallImage(mime_type=i.mime_type, data=i.data, caption=i.caption) for i in outcome.images]
            reply = CallReply(result=outcome.result, images=images)
        else:
            reply = CallReply(is_error=True, error=outcome.error)
        if owner is not None and not was_suspended and host.policies.state(owner) is PluginState.SUSPENDED:
            reply.suspended_plugin, reply.suspend_reason = owner, host.policies.record(owner).suspend_reason
        return reply

    def _jobs(self, command: ListJobs) -> JobsReport:
        listed = self.host.jobs.listing(finished=command.finished, newest=LISTED)
        return JobsReport(jobs=[job_summary(j) for j in listed])

    def _job(self, command: ShowJob) -> JobReply:
        return JobReply(job=job_view(self.host.jobs.get(command.id), max(0, min(command.log_lines, 200))))

    def _control_job(self, command: ControlJob) -> JobControlled:
        jobs = self.host.jobs
        job = jobs.get(command.id)
        steer = {"pause": jobs.pause, "resume": jobs.resume, "cancel": jobs.cancel}.get(command.action)
        if steer is None:
            raise RefusedError(f"{quote(command.action)} is not a job action: use pause, resume or cancel.")
        return JobControlled(job=job_summary(job), message=steer(job))

    async def _reset(self) -> HostReset:
        """`reset` (a --test-clock host only): jobs first, so that nothing they do lands after the
        reset's line in the audit log, then the player's decisions (`PlayerActions.reset`)."""
        host = self.host
        host.player.require_test_clock()
        jobs = await self._stop_every_job()
        approvals = await host.player.withdraw_approvals()
        done = host.player.reset(host.pi.peers)
        forgotten = ", ".join(done.plugins) or "none"
        return HostReset(
            plugins=list(done.plugins),
            approvals=approvals,
            settings=done.settings,
            jobs=jobs,
            message=(
                f"XIV MCP is back at its start: plugins forgotten: {forgotten}; {approvals} approvals "
                f"withdrawn, {jobs} jobs forgotten, {done.settings} module settings put back."
            ),
        )

    async def _stop_every_job(self) -> int:
        """Cancel every unfinished job, wait until each has stopped, then forget every job; how many."""
        jobs = self.host.jobs
        unfinished = jobs.listing(finished=False)
        for job in unfinished:
            jobs.cancel(job)
        stopped = anyio.Event()

        def check(_: JobInfo | None = None) -> None:
            if all(job.state in FINISHED for job in unfinished):
                stopped.set()

        stop_listening = self.host.on_job_change(check)
        try:
            check()
            with anyio.move_on_after(RESET_JOBS_WAIT):
                await stopped.wait()
        finally:
            stop_listening()
        running = [job.id for job in unfinished if job.state not in FINISHED]
        if running:
            raise RefusedError(
                f"Jobs {', '.join(running)} did not stop within {RESET_JOBS_WAIT:g} s of being cancelled (a step's "
                "plugin did not answer Cancel); stop that plugin, then reset again."
            )
        every = jobs.listing()
        jobs.drop([job.id for job in every])
        await jobs.durable()
        return len(every)


_HOW: Final = {
    Answer.APPROVE_ONCE: "once",
    Answer.APPROVE_SESSION: "for this session",
    Answer.ALWAYS_ALLOW: "always, for this tool",
}


def _answered(approval: Approval) -> str:
    what = f"{approval.plugin}'s {approval.tool}"
    if approval.answer is Answer.DECLINE or approval.answer is None:
        return f"Declined {approval.id}: {what} is told no."
    return f"Approved {approval.id} ({_HOW[approval.answer]}): {what} goes on."
