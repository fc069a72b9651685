"""The raw IPC API a process uses: the framework's call gates, across processes.

    async with connect("tcp://127.0.0.1:37520", "MyPlugin") as pi:
        version = await pi.get_ipc_subscriber("XivMcp.ApiVersion").invoke_func()
        prov = pi.get_ipc_provider("MyPlugin.XivMcp.Invoke", params=(str, str, str), returns=str)
        prov.register_func(handler, callers=("XivMcp",))   # sync or async; others are refused

A `PluginInterface` keeps one connection to the broker, a mirror of the broker's gate table
(so `has_function()` and `subscription_count` answer without a round trip), and everything this
process provides and subscribes to, which it restores by itself after the broker restarts.

It owns one part per concern, each with its own state, and hands every frame from the broker to
the part it concerns:

- `Link` (`_peer_link`): identity, transport, connection state, callbacks and tasks;
- `OutgoingCalls` (`_peer_calls`): the calls this process makes (and gives up), and the
  broker's statistics;
- `Serving` (`_peer_serve`): the gates this process provides, and the Invokes it answers;
- `Subscriptions` (`_peer_messages`): the message callbacks this process subscribed;
- `Mirror` (`_peer_mirror`): the gate table and peer list as this process last heard them;
- `Keepalive` (`_peer_liveness`): Hello, heartbeats, the liveness beacon, a busy name.

This module drives the connection's life cycle across them: it connects, takes the Welcome
and restores what this process provides and subscribes to, notices a lost broker, and closes.
The transport comes from a `Connector` (`_transport_base`): ZeroMQ for `connect`, memory for
tests (`_memory`).
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import msgspec

from . import _wire as w
from ._config import (
    DEFAULT_ENDPOINT,
    ENV_BUS,
    MAX_ARGS,
    MAX_GATES_PER_PEER,
    MAX_SUBSCRIPTIONS_PER_PEER,
    check_gate_name,
    check_peer_name,
    ownership_error,
    owns_gate,
)
from ._errors import IpcDisconnectedError, IpcRefusedError, error_from_wire
from ._gate import CallGateProvider, CallGateSubscriber
from ._peer_calls import OutgoingCalls
from ._peer_link import Link, log
from ._peer_liveness import Keepalive
from ._peer_messages import Subscriptions
from ._peer_mirror import Mirror
from ._peer_serve import Serving
from ._signature import json_type_name
from ._transport import ZMQ, ZmqConnector
from ._transport_base import Connector

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from ._keys import CurveClient

_monotonic = time.monotonic


class PluginInterface:
    """One process's connection to the bus, as `IDalamudPluginInterface` is to the framework.

    `connect()` makes one and closes it; a process then gets the two sides of any gate from it
    (`get_ipc_provider`, `get_ipc_subscriber`) and keeps them across broker restarts.
    """

    def __init__(
        self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup, *, connector: Connector = ZMQ
    ) -> None:
        self._tg = task_group
        self._link = link = Link(endpoint, name, connector)
        self._calls = OutgoingCalls(link)
        self._serving = Serving(link)
        self._subscriptions = Subscriptions(link)
        self._mirror = Mirror(link)
        self._keepalive = Keepalive(link, self._lost)

    # --- public API ------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        """The broker's address this process connects to."""
        return self._link.endpoint

    @property
    def name(self) -> str:
        """This process's InternalName on the bus: its gates are named `<name>.…`."""
        return self._link.name

    @property
    def incarnation(self) -> str:
        """A random id of this connection, so the bus tells a restarted process from the one before."""
        return self._link.incarnation

    @property
    def connected(self) -> bool:
        """Whether the broker has welcomed this process and not been lost since."""
        return self._link.connected

    @property
    def peers(self) -> frozenset[str]:
        """InternalNames of the processes on the bus right now, this one included."""
        return self._mirror.peers

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
        return CallGateProvider(
            name, wire_params, wire_returns, serving=self._serving, link=self._link, mirror=self._mirror
        )

    def get_ipc_subscriber(self, name: str) -> CallGateSubscriber:
        """The caller/subscriber side of gate `name` (any gate on the bus)."""
        problem = check_gate_name(name)
        if problem:
            raise IpcRefusedError(problem)
        return CallGateSubscriber(
            name, calls=self._calls, subscriptions=self._subscriptions, mirror=self._mirror, link=self._link
        )

    def on_connection_change(self, callback: Callable[[bool], Any]) -> Callable[[], None]:
        """Call `callback(connected)` whenever this process connects, reconnects or loses the bus."""
        return self._link.on_connection_change(callback)

    def on_peer_change(self, callback: Callable[[str, bool, str], Any]) -> Callable[[], None]:
        """Call `callback(name, joined, reason)` when a process joins or leaves the bus.

        Returns a function that removes the callback.
        """
        return self._mirror.on_peer_change(callback)

    async def wait_connected(self) -> None:
        """Wait until this process is connected again (after a broker restart, say)."""
        await self._link.wait_until(lambda: self._link.connected)

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        """Wait until `condition()` holds; it is checked after every change of bus state."""
        await self._link.wait_until(condition)

    async def wait_peer_gone(self, name: str) -> None:
        """Wait until no process named `name` is on the bus."""
        await self._link.wait_until(lambda: not self._mirror.has_peer(name))

    def gates(self) -> list[w.GateInfo]:
        """The gate table as this process last heard it (no round trip)."""
        return self._mirror.gates()

    def gate(self, name: str) -> w.GateInfo | None:
        """Gate `name` as this process last heard of it (no round trip), or None if the bus has no such gate."""
        return self._mirror.gate(name)

    async def list_gates(self) -> list[w.GateInfo]:
        """Ask the broker for its gate table (and refresh the mirror)."""
        return await self._mirror.list_gates()

    async def flush(self) -> None:
        """Wait until the broker has processed everything this process sent so far."""
        await self._mirror.list_gates()

    async def broker_stats(self) -> w.BrokerStats:
        """What the broker holds right now: peers, gates, calls waiting, subscriptions (for tests,
        benchmarks and diagnostics; one round trip)."""
        return await self._calls.broker_stats()

    # --- receiving -------------------------------------------------------------------------

    def _on_frame(self, frame: Buffer) -> None:
        try:
            msg = w.decode_peer_frame(frame)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("%s: ignored a malformed frame from the broker", self.name)
            return
        self._link.last_heard = _monotonic()
        if isinstance(msg, list):
            for each in msg:
                self._dispatch(each)
        else:
            self._dispatch(msg)

    def _dispatch(self, msg: w.ToPeer) -> None:
        match msg:
            case w.Result():
                self._calls.on_result(msg)
            case w.Invoke():
                self._serving.on_invoke(msg)
            case w.Message():
                self._mirror.check_seq(msg.seq)
                self._subscriptions.on_message(msg)
            case w.Pong():
                if msg.mark:  # the broker asks what this process has read: this far (S2)
                    self._link.send_quietly(w.encode(w.Ping(mark=msg.mark)))
                if msg.broker != self._link.broker:
                    self._keepalive.again("the broker restarted")
            case w.GateChanged():
                self._mirror.on_gate_changed(msg)
            case w.PeerJoined():
                self._mirror.on_peer_joined(msg)
            case w.PeerLeft():
                self._mirror.on_peer_left(msg)
            case w.Welcome():
                self._on_welcome(msg)
            case w.GateTable():
                self._mirror.on_table(msg)
            case w.NeedHello():
                self._keepalive.again("the broker no longer knew this process")
            case w.Refused():
                link = self._link
                previous = link.refused
                link.refused = error_from_wire(msg.error.kind, msg.error.message)
                if previous is None:  # once per refusal, not once per Hello retried after it
                    log.error("%s: the bus refused this process: %s", self.name, msg.error.message)
                link.changed()
            case w.Notice():
                self._on_notice(msg)
            case w.StatsReply():
                self._calls.on_stats(msg)
            case w.NameBusy():
                self._keepalive.on_name_busy(msg)

    def _on_notice(self, msg: w.Notice) -> None:
        error = error_from_wire(msg.error.kind, msg.error.message)
        if msg.about == "snapshot":
            self._mirror.refused(error)
        elif msg.about == "stats":
            self._calls.stats_refused(error)
        elif msg.about == "queued":
            # The broker cut this process off: it read too slowly (S2). Say why, and join again.
            self._keepalive.again(msg.error.message)
            return
        log.warning("%s: %s", self.name, msg.error.message)

    # --- connection life cycle -------------------------------------------------------------

    def _on_welcome(self, msg: w.Welcome) -> None:
        link = self._link
        if link.connected and msg.broker == link.broker:
            # The answer to a second Hello sent while waiting for the first Welcome: the broker
            # has already forgotten everything this process sent before that Hello, and what it
            # sent since (calls, its restore) comes after it. Take the fresh table, keep the rest.
            self._mirror.take_table(msg.gates, msg.peers, msg.seq)
            link.changed()
            return
        if link.connected:
            self._calls.fail_all("the connection to the broker was renewed during the call")
        reconnect = link.ever_connected
        link.broker, link.heartbeat, link.timeout = msg.broker, msg.heartbeat, msg.timeout
        link.max_payload, link.refused, link.ever_connected = msg.max_payload, None, True
        link.max_gates = msg.max_gates or MAX_GATES_PER_PEER  # 0: a broker from before the limits
        link.max_subscriptions = msg.max_subscriptions or MAX_SUBSCRIPTIONS_PER_PEER
        self._keepalive.welcomed(msg.heartbeat)
        self._mirror.take_table(msg.gates, msg.peers, msg.seq)
        link.connected = True
        if link.transport is not None:
            link.transport.pack = w.batches if msg.batch else None
            link.transport.settled()  # the handshake went through: stop watching it (S4)
        self._serving.restore()
        self._subscriptions.restore()
        log.info("%s %s the bus at %s", self.name, "reconnected to" if reconnect else "connected to", self.endpoint)
        link.tell_connection(True)

    def _lost(self, why: str) -> None:
        link = self._link
        if not link.connected:
            return
        link.connected = False
        log.warning("%s lost the bus at %s: %s", self.name, self.endpoint, why)
        self._calls.fail_all(why)
        link.tell_connection(False)

    async def _start(self, connect_timeout: float) -> None:
        link = self._link
        link.open(self._on_frame)
        self._tg.start_soon(self._keepalive.run, name="bus heartbeat")

        def answered() -> bool:
            return link.connected or link.refused is not None

        # With IMMEDIATE set, a Hello sent before TCP has connected is dropped, so say it again
        # soon and then less often: a local broker answers in a few milliseconds.
        retry = 0.005
        with anyio.move_on_after(connect_timeout):
            while not answered():
                self._keepalive.hello()
                with anyio.move_on_after(retry):
                    await link.wait_until(answered)
                retry = min(retry * 2, 0.25)
        if link.refused is not None:
            raise link.refused
        busy = self._keepalive.name_busy
        if not link.connected and busy is not None and busy.reason:
            raise IpcRefusedError(
                f"{busy.reason} The connect_timeout of {connect_timeout:g} s ran out first: try again, "
                "or pass a longer connect_timeout."
            )
        if not link.connected and busy is not None:
            raise IpcRefusedError(
                f"The InternalName {self.name!r} was still held by another process when the "
                f"connect_timeout of {connect_timeout:g} s ran out (the bus last heard from it "
                f"{busy.last_heard:.1f} s before). If that process still runs, stop it or use "
                "another name; if it died, try again, or pass a longer connect_timeout."
            )
        if not link.connected:
            raise IpcDisconnectedError(
                f"No broker answered at {self.endpoint} within {connect_timeout:g} s. Start one with "
                "`xivmcp broker` (or `xivmcp up`), or point XIVMCP_BUS / --bus at the right endpoint."
            )

    def _close(self) -> None:
        link = self._link
        if link.closed:
            return
        if link.connected:
            link.send_quietly(w.encode(w.Bye()))
        self._keepalive.stop()
        link.close()
        self._calls.fail_all(f"{self.name} closed its connection")
        link.changed()


def resolve_endpoint(endpoint: str | None) -> str:
    """The endpoint to connect to: `endpoint` if given, else $XIVMCP_BUS, else `DEFAULT_ENDPOINT`."""
    return endpoint or os.environ.get(ENV_BUS) or DEFAULT_ENDPOINT


@asynccontextmanager
async def connect(
    endpoint: str | None = None,
    name: str | None = None,
    *,
    connect_timeout: float = 5.0,
    curve: CurveClient | None = None,
) -> AsyncIterator[PluginInterface]:
    """Connect to the bus as InternalName `name`; `endpoint` defaults to $XIVMCP_BUS, then
    tcp://127.0.0.1:37520. With `curve`, join a CURVE bus as that client pair (S4). Raises
    `IpcRefusedError` if the name is taken or malformed, or at once if the broker refuses the
    handshake (a CURVE bus and no key, a key it does not admit or one made for another bus; a
    key for a plain bus), and `IpcDisconnectedError` if no broker answers within
    `connect_timeout` seconds."""
    connector = ZMQ if curve is None else ZmqConnector(curve)
    async with connect_with(connector, resolve_endpoint(endpoint), name, connect_timeout=connect_timeout) as pi:
        yield pi


@asynccontextmanager
async def connect_with(
    connector: Connector, endpoint: str, name: str | None, *, connect_timeout: float = 5.0
) -> AsyncIterator[PluginInterface]:
    """`connect`, on the transport `connector` opens (`_transport.ZMQ`, or `_memory`'s in tests)."""
    if not name:
        raise IpcRefusedError("connect() needs the process's InternalName, such as connect(name='MyPlugin').")
    problem = check_peer_name(name)
    if problem:
        raise IpcRefusedError(problem)
    error: BaseException | None = None
    try:
        async with anyio.create_task_group() as tg:
            pi = PluginInterface(endpoint, name, tg, connector=connector)
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
