"""The player's desk: the game's `/xivmcp` window, reached over the `XivMcp.Player` gate.

In the game only the player clicks that window; here only a process that can read the player
key (`DATA_DIR/player.key`, mode 0600, written by the host at start) can use the gate, so a
plugin on the bus cannot enable itself or approve its own calls. The key is proven by challenge
and response (`gates.player`), never sent.

`call` stands in for an AI app: when the process that sent it leaves the bus before the answer
(killed, or gave up), the call is abandoned as an app giving up would: the plugin gets Cancel
and two minutes to stop (an approval it was waiting for is withdrawn). `approvals` can wait a
little for one to be asked (`xivmcp approvals --wait SECONDS`), so scripts need not poll.
"""

from __future__ import annotations

import contextlib
from typing import Any, Final

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream

from broker import CallGateSubscriber, IpcError, current_caller
from gates.contract import (
    Answer,
    JobInfo,
    RefusedError,
    encode_json,
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
    CallTool,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    HostStats,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListJobs,
    ListModules,
    ListPlugins,
    PlayerHelloReply,
    ReadAudit,
    ResetForTests,
    SetMode,
    SetModule,
    SetToolSetting,
    ShowJob,
    decode_player_auth,
    decode_player_command,
    host_proof,
)

from ._challenges import Challenges
from ._host import Host
from ._player_actions import Done
from .base._audit import AuditEntry
from .base._clock import SystemClock
from .jobs._runner import FINISHED, LISTED
from .jobs._tools import job_summary, job_view
from .policy._approvals import Approval

MAX_NONCE: Final = 128
"""The longest client nonce `XivMcp.PlayerHello` takes."""
EVENT_BUFFER: Final = 256
"""Events of one call waiting to reach the player's command."""
NOTIFY_SECONDS: Final = 2.0
"""How long the host tries to hand one call event to the player's command."""
MAX_WAIT: Final = 60.0
"""The longest a player command waits for something to happen (`approvals --wait`), in seconds."""
RESET_JOBS_WAIT: Final = 10.0
"""How long `reset` waits (real seconds) for the jobs it cancelled to stop: a step's plugin answers
Cancel, or has left the bus (then its call fails at once)."""


class PlayerDesk:
    """Handles player commands; every reply is `{"ok": true, …}` or `{"ok": false, "error": "…"}`."""

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
        reply = PlayerHelloReply(nonce=self._challenges.issue(), proof=host_proof(self._key, client_nonce))
        return ok_reply(reply)

    async def handle(self, auth_json: str | None, command_json: str | None) -> str:
        command_json = command_json or ""
        try:
            auth = decode_player_auth(auth_json or "")
        except RefusedError:
            auth = None
        if auth is None or not self._challenges.redeem(self._key, auth, command_json):
            return error_reply(
                "Only the player can use XivMcp.Player: ask XivMcp.PlayerHello for a nonce and prove the key "
                "from player.key in XIV MCP's data dir (the xivmcp commands do this; the key itself is never sent)."
            )
        caller = current_caller()
        with anyio.CancelScope() as scope:
            self._running.setdefault(caller, set()).add(scope)
            try:
                return encode_json({"ok": True, **await self._run(command_json)})
            except Exception as exc:
                return exception_reply(exc)
            finally:
                scopes = self._running.get(caller, set())
                scopes.discard(scope)
                if not scopes:
                    self._running.pop(caller, None)
        # Cancelled by `caller_left`: nobody is there to read a reply.
        return error_reply(f"{caller} left the bus; the command was abandoned.")

    def _events_to(self, gate: str) -> _CallEvents:
        """Events of a call for the caller's own action gate (a process can only be told on its own)."""
        caller = current_caller()
        if not gate.startswith(f"{caller}."):
            raise RefusedError(f"'notify' must be a gate of your own ({caller}.…), not {quote(gate)}.")
        return _CallEvents(self.host.pi.get_ipc_subscriber(gate), self._tg)

    def caller_left(self, name: str) -> None:
        """The process `name` left the bus: give up what it asked for, as an app that gives up on a
        call (a direct call is cancelled: its plugin gets Cancel and two minutes to stop)."""
        for scope in self._running.pop(name, set()):
            scope.cancel()

    async def _wait_for_approval(self, seconds: float) -> None:
        """Wait (in real time, at most `seconds`) until an approval waits for the player."""
        with anyio.move_on_after(min(max(seconds, 0.0), MAX_WAIT)):
            while not self.host.approvals.pending():
                if self._approval_asked.is_set():
                    self._approval_asked = anyio.Event()
                await self._approval_asked.wait()

    async def _run(self, command_json: str) -> dict[str, Any]:
        host = self.host
        command = decode_player_command(command_json)
        match command:
            case ListPlugins(plugin=None):
                return {"plugins": host.reports.cards()}
            case ListPlugins(plugin=str(one)):
                return {"plugins": [host.reports.card(one)] if host.reports.has(one) else []}
            case EnablePlugin(plugin=plugin, digest=digest):
                return _done(host.player.enable(plugin, digest))
            case ConsentPlugin(plugin=plugin, digest=digest):
                return _done(host.player.consent(plugin, digest))
            case KeepDisabled(plugin=plugin):
                return _done(host.player.keep_disabled(plugin))
            case LiftSuspension(plugin=plugin):
                return _done(host.player.lift(plugin))
            case SetMode(plugin=plugin, target=target, mode=mode):
                return {**_done(host.player.set_mode(plugin, target, mode)), "target": target, "mode": mode}
            case ListApprovals(wait=wait):
                if wait > 0:
                    await self._wait_for_approval(wait)
                return {
                    "approvals": [
                        {
                            "approvalId": a.id,
                            "plugin": a.plugin,
                            "tool": a.tool,
                            "kind": a.kind.value,
                            "capabilities": list(a.capabilities),
                            "summary": a.summary,
                            "secondsLeft": None if a.deadline is None else round(a.deadline - host.clock.now(), 1),
                        }
                        for a in host.approvals.pending()
                    ]
                }
            case AnswerApproval(approval_id=approval_id, answer=answer):
                approval = host.player.answer(approval_id, answer)
                return {"approvalId": approval.id, "state": approval.state.value, "message": _answered(approval)}
            case ReadAudit(plugin=plugin, limit=limit):
                return {"entries": [_entry(e) for e in host.audit.tail(limit, plugin)]}
            case CallTool(tool=tool, arguments=arguments, notify=notify):
                if host.registry.get(tool) is None:
                    owner = host.policies.consented_owner(tool)
                    raise RefusedError(
                        f"{quote(tool)} is a tool of {owner}, which is not connected right now; start it, then "
                        "call again (`xivmcp plugins` shows who is connected)."
                        if owner is not None
                        else f"No tool named {quote(tool)}; `xivmcp plugins` lists every plugin's tools."
                    )
                events = self._events_to(notify) if notify else None
                try:
                    outcome = await host.call_tool(
                        tool,
                        arguments,
                        on_progress=None if events is None else events.progress,
                        on_approval=None if events is None else events.approval,
                    )
                finally:
                    if events is not None:
                        await events.aclose()  # every event reaches the player before the result
                if outcome.ok:
                    return {"result": outcome.result}
                return {"isError": True, "error": outcome.error}
            case ListJobs(finished=finished):
                return {"jobs": [job_summary(j) for j in host.jobs.listing(finished=finished, newest=LISTED)]}
            case ShowJob(id=job_id, log_lines=log_lines):
                return {"job": job_view(host.jobs.get(job_id), max(0, min(log_lines, 200)))}
            case ControlJob(id=job_id, action=action):
                job = host.jobs.get(job_id)
                steer = {"pause": host.jobs.pause, "resume": host.jobs.resume, "cancel": host.jobs.cancel}.get(action)
                if steer is None:
                    raise RefusedError(f"{quote(action)} is not a job action: use pause, resume or cancel.")
                return {"job": job_summary(job), "message": steer(job)}
            case HostStats():
                return {"calls": host.calls.running, "approvals": len(host.approvals.pending())}
            case AdvanceClock(seconds=seconds):
                return {"now": host.player.advance_clock(seconds)}
            case ResetForTests():
                return await self._reset()
            case ListModules():
                return {"modules": host.modules.cards(host.registry.read_only_of, host.pi.peers)}
            case SetModule(module=module, what=what, mode=mode):
                return {"message": host.player.set_module(module, what, mode)}
            case SetToolSetting(tool=tool, setting=setting):
                return {"message": host.player.set_core_tool(tool, setting)}
        raise AssertionError(f"unhandled player command {command!r}")

    async def _reset(self) -> dict[str, Any]:
        """`reset` (a --test-clock host only): jobs first, so that nothing they do lands after the
        reset's line in the audit log, then the player's decisions (`PlayerActions.reset`)."""
        host = self.host
        host.player.require_test_clock()
        jobs = await self._stop_every_job()
        approvals = await host.player.withdraw_approvals()
        done = host.player.reset(host.pi.peers)
        forgotten = ", ".join(done.plugins) or "none"
        return {
            "plugins": list(done.plugins),
            "approvals": approvals,
            "settings": done.settings,
            "jobs": jobs,
            "message": (
                f"XIV MCP is back at its start: plugins forgotten: {forgotten}; {approvals} approvals "
                f"withdrawn, {jobs} jobs forgotten, {done.settings} module settings put back."
            ),
        }

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


def _approval_event(approval: Approval) -> dict[str, Any]:
    return {
        "kind": "approval",
        "approvalId": approval.id,
        "tool": approval.tool,
        "plugin": approval.plugin,
        "summary": approval.summary,
    }


class _CallEvents:
    """A call's events for the player's command, delivered in order, each before the call's result."""

    def __init__(self, gate: CallGateSubscriber, task_group: anyio.abc.TaskGroup) -> None:
        self._gate = gate
        self._send, receive = anyio.create_memory_object_stream[dict[str, Any]](EVENT_BUFFER)
        self._delivered = anyio.Event()
        task_group.start_soon(self._deliver, receive)

    def progress(self, text: str) -> None:
        self._put({"kind": "progress", "text": text})

    def approval(self, approval: Approval) -> None:
        self._put(_approval_event(approval))

    def _put(self, event: dict[str, Any]) -> None:
        with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
            self._send.send_nowait(event)  # a burst beyond the buffer is dropped: events are advisory

    async def _deliver(self, receive: MemoryObjectReceiveStream[dict[str, Any]]) -> None:
        try:
            async with receive:
                async for event in receive:
                    with anyio.move_on_after(NOTIFY_SECONDS), contextlib.suppress(IpcError):
                        await self._gate.invoke_action(encode_json(event))
        finally:
            self._delivered.set()

    async def aclose(self) -> None:
        self._send.close()
        with anyio.move_on_after(NOTIFY_SECONDS), anyio.CancelScope(shield=True):
            await self._delivered.wait()


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


def _done(done: Done) -> dict[str, Any]:
    return {"plugin": done.plugin, "state": done.state.value, "changed": done.changed, "message": done.message}


def _entry(entry: AuditEntry) -> dict[str, Any]:
    """Every field, defaults included: the player's `audit` shows each line whole."""
    return {
        "time": entry.time,
        "kind": entry.kind,
        "plugin": entry.plugin,
        "tool": entry.tool,
        "flagged": entry.flagged,
        "details": entry.details,
    }
