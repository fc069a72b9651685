"""The raw IPC API a process uses: the framework's call gates, across processes.

    async with connect("tcp://127.0.0.1:37520", "MyPlugin") as pi:
        version = await pi.get_ipc_subscriber("XivMcp.ApiVersion").invoke_func()
        prov = pi.get_ipc_provider("MyPlugin.XivMcp.Invoke", params=(str, str, str), returns=str)
        prov.register_func(handler)          # sync or async

A `PluginInterface` keeps one connection to the broker, a mirror of the broker's gate table
(so `has_function()` and `subscription_count` answer without a round trip), and everything this
process provides and subscribes to, which it restores by itself after the broker restarts.

This module composes the parts and drives the connection's life cycle: it dispatches every
frame from the broker to the part it concerns, connects, takes the Welcome and restores what
this process provides and subscribes to, and closes. The parts, one module each, are mixins on
one object, so the hot path makes no extra hop:

- `_peer_link`: identity, transport, connection state, callbacks and tasks;
- `_peer_calls`: the calls this process makes (and gives up), and the broker's statistics;
- `_peer_liveness`: Hello, heartbeats, the liveness beacon thread, waiting for a busy name;
- `_peer_serve`: the Invokes this process answers, for the gates it provides;
- `_peer_messages`: the message callbacks this process subscribed;
- `_peer_mirror`: the gate table and peer list as this process last heard them.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio
import msgspec

from . import _wire as w
from ._config import (
    DEFAULT_ENDPOINT,
    ENV_BUS,
    MAX_ARGS,
    MAX_GATES_PER_PEER,
    MAX_PAYLOAD,
    MAX_SUBSCRIPTIONS_PER_PEER,
    check_gate_name,
    check_peer_name,
    ownership_error,
    owns_gate,
)
from ._errors import IpcDisconnectedError, IpcRefusedError, error_from_wire
from ._gate import CallGateProvider, CallGateSubscriber, _Slot
from ._peer_link import log
from ._peer_liveness import _Liveness
from ._peer_messages import _Messages
from ._peer_mirror import _Mirror
from ._peer_serve import _Serving
from ._signature import json_type_name
from ._transport import DealerTransport

if TYPE_CHECKING:
    from typing_extensions import Buffer

_monotonic = time.monotonic


class PluginInterface(_Mirror, _Messages, _Serving, _Liveness):
    """One process's connection to the bus, as `IDalamudPluginInterface` is to the framework."""

    # --- public API ------------------------------------------------------------------------

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

    # --- receiving -------------------------------------------------------------------------

    def _on_frame(self, frame: Buffer) -> None:
        try:
            msg = w.decode_peer_frame(frame)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("%s: ignored a malformed frame from the broker", self.name)
            return
        self._conn.last_heard = _monotonic()
        if isinstance(msg, list):
            for each in msg:
                self._dispatch(each)
        else:
            self._dispatch(msg)

    def _dispatch(self, msg: w.ToPeer) -> None:
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
                self._on_table(msg)
            case w.NeedHello():
                self._lost("the broker no longer knew this process")
                self._hello()
            case w.Refused():
                previous = self._conn.refused
                self._conn.refused = error_from_wire(msg.error.kind, msg.error.message)
                if previous is None:  # once per refusal, not once per Hello retried after it
                    log.error("%s: the bus refused this process: %s", self.name, msg.error.message)
                self._changed()
            case w.Notice():
                log.warning("%s: %s", self.name, msg.error.message)
            case w.StatsReply():
                self._on_stats(msg)
            case w.NameBusy():
                self._on_name_busy(msg)

    # --- connection life cycle -------------------------------------------------------------

    def _on_welcome(self, msg: w.Welcome) -> None:
        conn = self._conn
        if self._connected and msg.broker == conn.broker:
            # The answer to a second Hello sent while waiting for the first Welcome: the broker
            # has already forgotten everything this process sent before that Hello, and what it
            # sent since (calls, its restore) comes after it. Take the fresh table, keep the rest.
            self._take_table(msg.gates, msg.peers, msg.seq)
            self._changed()
            return
        if self._connected:
            self._fail_calls("the connection to the broker was renewed during the call")
        reconnect = conn.ever_connected
        conn.broker, conn.heartbeat, conn.timeout = msg.broker, msg.heartbeat, msg.timeout
        conn.max_payload, conn.refused, conn.ever_connected = msg.max_payload, None, True
        conn.max_gates = msg.max_gates or MAX_GATES_PER_PEER  # 0: a broker from before the limits
        conn.max_subscriptions = msg.max_subscriptions or MAX_SUBSCRIPTIONS_PER_PEER
        self._welcomed(msg.heartbeat)
        self._take_table(msg.gates, msg.peers, msg.seq)
        self._connected = True
        if self._transport is not None:
            self._transport.pack = w.batches if msg.batch else None
        for gate, provided in self._provided.items():
            slots: tuple[tuple[w.Kind, _Slot | None], ...] = (("func", provided.func), ("action", provided.action))
            for kind, slot in slots:
                if slot is not None:
                    self._send_quietly(
                        w.encode(w.Provide(gate=gate, kind=kind, params=slot.params, returns=slot.returns))
                    )
        for gate, callbacks in self._subscriptions.items():
            for _ in callbacks:
                self._send_quietly(w.encode(w.Subscribe(gate=gate)))
        log.info("%s %s the bus at %s", self.name, "reconnected to" if reconnect else "connected to", self.endpoint)
        for callback in list(conn.listeners):
            self._run_callback(callback, (True,), "connection change")
        self._changed()

    async def _start(self, connect_timeout: float) -> None:
        self._transport = DealerTransport(self.endpoint, self._on_frame, MAX_PAYLOAD * 2 + 65536, self._on_unsent)
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
        busy = self._conn.name_busy
        if not self._connected and busy is not None:
            raise IpcRefusedError(
                f"The InternalName {self.name!r} was still held by another process when the "
                f"connect_timeout of {connect_timeout:g} s ran out (the bus last heard from it "
                f"{busy.last_heard:.1f} s before). If that process still runs, stop it or use "
                "another name; if it died, try again, or pass a longer connect_timeout."
            )
        if not self._connected:
            raise IpcDisconnectedError(
                f"No broker answered at {self.endpoint} within {connect_timeout:g} s. Start one with "
                "`xivmcp broker` (or `xivmcp up`), or point XIVMCP_BUS / --bus at the right endpoint."
            )

    def _close(self) -> None:
        if self._closed:
            return
        if self._connected:
            self._send_quietly(w.encode(w.Bye()))
        self._closed = True
        self._connected = False
        for task in list(self._tasks):
            task.cancel()
        self._fail_calls(f"{self.name} closed its connection")
        self._stop_beacon()
        if self._transport is not None:
            self._transport.close()
        self._changed()


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
