"""The raw IPC API a process uses: the framework's call gates, across processes.

    async with connect("tcp://127.0.0.1:37520", "MyPlugin") as pi:
        version = await pi.get_ipc_subscriber("XivMcp.ApiVersion").invoke_func()
        prov = pi.get_ipc_provider("MyPlugin.XivMcp.Invoke", params=(str, str, str), returns=str)
        prov.register_func(handler)          # sync or async

A `PluginInterface` keeps one connection to the broker, a mirror of the broker's gate table
(so `has_function()` and `subscription_count` answer without a round trip), and everything this
process provides and subscribes to, which it restores by itself after the broker restarts.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import msgspec

from . import _wire as w
from ._config import (
    DEFAULT_ENDPOINT,
    ENV_BUS,
    HEARTBEAT_INTERVAL,
    MAX_ARGS,
    MAX_PAYLOAD,
    PEER_TIMEOUT,
    check_gate_name,
    check_peer_name,
    ownership_error,
    owns_gate,
)
from ._errors import (
    IpcDisconnectedError,
    IpcError,
    IpcHandlerError,
    IpcLengthMismatchError,
    IpcNotReadyError,
    IpcRefusedError,
    IpcTypeMismatchError,
    error_from_wire,
)
from ._gate import CallGateProvider, CallGateSubscriber, Handler, _Provided, _Slot
from ._signature import check_args, check_result, json_type_name
from ._transport import DealerTransport, TransportBusyError

log = logging.getLogger("xivmcp.bus")

_TaskFunc = Callable[..., Coroutine[Any, Any, None]]

_caller: contextvars.ContextVar[str] = contextvars.ContextVar("xivmcp_bus_caller", default="")

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


def current_caller() -> str:
    """The InternalName of the process whose call is being handled ("" outside a handler)."""
    return _caller.get()


@dataclass(slots=True)
class _Connection:
    """What the broker told us in its last Welcome."""

    broker: str = ""
    heartbeat: float = HEARTBEAT_INTERVAL
    timeout: float = PEER_TIMEOUT
    max_payload: int = MAX_PAYLOAD
    seq: int = 0
    last_heard: float = 0.0
    refused: IpcError | None = None
    ever_connected: bool = False
    listeners: list[Callable[[bool], Any]] = field(default_factory=list)


class PluginInterface:
    """One process's connection to the bus, as `IDalamudPluginInterface` is to the framework."""

    def __init__(self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup) -> None:
        self.endpoint = endpoint
        self.name = name
        self.incarnation = uuid.uuid4().hex
        self._tg = task_group
        self._loop = asyncio.get_running_loop()
        self._transport: DealerTransport | None = None
        self._conn = _Connection()
        self._connected = False
        self._change = anyio.Event()
        self._calls: dict[int, asyncio.Future[w.Result]] = {}
        self._next_call = 0
        self._provided: dict[str, _Provided] = {}
        self._subscriptions: dict[str, list[Handler]] = {}
        self._gates: dict[str, w.GateInfo] = {}
        self._peers: set[str] = set()
        self._peer_listeners: list[Callable[[str, bool, str], Any]] = []
        self._table_waiters: list[asyncio.Future[None]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    # --- public API ------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def peers(self) -> frozenset[str]:
        """InternalNames of the processes on the bus right now, this one included."""
        return frozenset(self._peers)

    def get_ipc_provider(self, name: str, params: Sequence[object] = (), returns: object = None) -> CallGateProvider:
        """The provider side of gate `name`; this process may only provide `<its name>.…`."""
        problem = check_gate_name(name)
        if problem is None and not owns_gate(self.name, name):
            problem = ownership_error(self.name, name)
        if problem is None and len(params) > MAX_ARGS:
            problem = f"{name} declares {len(params)} parameters; a gate takes 0 to {MAX_ARGS}."
        if problem:
            raise IpcRefusedError(problem)
        wire_params = tuple(json_type_name(p) for p in params)
        wire_returns = None if returns is None else json_type_name(returns)
        return CallGateProvider(self, name, wire_params, wire_returns)

    def get_ipc_subscriber(self, name: str) -> CallGateSubscriber:
        """The caller/subscriber side of gate `name` (any gate on the bus)."""
        problem = check_gate_name(name)
        if problem:
            raise IpcRefusedError(problem)
        return CallGateSubscriber(self, name)

    def gates(self) -> list[w.GateInfo]:
        """The gate table as this process last heard it (no round trip)."""
        return sorted(self._gates.values(), key=lambda g: g.name)

    def gate(self, name: str) -> w.GateInfo | None:
        return self._gates.get(name)

    def on_peer_change(self, callback: Callable[[str, bool, str], Any]) -> Callable[[], None]:
        """Call `callback(name, joined, reason)` when a process joins or leaves the bus.

        Returns a function that removes the callback.
        """
        self._peer_listeners.append(callback)
        return lambda: self._peer_listeners.remove(callback)

    def on_connection_change(self, callback: Callable[[bool], Any]) -> Callable[[], None]:
        """Call `callback(connected)` whenever this process connects, reconnects or loses the bus."""
        self._conn.listeners.append(callback)
        return lambda: self._conn.listeners.remove(callback)

    async def wait_connected(self) -> None:
        await self.wait_until(lambda: self._connected)

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        """Wait until `condition()` holds; it is checked after every change of bus state."""
        while not condition():
            await self._change.wait()

    async def wait_peer_gone(self, name: str) -> None:
        await self.wait_until(lambda: name not in self._peers)

    async def list_gates(self) -> list[w.GateInfo]:
        """Ask the broker for its gate table (and refresh the mirror)."""
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._table_waiters.append(waiter)
        self._send([w.encode(w.Snapshot())])
        await waiter
        return self.gates()

    async def flush(self) -> None:
        """Wait until the broker has processed everything this process sent so far."""
        await self.list_gates()

    # --- calls -----------------------------------------------------------------------------

    async def _invoke(self, gate: str, kind: w.Kind, args: tuple[object, ...]) -> Any:
        if len(args) > MAX_ARGS:
            raise IpcLengthMismatchError(
                f"{gate} was called with {len(args)} arguments; a gate takes at most {MAX_ARGS}."
            )
        try:
            payload = _json_encode(args)
        except (TypeError, msgspec.EncodeError) as exc:
            raise IpcTypeMismatchError(f"The arguments for {gate} cannot be sent as JSON: {exc}.") from None
        self._check_size(gate, payload)
        self._next_call += 1
        call_id = self._next_call
        future: asyncio.Future[w.Result] = self._loop.create_future()
        self._calls[call_id] = future
        try:
            self._send([w.encode(w.Call(id=call_id, gate=gate, kind=kind, payload=payload))])
            result = await future
        finally:
            self._calls.pop(call_id, None)
        if result.error is not None:
            e = result.error
            raise error_from_wire(e.kind, e.message, e.type_name, e.detail)
        return _json_decode(result.payload) if result.payload else None

    def _check_size(self, gate: str, payload: bytes) -> None:
        limit = self._conn.max_payload
        if len(payload) > limit:
            raise IpcRefusedError(
                f"The payload for {gate} is {len(payload)} bytes; the bus carries at most {limit} "
                f"bytes ({limit // 1024} KiB). Send less, or start the broker with a larger --max-payload."
            )

    def _send(self, frames: list[bytes]) -> None:
        if not self._connected or self._transport is None:
            raise IpcDisconnectedError(
                f"{self.name} is not connected to the bus at {self.endpoint}; start the broker "
                "(`xivmcp broker` or `xivmcp up`). This process reconnects by itself."
            )
        try:
            self._transport.send(frames)
        except TransportBusyError:
            raise IpcDisconnectedError(
                f"The bus at {self.endpoint} is not taking messages from {self.name} right now "
                "(connection lost, or too much queued); try again shortly."
            ) from None

    def _send_quietly(self, frames: list[bytes]) -> None:
        """Send control traffic (hello, ping, restore) that may fail while disconnected."""
        if self._transport is None or self._closed:
            return  # closed: a task that had already woken up (heartbeat, handler) sends nothing
        try:
            self._transport.send(frames)
        except TransportBusyError:
            pass

    # --- receiving -------------------------------------------------------------------------

    def _on_frames(self, frames: list[bytes]) -> None:
        try:
            msg = w.decode_to_peer(frames[0])
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("%s: ignored a malformed frame from the broker", self.name)
            return
        self._conn.last_heard = self._loop.time()
        match msg:
            case w.Result():
                future = self._calls.get(msg.id)
                if future is not None and not future.done():
                    future.set_result(msg)
            case w.Invoke():
                self._on_invoke(msg, msg.payload)
            case w.Message():
                self._check_seq(msg.seq)
                self._on_message(msg, msg.payload)
            case w.Pong():
                if msg.broker != self._conn.broker:
                    self._lost("the broker restarted")
                    self._hello()
            case w.GateChanged():
                self._check_seq(msg.seq)
                self._set_gate(msg.gate)
            case w.PeerJoined():
                self._check_seq(msg.seq)
                self._peers.add(msg.name)
                self._notify_peer(msg.name, True, "joined")
            case w.PeerLeft():
                self._check_seq(msg.seq)
                self._peers.discard(msg.name)
                self._notify_peer(msg.name, False, msg.reason)
            case w.Welcome():
                self._on_welcome(msg)
            case w.GateTable():
                self._gates = {g.name: g for g in msg.gates}
                self._peers = set(msg.peers)
                self._conn.seq = msg.seq
                waiters, self._table_waiters = self._table_waiters, []
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
                self._changed()
            case w.NeedHello():
                self._lost("the broker no longer knew this process")
                self._hello()
            case w.Refused():
                self._conn.refused = error_from_wire(msg.error.kind, msg.error.message)
                log.error("%s: the bus refused this process: %s", self.name, msg.error.message)
                self._changed()
            case w.Notice():
                log.warning("%s: %s", self.name, msg.error.message)

    def _check_seq(self, seq: int) -> None:
        expected = self._conn.seq + 1
        self._conn.seq = seq
        if seq != expected:
            log.warning("%s: missed %d bus events; asking for the gate table", self.name, seq - expected)
            self._send_quietly([w.encode(w.Snapshot())])

    def _set_gate(self, info: w.GateInfo) -> None:
        if info.func is None and info.action is None and not info.subscribers:
            self._gates.pop(info.name, None)
        else:
            self._gates[info.name] = info
        self._changed()

    def _on_invoke(self, msg: w.Invoke, payload: bytes) -> None:
        provided = self._provided.get(msg.gate)
        slot = None if provided is None else (provided.func if msg.kind == "func" else provided.action)
        if slot is None:
            self._reply_error(msg.id, IpcNotReadyError.for_gate(msg.gate, msg.kind))
            return
        try:
            args = _json_decode(payload) if payload else []
            if not isinstance(args, list):
                raise IpcTypeMismatchError(f"The arguments for {msg.gate} must be a JSON array.")
            check_args(msg.gate, slot.params, args)
        except IpcError as exc:
            self._reply_error(msg.id, exc)
            return
        except msgspec.DecodeError as exc:
            self._reply_error(msg.id, IpcTypeMismatchError(f"The arguments for {msg.gate} are not JSON: {exc}."))
            return
        token = _caller.set(msg.caller)
        try:
            try:
                outcome = slot.handler(*args)
            except Exception as exc:
                self._reply_error(msg.id, _handler_error(msg.gate, exc))
                return
            if inspect.isawaitable(outcome):
                # _start_task keeps the context of now, so the task still sees the caller.
                self._start_task(self._finish_async, msg, slot, outcome)
            else:
                self._reply_value(msg, slot, outcome)
        finally:
            _caller.reset(token)

    async def _finish_async(self, msg: w.Invoke, slot: _Slot, outcome: Awaitable[Any]) -> None:
        try:
            value = await outcome
        except Exception as exc:
            self._reply_error(msg.id, _handler_error(msg.gate, exc))
            return
        self._reply_value(msg, slot, value)

    def _reply_value(self, msg: w.Invoke, slot: _Slot, value: Any) -> None:
        if msg.kind == "action":
            value = None
        try:
            check_result(msg.gate, slot.returns, value)
            body = b"" if value is None else _json_encode(value)
        except IpcError as exc:
            self._reply_error(msg.id, exc)
            return
        except (TypeError, msgspec.EncodeError) as exc:
            self._reply_error(
                msg.id, IpcTypeMismatchError(f"The result of {msg.gate} is not JSON-serialisable: {exc}.")
            )
            return
        self._send_quietly([w.encode(w.Reply(id=msg.id, payload=body))])

    def _reply_error(self, call_id: int, exc: IpcError) -> None:
        info = w.ErrorInfo(kind=type(exc).__name__, message=exc.message)
        if isinstance(exc, IpcHandlerError):
            info = w.ErrorInfo(kind="IpcHandlerError", message=exc.message, type_name=exc.type_name, detail=exc.detail)
        self._send_quietly([w.encode(w.Reply(id=call_id, error=info))])

    def _on_message(self, msg: w.Message, payload: bytes) -> None:
        callbacks = self._subscriptions.get(msg.gate)
        if not callbacks:
            return
        try:
            args = _json_decode(payload) if payload else []
        except msgspec.DecodeError:
            log.warning("%s: dropped a message on %s that is not JSON", self.name, msg.gate)
            return
        if not isinstance(args, list):
            args = [args]
        token = _caller.set(msg.sender)
        try:
            for callback in list(callbacks):
                self._run_callback(callback, args, f"message {msg.gate}")
        finally:
            _caller.reset(token)

    def _run_callback(self, callback: Callable[..., Any], args: Sequence[object], what: str) -> None:
        try:
            outcome = callback(*args)
        except Exception:
            log.exception("%s: a callback for %s raised", self.name, what)
            return
        if inspect.isawaitable(outcome):
            self._start_task(self._await_callback, outcome, what)

    async def _await_callback(self, outcome: Awaitable[Any], what: str) -> None:
        try:
            await outcome
        except Exception:
            log.exception("%s: a callback for %s raised", self.name, what)

    def _start_task(self, func: _TaskFunc, *args: Any) -> None:
        """Run `func(*args)` as a task of this connection, in the current context.

        Frames arrive in a loop callback (the socket's reader), outside any task, where anyio
        cannot tell which event loop runs (unless started by `anyio.run`), so its `start_soon`
        would fail there. The bus needs asyncio anyway (for the socket's descriptor), so this
        creates an asyncio task directly: no extra hop through another task. `_close` cancels
        what is still running; the functions passed here catch their own exceptions.
        """
        task = self._loop.create_task(func(*args), context=contextvars.copy_context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _notify_peer(self, name: str, joined: bool, reason: str) -> None:
        for callback in list(self._peer_listeners):
            self._run_callback(callback, (name, joined, reason), "peer change")
        self._changed()

    # --- connection life cycle -------------------------------------------------------------

    def _changed(self) -> None:
        event, self._change = self._change, anyio.Event()
        event.set()

    def _hello(self) -> None:
        self._send_quietly(
            [w.encode(w.Hello(name=self.name, protocol=w.PROTOCOL_VERSION, incarnation=self.incarnation))]
        )

    def _on_welcome(self, msg: w.Welcome) -> None:
        conn = self._conn
        if self._connected and msg.broker == conn.broker:
            # The answer to a second Hello sent while waiting for the first Welcome: the broker
            # has already forgotten everything this process sent before that Hello, and what it
            # sent since (calls, its restore) comes after it. Take the fresh table, keep the rest.
            self._gates = {g.name: g for g in msg.gates}
            self._peers = set(msg.peers)
            conn.seq = msg.seq
            self._changed()
            return
        if self._connected:
            self._fail_calls("the connection to the broker was renewed during the call")
        reconnect = conn.ever_connected
        conn.broker, conn.heartbeat, conn.timeout = msg.broker, msg.heartbeat, msg.timeout
        conn.max_payload, conn.seq, conn.refused, conn.ever_connected = msg.max_payload, msg.seq, None, True
        self._gates = {g.name: g for g in msg.gates}
        self._peers = set(msg.peers)
        self._connected = True
        for gate, provided in self._provided.items():
            slots: tuple[tuple[w.Kind, _Slot | None], ...] = (("func", provided.func), ("action", provided.action))
            for kind, slot in slots:
                if slot is not None:
                    self._send_quietly(
                        [w.encode(w.Provide(gate=gate, kind=kind, params=slot.params, returns=slot.returns))]
                    )
        for gate, callbacks in self._subscriptions.items():
            for _ in callbacks:
                self._send_quietly([w.encode(w.Subscribe(gate=gate))])
        log.info("%s %s the bus at %s", self.name, "reconnected to" if reconnect else "connected to", self.endpoint)
        for callback in list(conn.listeners):
            self._run_callback(callback, (True,), "connection change")
        self._changed()

    def _lost(self, why: str) -> None:
        if not self._connected:
            return
        self._connected = False
        log.warning("%s lost the bus at %s: %s", self.name, self.endpoint, why)
        self._fail_calls(why)
        for callback in list(self._conn.listeners):
            self._run_callback(callback, (False,), "connection change")
        self._changed()

    def _fail_calls(self, why: str) -> None:
        calls, self._calls = self._calls, {}
        for future in calls.values():
            if not future.done():
                future.set_exception(IpcDisconnectedError(f"The call was lost: {why}."))

    async def _heartbeat(self) -> None:
        ping = w.encode(w.Ping())
        while True:
            await anyio.sleep(self._conn.heartbeat if self._connected else min(0.1, self._conn.heartbeat))
            if self._connected:
                if self._loop.time() - self._conn.last_heard > self._conn.timeout:
                    self._lost(f"no answer from the broker for {self._conn.timeout:.1f} s")
                    self._hello()
                else:
                    self._send_quietly([ping])
            else:
                self._hello()

    async def _start(self, connect_timeout: float) -> None:
        self._transport = DealerTransport(self.endpoint, self._on_frames, MAX_PAYLOAD * 2 + 65536)
        self._tg.start_soon(self._heartbeat, name="bus heartbeat")

        def answered() -> bool:
            return self._connected or self._conn.refused is not None

        # With IMMEDIATE set, a Hello sent before TCP has connected is dropped, so say it again
        # soon and then less often: a local broker answers in a few milliseconds.
        retry = 0.005
        with anyio.move_on_after(connect_timeout):
            while not answered():
                self._hello()
                with anyio.move_on_after(retry):
                    await self.wait_until(answered)
                retry = min(retry * 2, 0.25)
        if self._conn.refused is not None:
            raise self._conn.refused
        if not self._connected:
            raise IpcDisconnectedError(
                f"No broker answered at {self.endpoint} within {connect_timeout:g} s. Start one with "
                "`xivmcp broker` (or `xivmcp up`), or point XIVMCP_BUS / --bus at the right endpoint."
            )

    def _close(self) -> None:
        if self._closed:
            return
        if self._connected:
            self._send_quietly([w.encode(w.Bye())])
        self._closed = True
        self._connected = False
        for task in list(self._tasks):
            task.cancel()
        self._fail_calls(f"{self.name} closed its connection")
        if self._transport is not None:
            self._transport.close()
        self._changed()


def _handler_error(gate: str, exc: Exception) -> IpcError:
    if isinstance(exc, IpcError):
        return exc
    type_name = type(exc).__name__
    detail = str(exc)
    return IpcHandlerError(f"{type_name}: {detail}" if detail else type_name, type_name, detail)


def resolve_endpoint(endpoint: str | None) -> str:
    return endpoint or os.environ.get(ENV_BUS) or DEFAULT_ENDPOINT


@asynccontextmanager
async def connect(
    endpoint: str | None = None, name: str | None = None, *, connect_timeout: float = 5.0
) -> AsyncIterator[PluginInterface]:
    """Connect to the bus as InternalName `name`; `endpoint` defaults to $XIVMCP_BUS, then
    tcp://127.0.0.1:37520. Raises `IpcRefusedError` if the name is taken or malformed, and
    `IpcDisconnectedError` if no broker answers within `connect_timeout` seconds."""
    if not name:
        raise IpcRefusedError("connect() needs the process's InternalName, such as connect(name='MyPlugin').")
    problem = check_peer_name(name)
    if problem:
        raise IpcRefusedError(problem)
    error: BaseException | None = None
    try:
        async with anyio.create_task_group() as tg:
            pi = PluginInterface(resolve_endpoint(endpoint), name, tg)
            try:
                await pi._start(connect_timeout)
                yield pi
            finally:
                pi._close()
                tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The task group wraps what `_start` or the caller's block raised; callers expect the
        # error itself (an IpcRefusedError, their own exception), not a group of one.
        if len(group.exceptions) != 1:
            raise
        error = group.exceptions[0]
    if error is not None:
        raise error  # outside the except block, so its context stays what it was
