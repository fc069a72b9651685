"""Calls of third-party tools: a plugin's Invoke gate, pending calls, Cancel and the grace period.

    invoke ──► {"result": …}            done
           ├─► {"error": "…"}          done (the assistant reads the message)
           ├─► {"pending": true}       waits for CompleteCall / FailCall, however long it takes (G8)
           └─► no reply in 30 s        the loop is blocked (P7): the caller is told so, Cancel(callId)
    the caller gives up ──► Cancel(callId), then up to two minutes for the plugin to finish

CompleteCall and FailCall are taken from inside Invoke, before it replies, as the real host takes
them: the first one settles the call (`{"accepted": true}`; any later one `{"accepted": false}`),
and Invoke's reply decides which outcome counts: `{"pending": true}` the settled one, a result or an
error its own (the real host returns what Invoke answered and waits for the settled outcome only
after "pending", `XivMcp/Api/PluginApi.cs`). A call is known, and CompleteCall / FailCall /
ReportProgress / RequestApproval answer for it, from Invoke until it has ended (the real host
forgets a call as Invoke's task returns, before its effects are judged); before and after, the real
host's "No pending call '{callId}' (finished, cancelled or never pending)." Only the plugin that
owns a call can finish it or report on it: the real host takes a call id from any plugin, but on the
bus ids travel between processes, and another plugin's call is refused as if unknown, so the refusal
does not say whose it is (G3, S1). Invoke runs as a task of the host, so its reply still ends the
call when the caller gave up meanwhile; once XIV MCP has told the caller that the plugin's loop is
blocked, a late Invoke reply is ignored, and only CompleteCall / FailCall within the two minutes
after the Cancel end the call. An exception in a raw plugin's Invoke reaches the caller as
"TypeName: message" (T4). Deadlines are measured on the host's `Clock`, and enforced by
`expire_due()`, which the host calls periodically, so tests move a manual clock instead of sleeping.

Long because one call's whole life (Invoke, pending, Cancel, the grace period, its end) reads best in
one place: the states share every field, and splitting them would hide which path ends a call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import anyio
import anyio.abc
import msgspec

from broker import CallGateSubscriber, IpcError, IpcHandlerError, IpcNotReadyError, IpcPeerLeftError, PluginInterface
from gates.contract import (
    Gate,
    InvalidDocumentError,
    InvokeError,
    InvokePending,
    InvokeResult,
    PluginGate,
    RefusedError,
    ToolDefinition,
    decode_invoke_reply,
    plugin_gate,
    quote,
    refuse_control_characters,
)

from ..base._call_outcome import CallOutcome
from ..base._clock import Clock
from ..base._ids import IdMaker
from ..policy._approvals import Approval
from ..policy._side_effects import Verdict, unchecked
from ._call_end import CallEnd
from ._effect_watch import EffectWatch, Mark

log = logging.getLogger("gates.calls")

CANCEL_GRACE: Final = 120.0
"""After a Cancel, how long XIV MCP waits for the plugin's CompleteCall or FailCall."""
PICKUP_LIMIT: Final = 30.0
"""How long a plugin's Invoke may take to reply (result, error or pending) before XIV MCP takes
its framework loop for blocked and cancels the call (P7)."""
PROGRESS_LIMIT: Final = 300
CANCELLED: Final = "Cancelled."
CALL_FAILED: Final = "The call failed."
"""What a FailCall without a message fails the call with (the real host's words)."""
UNLOADING: Final = "XIV MCP is unloading."
"""What every running call fails with when the host goes down (the real host's words)."""

_decode_any = msgspec.json.Decoder().decode
_JSON_KINDS: Final[dict[type, str]] = {
    dict: "an object",
    list: "an array",
    int: "a number",
    float: "a number",
    bool: "a boolean",
}


@dataclass(slots=True)
class _Call:
    id: str
    owner: str
    tool: str
    definition: ToolDefinition
    """What the tool declared when the call began: its approvals are judged on it, even if the
    plugin unregisters the tool meanwhile (the real host keeps the tool with the pending call)."""
    on_progress: Callable[[str], None] | None
    on_approval: Callable[[Approval], None] | None
    pickup_deadline: float | None
    """Until Invoke replies: when XIV MCP takes the plugin's loop for blocked (P7)."""
    done: anyio.Event = field(default_factory=anyio.Event)
    """Set when the caller may stop waiting: the call ended, or XIV MCP told the caller why not (P7)."""
    ended: anyio.Event = field(default_factory=anyio.Event)
    reported: bool = False
    mark: Mark | None = None
    started: float = 0.0
    outcome: CallOutcome | None = None
    cancel_deadline: float | None = None
    told: CallOutcome | None = None
    """What the caller was told when XIV MCP stopped waiting for Invoke (P7); the call itself
    still ends with the plugin's CompleteCall / FailCall, or with the two minutes after Cancel."""
    invoke_scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    """The host's own wait for the plugin's Invoke reply: cancelled once XIV MCP stops waiting
    for it (P7, or the grace after a Cancel is over), which frees the call at the broker (B6)."""
    notes: dict[str, bool | int] = field(default_factory=dict)  # for its audit line: pending, progressCut (J5)
    settled: CallOutcome | None = None
    """What the plugin's first CompleteCall or FailCall said; it ends the call once Invoke has
    answered {"pending": true} (at once if it already has)."""
    replied_pending: bool = False

    @property
    def declared(self) -> tuple[str, ...]:
        return tuple(self.definition.capabilities)

    def finish(self, outcome: CallOutcome) -> bool:
        if self.outcome is not None:
            return False
        self.outcome = outcome
        self.done.set()
        self.ended.set()
        return True


class PluginCalls:
    """Every call of a plugin's tool that is under way."""

    def __init__(
        self,
        pi: PluginInterface,
        task_group: anyio.abc.TaskGroup,
        clock: Clock,
        on_finished: Callable[[CallEnd], None] | None = None,
        cancel_grace: float = CANCEL_GRACE,
        pickup_limit: float = PICKUP_LIMIT,
        tag: str | None = None,
        effects: EffectWatch | None = None,
        display_name: Callable[[str], str] = str,
    ) -> None:
        """`display_name` names a plugin as the real host does in messages (the installed plugins')."""
        self._pi = pi
        self._display_name = display_name
        self._tg = task_group
        self._clock = clock
        self._on_finished = on_finished
        self._effects = effects
        self._grace = cancel_grace
        self._pickup = pickup_limit
        self._calls: dict[str, _Call] = {}
        self._ids = IdMaker("c", tag, unguessable=True)  # S1
        self._gates: dict[str, tuple[CallGateSubscriber, CallGateSubscriber]] = {}
        """Each plugin's Invoke and Cancel gates, named and checked once (not on every call)."""

    def _unloaded(self, owner: str) -> str:
        return f"The {self._display_name(owner)} plugin was unloaded during the call."

    def _gates_of(self, owner: str) -> tuple[CallGateSubscriber, CallGateSubscriber]:
        gates = self._gates.get(owner)
        if gates is None:
            gates = self._gates[owner] = (
                self._pi.get_ipc_subscriber(plugin_gate(owner, PluginGate.INVOKE)),
                self._pi.get_ipc_subscriber(plugin_gate(owner, PluginGate.CANCEL)),
            )
        return gates

    def owner_of(self, call_id: str) -> str | None:
        """Who owns the call, while it has not ended."""
        call = self._calls.get(call_id)
        return None if call is None or call.outcome is not None else call.owner

    def definition_of(self, call_id: str) -> ToolDefinition | None:
        """The definition the call's tool had when the call began, while it has not ended."""
        call = self._calls.get(call_id)
        return None if call is None or call.outcome is not None else call.definition

    @property
    def running(self) -> int:
        return len(self._calls)

    async def invoke(
        self,
        owner: str,
        definition: ToolDefinition,
        args_json: str,
        *,
        on_progress: Callable[[str], None] | None = None,
        on_approval: Callable[[Approval], None] | None = None,
        on_started: Callable[[str], None] | None = None,
    ) -> CallOutcome:
        """Run the tool `definition` describes in its plugin `owner`. Cancelling this sends Cancel
        and keeps waiting in the background.

        `on_started` gets the call's id at once: a job uses it to `cancel` the call, then awaits
        this to its end (the plugin's answer to the Cancel, or the two minutes after it).

        The plugin's Invoke runs as a task of the host, so its reply is taken even when the caller
        gives up while Invoke is still running (a quick tool's result then ends the call at once).
        An Invoke that does not reply within the pickup limit ends the wait with a message (P7).
        The game is read just before Invoke and once the call ended; the call's effects, judged
        against what `definition` declares, are in its `CallEnd` (reported before this returns
        its outcome).
        """
        mark = await self._effects.begin() if self._effects is not None else None
        pickup = self._clock.now() + self._pickup
        call = _Call(
            self._ids.next(taken=self._calls), owner, definition.name, definition, on_progress, on_approval, pickup
        )
        call.mark, call.started = mark, self._clock.now()
        self._calls[call.id] = call
        if on_started is not None:
            on_started(call.id)
        self._tg.start_soon(self._invoke, call, args_json)
        try:
            await call.done.wait()
        except anyio.get_cancelled_exc_class():
            self._cancel(call)
            self._tg.start_soon(self._conclude, call)  # the call goes on: report it once it ends
            raise
        if call.told is not None:
            self._tg.start_soon(self._conclude, call)
            return call.told  # P7: the call stays, for its CompleteCall / FailCall, until the grace ends
        try:
            # Here rather than in a task of its own: judging from the game's messages takes no
            # wait, and a task would cost a loop turn or two on every call.
            await self._conclude(call)
        except anyio.get_cancelled_exc_class():
            self._tg.start_soon(self._conclude, call)  # the caller gave up while the game was read
            raise
        assert call.outcome is not None
        return call.outcome

    async def _conclude(self, call: _Call) -> None:
        """Once the call ended: judge what it did to the game, report it, forget it."""
        if not call.ended.is_set():  # waiting on a set anyio Event would still cost a loop turn
            await call.ended.wait()
        if call.reported:
            return
        seconds = self._clock.now() - call.started
        verdict = unchecked("XIV MCP does not watch the game.")
        if self._effects is not None:
            try:
                verdict = await self._effects.end(call.owner, call.declared, call.mark)
            except Exception as exc:  # a task of the host: a bug here must not take the host down
                log.exception("judging the effects of %s (%s) failed", call.tool, call.id)
                verdict = unchecked(f"XIV MCP could not judge the call's effects ({type(exc).__name__}).")
        self._report(call, verdict, seconds)

    async def _invoke(self, call: _Call, args_json: str) -> None:
        outcome: CallOutcome | None = None
        with call.invoke_scope:
            try:
                outcome = await self._invoke_plugin(call, args_json)
            except Exception as exc:  # a task of the host: a bug here must not take the host down
                log.exception("calling %s of %s failed", call.tool, call.owner)
                outcome = CallOutcome(error=f"{type(exc).__name__}: {exc}")
        if call.invoke_scope.cancelled_caught:
            return  # XIV MCP stopped waiting for this Invoke; the call ended (or ends) otherwise
        call.pickup_deadline = None
        if call.told is not None:
            late = "%s replied to Invoke of %s (%s) after XIV MCP stopped waiting; the reply is ignored"
            log.warning(late, call.owner, call.tool, call.id)
        elif outcome is not None:
            self._finish(call, outcome)  # Invoke's own result or error, even over a settled outcome
        else:
            call.replied_pending = True
            if call.settled is not None:  # CompleteCall / FailCall came from inside Invoke
                self._finish(call, call.settled)

    async def _invoke_plugin(self, call: _Call, args_json: str) -> CallOutcome | None:
        """Call the plugin's Invoke: how the call ended, or None while it is pending."""
        gate = self._gates_of(call.owner)[0]
        try:
            text = await gate.invoke_func(call.id, call.tool, args_json)
        except IpcPeerLeftError:
            return CallOutcome(error=self._unloaded(call.owner))
        except IpcNotReadyError:  # the real host's words (PluginApi.cs, Invoke)
            name = self._display_name(call.owner)
            return CallOutcome(error=f"{name} registered {quote(call.tool)} but doesn't provide {gate.name}.")
        except IpcHandlerError as exc:
            # T4: an exception in a raw plugin's Invoke reaches the assistant as the real host words it:
            # "{DisplayName} failed: TypeName: message".
            return CallOutcome(error=f"{self._display_name(call.owner)} failed: {exc.message}")
        except IpcError as exc:
            return CallOutcome(error=f"{self._display_name(call.owner)} failed: {type(exc).__name__}: {exc}")
        name = self._display_name(call.owner)  # the real host's PluginReply.Parse(reply, DisplayName)
        if text is not None and not isinstance(text, str):
            return CallOutcome(
                error=f"{name} returned an invalid reply: Invoke returns a JSON string such as "
                f'{{"result": …}}, not {_JSON_KINDS.get(type(text), "another type")}.'
            )
        try:
            reply = decode_invoke_reply(text, name)
        except InvalidDocumentError as exc:
            return CallOutcome(error=str(exc))
        match reply:
            case InvokeResult():
                return CallOutcome(result=reply.result)
            case InvokeError():
                return CallOutcome(error=reply.error)
            case InvokePending():
                call.notes["pending"] = True  # a long-running tool
                return None  # CompleteCall / FailCall finish it (maybe settled it already, from inside Invoke)

    def _finish(self, call: _Call, outcome: CallOutcome) -> None:
        call.finish(outcome)

    def _cancel(self, call: _Call) -> None:
        """The caller gave up (or XIV MCP did, P7): tell the plugin, and give it two minutes to finish."""
        if call.outcome is not None:
            return
        call.cancel_deadline = self._clock.now() + self._grace
        call.pickup_deadline = None
        gate = self._gates_of(call.owner)[1]
        if gate.has_action():
            # Fire and forget: this runs while the caller's scope is being cancelled.
            self._tg.start_soon(self._send_cancel, gate, call.id)

    async def _send_cancel(self, gate: CallGateSubscriber, call_id: str) -> None:
        try:
            await gate.invoke_action(call_id)
        except IpcError as exc:
            log.info("Cancel(%s) did not reach the plugin: %s", call_id, exc)

    def cancel(self, call_id: str) -> bool:
        """Cancel a running call (a job being paused or cancelled)."""
        call = self._calls.get(call_id)
        if call is None or call.outcome is not None or call.cancel_deadline is not None:
            return False
        self._cancel(call)
        return True

    def _report(self, call: _Call, verdict: Verdict, seconds: float) -> None:
        """Drop a finished call and report it (once: `_conclude` and `disposing` may both get here)."""
        if call.reported:
            return
        call.reported = True
        if self._calls.get(call.id) is call:
            del self._calls[call.id]
        if self._on_finished is not None and call.outcome is not None:
            notes = {k: v for k, v in call.notes.items() if v}
            self._on_finished(CallEnd(call.id, call.owner, call.tool, call.outcome, verdict, seconds, notes))

    # --- what plugins send about their calls (CompleteCall, FailCall, ReportProgress) ------

    def _pending_call(self, caller: str, call_id: str, unknown: str) -> _Call:
        """The caller's own call that has not ended, else RefusedError(`unknown`). An ended call
        is unknown even while its effects are still being judged: the real host removes a call
        from its pending calls as Invoke's task returns, so a CompleteCall after the two minutes
        of a Cancel is refused, never answered `{"accepted": false}` (G8). Another plugin's call
        is refused as if unknown (G3, S1)."""
        call = self._calls.get(call_id)
        if call is None or call.owner != caller or call.outcome is not None:
            if call_id and not self._ids.issued_here(call_id):  # B5: for the host's log, not the reply
                log.info("%s named call %r, which this host never started", caller, call_id[:80])
            raise RefusedError(unknown)
        return call

    def complete(self, caller: str, call_id: str, result_json: str | None) -> bool:
        """`CompleteCall`: True if this settled the call, False if it was settled or ended already."""
        call = self._pending_call(caller, call_id, _no_pending_call(call_id))
        try:
            result = _decode_any(result_json) if result_json and result_json.strip() else None
        except msgspec.DecodeError as exc:
            raise InvalidDocumentError(f"resultJson is not valid JSON: {exc}") from None
        return self._settle(call, CallOutcome(result=result))

    def fail(self, caller: str, call_id: str, message: str | None) -> bool:
        """`FailCall`: True if this settled the call, False if it was settled or ended already."""
        call = self._pending_call(caller, call_id, _no_pending_call(call_id))
        return self._settle(call, CallOutcome(error=message if message and message.strip() else CALL_FAILED))

    def _settle(self, call: _Call, outcome: CallOutcome) -> bool:
        """The first CompleteCall / FailCall of a call: it ends the call now, if Invoke has answered
        pending (or is no longer waited for), else once Invoke answers pending."""
        if call.settled is not None or call.outcome is not None:
            return False
        call.settled = outcome
        if call.replied_pending or call.told is not None:
            self._finish(call, outcome)
        return True

    def progress(self, caller: str, call_id: str, text: str | None) -> bool:
        """`ReportProgress`: pass the line on; False when nobody listens (a direct call, or the call
        has ended)."""
        call = self._pending_call(caller, call_id, f"No pending call {quote(call_id)}.")
        text = text or ""
        # S3, after the call is known: the real host answers for an unknown call first
        refuse_control_characters(Gate.REPORT_PROGRESS, "progress line", text)
        line = text[:PROGRESS_LIMIT]
        call.notes["progressCut"] = call.notes.get("progressCut", 0) + (len(text) > PROGRESS_LIMIT)
        if call.on_progress is None or call.outcome is not None or not text.strip():
            return False
        call.on_progress(line)
        return True

    def approval_asked(self, call_id: str, approval: Approval) -> None:
        """The plugin asked the player during the call: tell whoever waits for the call."""
        call = self._calls.get(call_id)
        if call is not None and call.on_approval is not None:
            call.on_approval(approval)

    # --- the host's housekeeping -----------------------------------------------------------

    def plugin_left(self, owner: str) -> None:
        self._gates.pop(owner, None)
        for call in [c for c in self._calls.values() if c.owner == owner]:
            self._finish(call, CallOutcome(error=self._unloaded(owner)))

    def disposing(self) -> None:
        for call in list(self._calls.values()):
            call.finish(CallOutcome(error=UNLOADING))
            self._report(call, unchecked("XIV MCP shut down during the call."), self._clock.now() - call.started)

    def expire_due(self) -> None:
        """Give up on calls whose Invoke did not reply in time (P7), and stop waiting for cancelled
        calls whose two minutes are up (G8)."""
        now = self._clock.now()
        for call in list(self._calls.values()):
            if call.outcome is not None:
                continue
            if call.cancel_deadline is not None:
                if call.cancel_deadline <= now:
                    log.warning(
                        "%s did not finish cancelled call %s of %s within two minutes", call.owner, call.id, call.tool
                    )
                    call.finish(call.told or CallOutcome(error=CANCELLED))
                    call.invoke_scope.cancel()
            elif call.pickup_deadline is not None and call.pickup_deadline <= now:
                self._not_picked_up(call)

    def _not_picked_up(self, call: _Call) -> None:
        """P7: Invoke did not reply in time. Tell the caller the plugin's loop seems blocked, and
        cancel the call (the plugin gets Cancel, then the usual two minutes)."""
        log.warning("%s did not pick up call %s of %s within %g s", call.owner, call.id, call.tool, self._pickup)
        call.told = CallOutcome(
            error=f"{call.owner} did not pick up the call of {call.tool} within {self._pickup:g} seconds: "
            "its framework loop seems blocked. Nothing is known to have run; try again later."
        )
        self._cancel(call)
        call.invoke_scope.cancel()  # its late reply would be ignored: stop waiting for it (B6)
        call.done.set()


def _no_pending_call(call_id: str) -> str:
    """The real host's refusal of CompleteCall / FailCall for a call it does not wait for."""
    return f"No pending call {quote(call_id)} (finished, cancelled or never pending)."
