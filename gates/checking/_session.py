"""The player's side of a check: enabling the plugin, calling its tools as the assistant would, reading the audit log.

    async with CheckSession.open(system, quick_limit=1.0, stop_wait=3.0) as session:
        plugin = await session.wait_registered(process, record, "plugins_sample.myplugin")
        await session.enable(plugin)
        seen = await session.call(plugin, "myplugin_farm", {"kills": 3})

Every call goes through the player's `call` command, so the host's gate, its side-effect checks
and its audit line apply as they would to an assistant's call. A call is sent from a bus peer of
its own (the "app"): a call still running after the quick limit is cancelled the way an app
that gives up cancels it, by that peer leaving the bus (the plugin gets Cancel and its two
minutes). Approvals a call waits for reach that peer as events and are approved once.

The player's protocol has no command that waits for a registration to settle or for a cancelled
call to end, so those two waits ask the host again every `POLL_SECONDS`, within a bound.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

import anyio
import anyio.abc
import msgspec

import broker
from gates.contract import HOST_NAME, Answer, CapabilityId, Risk, find_capability
from gates.host import CANCEL_GRACE, AuditKind
from gates.player import (
    AdvanceClock,
    AnswerApproval,
    ApprovalEvent,
    CallReply,
    CallTool,
    Command,
    ConsentPlugin,
    EnablePlugin,
    HostStats,
    LiftSuspension,
    ListPlugins,
    PlayerClient,
    PlayerError,
    PluginCard,
    ReadAudit,
    SetMode,
    decode_call_event,
)
from gates.testing import START_TIMEOUT, Process, XivMcpSystem

from ._call_line import CallLine
from ._definitions import OfferedDefinition, RegistrationRecord

__all__ = [
    "LONG_RUNNING_WAIT",
    "POLL_SECONDS",
    "SETTLE_SECONDS",
    "CallSeen",
    "CheckAbortedError",
    "CheckSession",
    "PluginStartError",
]

POLL_SECONDS: Final = 0.05
"""How often the check asks the host again while it waits for what the protocol cannot wait for."""
SETTLE_SECONDS: Final = 1.0
"""A plugin says nowhere that it has registered everything; the kit sends its tools one after
another at start, so a registration unchanged this long is taken as complete."""
LONG_RUNNING_WAIT: Final = 0.25
"""Seconds a call of a tool already seen to be long-running runs before the check cancels it."""
COMMAND_TIMEOUT: Final = 20.0
"""Seconds one player command may take (a loaded 2-core CI machine is slow; a quick one takes ms)."""
AUDIT_LINES: Final = 50
PAGE: Final = 100
_READ_GAME: Final = CapabilityId.READ_GAME.value

R = TypeVar("R", bound=msgspec.Struct)


class PluginStartError(Exception):
    """Raised when the plugin's process ends, or registers nothing, before the check can begin (exit 2)."""


class CheckAbortedError(Exception):
    """Raised when the private system refuses what the check asks of it, so the check cannot go on
    (a bug of the check or of the host, not of the plugin)."""


@dataclass(slots=True)
class CallSeen:
    """One call as the check saw it: the assistant's answer, the wall time, the host's audit line."""

    tool: str
    arguments: dict[str, Any]
    reply: CallReply | None
    """The player's `call` reply; None when the check cancelled the call."""
    seconds: float
    """Wall time until the answer, or until the cancelled call ended."""
    audit: CallLine | None = None
    """The call's audit line; None when the host never ran it (a refusal of its own)."""
    suspension: str | None = None
    """The reason XIV MCP suspended the plugin after this call, if it did."""
    cancelled: bool = False
    ignored_cancel: bool = False
    """Cancelled, and still running when the check moved the host's clock past the two minutes."""
    known_long_running: bool = False
    """An earlier call showed the tool long-running (this one may be cancelled before it answered)."""

    @property
    def error(self) -> str | None:
        if self.reply is not None:
            return str(self.reply.error) if self.reply.is_error else None
        return None if self.audit is None or self.audit.ok else self.audit.error or ""

    @property
    def long_running(self) -> bool:
        return self.known_long_running or (self.audit is not None and self.audit.pending)


@dataclass(slots=True)
class _App:
    """The peer a call is sent from, standing in for an AI app: connected in a task of its own,
    which leaves the bus when `leave` is set."""

    name: str
    player: PlayerClient | None = None
    leave: anyio.Event = field(default_factory=anyio.Event)
    left: anyio.Event = field(default_factory=anyio.Event)

    @property
    def events_gate(self) -> str:
        return f"{self.name}.CallEvents"


@dataclass(slots=True)
class _Sending:
    reply: CallReply | None = None
    failure: str | None = None
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)


class CheckSession:
    """The player of a private system, and the apps that call the plugin's tools."""

    def __init__(
        self,
        system: XivMcpSystem,
        pi: broker.PluginInterface,
        task_group: anyio.abc.TaskGroup,
        *,
        quick_limit: float,
        stop_wait: float,
    ) -> None:
        self._system = system
        self._pi = pi
        self._player = PlayerClient.for_data_dir(pi, system.data_dir)
        self._tg = task_group
        self.quick_limit = quick_limit
        self.stop_wait = stop_wait
        self._app: _App | None = None
        self._apps_made = 0
        self._seen_calls: set[str | None] = set()
        """The calls whose audit line a `CallSeen` has had (by callId)."""

    @classmethod
    @asynccontextmanager
    async def open(cls, system: XivMcpSystem, *, quick_limit: float, stop_wait: float) -> AsyncIterator[CheckSession]:
        async with system.connect("XivMcpCheck") as pi, anyio.create_task_group() as tg:
            session = cls(system, pi, tg, quick_limit=quick_limit, stop_wait=stop_wait)
            try:
                yield session
            finally:
                await session._leave_app()
                tg.cancel_scope.cancel()

    @property
    def pi(self) -> broker.PluginInterface:
        """The check's own peer (`XivMcpCheck`): the player, and a process that is not XIV MCP."""
        return self._pi

    async def send(self, command: Command[R]) -> R:
        """One player command; its reply, or CheckAbortedError with the host's message."""
        try:
            with anyio.fail_after(COMMAND_TIMEOUT):
                return await self._player.send(command)
        except PlayerError as exc:
            raise CheckAbortedError(f"XIV MCP refused the check's {exc.command!r}: {exc.message}") from None

    # --- the plugin, from start to enabled --------------------------------------------------

    async def wait_registered(self, process: Process, record: Path | None, label: str) -> str:
        """The plugin's InternalName, once its registration (and what was refused) settled; `label`
        names the plugin as the command line did, for the error when it never registers."""
        deadline = time.monotonic() + START_TIMEOUT
        last: object = None
        quiet_since = time.monotonic()
        while True:
            if process.returncode is not None:
                raise PluginStartError(
                    f"{label} ended (exit {process.returncode}) before registering a tool{_stderr_tail(process)}"
                )
            cards = [c for c in (await self.send(ListPlugins())).plugins if c.name != HOST_NAME and c.tools]
            records = read_records(record)
            now = time.monotonic()
            progress = ([(c.name, c.digest) for c in cards], len(records))
            if progress != last:
                last, quiet_since = progress, now
            elif (cards or records) and now - quiet_since >= SETTLE_SECONDS:
                return cards[0].name if cards else records[0].owner
            if now > deadline:
                raise PluginStartError(
                    f"{label} registered no tool within {START_TIMEOUT:g} s. It is given the bus as --bus "
                    "ENDPOINT and $XIVMCP_BUS: does it connect there and register on start (and on XivMcp.Ready)?"
                )
            await anyio.sleep(POLL_SECONDS)

    async def card(self, plugin: str) -> PluginCard | None:
        cards = (await self.send(ListPlugins(plugin=plugin))).plugins
        return cards[0] if cards else None

    async def enable(self, plugin: str, *, again: bool = False) -> None:
        """Enable (`again`: consent again to) the registration shown now, and allow what it declares:
        every capability its tools name (a critical one can only be asked; its approvals are answered)."""
        card = await self.card(plugin)
        shown = card.digest if card is not None else ""  # the registration shown now
        decide = ConsentPlugin if again else EnablePlugin
        await self.send(decide(plugin=plugin, digest=shown))
        card = await self.card(plugin)
        tools = card.tools if card is not None else []
        declared = sorted({c for tool in tools for c in tool.capabilities if c != _READ_GAME})
        for capability in declared:
            found = find_capability(capability)
            mode = "ask" if found is not None and found.risk is Risk.CRITICAL else "allow"
            await self.send(SetMode(plugin=plugin, target=capability, mode=mode))

    async def lift(self, plugin: str) -> None:
        await self.send(LiftSuspension(plugin=plugin))

    async def offered(self, plugin: str) -> list[OfferedDefinition]:
        """The plugin's tools as `search_tools` offers them to the assistant."""
        found: list[OfferedDefinition] = []
        while True:
            arguments = {"toolset": plugin, "limit": PAGE, "offset": len(found)}
            reply = await self.send(CallTool(tool="search_tools", arguments=arguments))
            if reply.is_error:
                raise CheckAbortedError(f"search_tools failed: {reply.error}")
            page = reply.result
            found += msgspec.convert(page["items"], list[OfferedDefinition], strict=False)
            if not page["items"] or len(found) >= page["total"]:
                return found

    # --- calls ----------------------------------------------------------------------------

    async def call(self, plugin: str, tool: str, arguments: dict[str, Any], *, long_running: bool = False) -> CallSeen:
        """Call `tool` as the assistant would; a call still running after the quick limit is
        cancelled, given `stop_wait` seconds to stop, then the host's two minutes (its clock moved).

        A tool an earlier call showed `long_running` is cancelled after `LONG_RUNNING_WAIT`: what
        such a call shows is how it stops, and the quick limit again would show nothing new."""
        app = await self._the_app()
        sending = _Sending()
        started = time.monotonic()
        self._tg.start_soon(self._send, app, sending, tool, arguments)
        with anyio.move_on_after(LONG_RUNNING_WAIT if long_running else self.quick_limit):
            await sending.done.wait()
        if sending.done.is_set():
            if sending.failure is not None:
                raise CheckAbortedError(sending.failure)
            seen = CallSeen(tool, arguments, sending.reply, time.monotonic() - started, known_long_running=long_running)
        else:
            sending.scope.cancel()
            await self._leave_app()  # as an app that gives up: XIV MCP sends Cancel(callId)
            ignored = not await self._wait_calls_ended(self.stop_wait)
            if ignored:
                await self.send(AdvanceClock(seconds=CANCEL_GRACE + 1))
                if not await self._wait_calls_ended(COMMAND_TIMEOUT):
                    raise CheckAbortedError(f"XIV MCP still runs the call of {tool} after its two minutes were up.")
            seconds = time.monotonic() - started
            seen = CallSeen(
                tool, arguments, None, seconds, cancelled=True, ignored_cancel=ignored, known_long_running=long_running
            )
        seen.audit, seen.suspension = await self._audit_of(plugin, tool)
        return seen

    async def _send(self, app: _App, sending: _Sending, tool: str, arguments: dict[str, Any]) -> None:
        assert app.player is not None  # connected before `_the_app` returns it
        with sending.scope:
            try:  # bounded by `call`, which gives up on it after the quick limit
                sending.reply = await app.player.send(CallTool(tool=tool, arguments=arguments, notify=app.events_gate))
            except PlayerError as exc:  # refused before it ran (no such tool now): the assistant reads that too
                sending.reply = CallReply(is_error=True, error=exc.message)
            except broker.IpcError as exc:
                sending.failure = f"The call of {tool} did not reach XIV MCP: {exc}"
            sending.done.set()

    async def _the_app(self) -> _App:
        if self._app is None:
            self._apps_made += 1
            app = _App(f"XivMcpCheckApp{self._apps_made}")
            await self._tg.start(self._run_app, app)
            self._app = app
        return self._app

    async def _run_app(self, app: _App, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        try:
            async with self._system.connect(app.name) as pi:
                pi.get_ipc_provider(app.events_gate, params=(str,)).register_action(
                    self._on_event, callers=(HOST_NAME,)
                )
                await pi.flush()  # the broker holds the gate before the host is told to use it
                app.player = PlayerClient.for_data_dir(pi, self._system.data_dir)
                task_status.started()
                await app.leave.wait()
        finally:
            app.left.set()

    async def _leave_app(self) -> None:
        app, self._app = self._app, None
        if app is not None:
            app.leave.set()
            await app.left.wait()

    def _on_event(self, event_json: str) -> None:
        """A call's event: approve each approval it waits for, once (the check allows what is declared)."""
        event = decode_call_event(event_json)
        if isinstance(event, ApprovalEvent):
            self._tg.start_soon(self._approve, event.approval_id)

    async def _approve(self, approval_id: str) -> None:
        with contextlib.suppress(CheckAbortedError):  # answered or withdrawn meanwhile
            await self.send(AnswerApproval(approval_id=approval_id, answer=Answer.APPROVE_ONCE))

    async def _wait_calls_ended(self, within: float) -> bool:
        """Whether XIV MCP has no call under way within `within` seconds (a cancelled one ended)."""
        with anyio.move_on_after(within):
            while True:
                if not (await self.send(HostStats())).calls:
                    return True
                await anyio.sleep(POLL_SECONDS)
        return False

    async def _audit_of(self, plugin: str, tool: str) -> tuple[CallLine | None, str | None]:
        """The newest audit line of a call of `tool` not seen yet, and the suspension it caused."""
        entries = (await self.send(ReadAudit(plugin=plugin, limit=AUDIT_LINES))).entries
        for entry in reversed(entries):
            line = CallLine.of(entry) if entry.kind == AuditKind.CALL and entry.tool == tool else None
            if line is not None and line.call_id not in self._seen_calls:
                self._seen_calls.add(line.call_id)
                reasons = [
                    e.details.get("reason")
                    for e in entries
                    if e.kind == AuditKind.SUSPENSION and e.details.get("callId") == line.call_id
                ]
                return line, (str(reasons[0]) if reasons else None)
        return None, None


def read_records(record: Path | None) -> list[RegistrationRecord]:
    """The RegisterTool calls written down in the plugin's process so far (none for a command line)."""
    if record is None or not record.exists():
        return []
    lines = record.read_text(encoding="utf-8").splitlines()
    complete = [line for line in lines if line.endswith("}")]  # the last may be half written
    return [msgspec.json.decode(line, type=RegistrationRecord) for line in complete]


def _stderr_tail(process: Process) -> str:
    if process.log is None:
        return "."
    with contextlib.suppress(OSError):
        lines = [line for line in process.log.read_text(errors="replace").splitlines() if line.strip()]
        if lines:
            return f": {lines[-1].strip()}"
    return "."
