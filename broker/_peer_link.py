"""A peer's link to the broker: the state every other part of a `PluginInterface` stands on.

`Link` holds the process's identity (name, incarnation), the transport it sends on (opened by
the `Connector` it is given: ZeroMQ by default, memory in tests), what the broker said in its
last Welcome, the connected flag, and the change event that `wait_until` watches. It also runs
what the link's events trigger: callbacks and tasks, in the context of the process whose call
or message is being handled (`current_caller`).

The other parts (`_peer_calls`, `_peer_serve`, `_peer_messages`, `_peer_mirror`,
`_peer_liveness`) each hold a `Link` and their own state; `_peer.py` composes them and drives
the connection's life cycle.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

import anyio

from ._config import HEARTBEAT_INTERVAL, MAX_GATES_PER_PEER, MAX_PAYLOAD, MAX_SUBSCRIPTIONS_PER_PEER, PEER_TIMEOUT
from ._errors import IpcDisconnectedError, IpcError, IpcRefusedError
from ._transport_base import Connector, OnFrame, PeerTransport, TransportBusyError

log = logging.getLogger("xivmcp.bus")

Handler = Callable[..., Any]
"""A gate handler or message callback: called with the gate's arguments; may be async."""

_TaskFunc = Callable[..., Coroutine[Any, Any, None]]

_caller: contextvars.ContextVar[str] = contextvars.ContextVar("xivmcp_bus_caller", default="")

MAX_FRAME = MAX_PAYLOAD * 2 + 65536
"""The transport's ceiling on a received frame: far above any payload the broker lets through."""


def current_caller() -> str:
    """The InternalName of the process whose call is being handled ("" outside a handler)."""
    return _caller.get()


class Link:
    """Identity, transport and connection state of one process on the bus."""

    def __init__(self, endpoint: str, name: str, connector: Connector) -> None:
        self.endpoint = endpoint
        self.name = name
        self.incarnation = uuid.uuid4().hex
        self.connector = connector
        self.loop = asyncio.get_running_loop()
        self.transport: PeerTransport | None = None
        self.connected = False
        self.closed = False
        self.ever_connected = False
        self.refused: IpcError | None = None
        """Why the bus refused this process (its name taken, another protocol), until a Welcome."""
        self.last_heard = 0.0
        """`time.monotonic()` when a frame last came on the transport."""
        # What the broker said in its last Welcome:
        self.broker = ""
        self.heartbeat = HEARTBEAT_INTERVAL
        self.timeout = PEER_TIMEOUT
        self.max_payload = MAX_PAYLOAD
        self.max_gates = MAX_GATES_PER_PEER
        self.max_subscriptions = MAX_SUBSCRIPTIONS_PER_PEER
        self._listeners: list[Callable[[bool], Any]] = []
        self._change = anyio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    def open(self, on_frame: OnFrame) -> None:
        """Open the transport; every frame the broker sends goes to `on_frame`."""
        self.transport = self.connector.open(self.endpoint, on_frame, MAX_FRAME, self._on_unsent, self._on_refused)

    def _on_refused(self, why: str) -> None:
        """The broker refused the connection in its handshake (S4): `connect` raises `why` at once."""
        if not self.closed:
            self.refused = IpcRefusedError(why)
            self.changed()

    def close(self) -> None:
        """Closed: no more sends, the tasks cancelled, the transport closed."""
        self.closed = True
        self.connected = False
        for task in list(self._tasks):
            task.cancel()
        if self.transport is not None:
            self.transport.close()

    # --- state changes ---------------------------------------------------------------------

    def on_connection_change(self, callback: Callable[[bool], Any]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def tell_connection(self, connected: bool) -> None:
        """Run every connection-change callback, then wake the waiters."""
        for callback in list(self._listeners):
            self.run_callback(callback, (connected,), "connection change")
        self.changed()

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            await self._change.wait()

    def changed(self) -> None:
        """Something a `wait_until` condition may read changed."""
        event, self._change = self._change, anyio.Event()
        event.set()

    # --- sending ---------------------------------------------------------------------------

    def check_size(self, gate: str, payload: bytes) -> None:
        limit = self.max_payload
        if len(payload) > limit:
            raise IpcRefusedError(
                f"The payload for {gate} is {len(payload)} bytes; the bus carries at most {limit} "
                f"bytes ({limit // 1024} KiB). Send less, or start the broker with a larger --max-payload."
            )

    def send(self, frame: bytes, waiter: asyncio.Future[Any] | None = None) -> None:
        """Send `frame` (now, or with the rest of this loop turn's: `DealerTransport.send`);
        raise at once if the bus takes no messages. `waiter`, if given, fails with
        IpcDisconnectedError if the frame was queued and then could not be sent."""
        transport = self.transport
        if not self.connected or transport is None:
            raise IpcDisconnectedError(
                f"{self.name} is not connected to the bus at {self.endpoint}; start the broker "
                "(`xivmcp broker` or `xivmcp up`). This process reconnects by itself."
            )
        try:
            transport.send(frame, waiter)
        except TransportBusyError:
            raise IpcDisconnectedError(self._not_taken()) from None

    def send_quietly(self, frame: bytes) -> None:
        """Send control traffic (hello, ping, restore, replies) that may fail while disconnected."""
        if self.transport is None or self.closed:
            return  # closed: a task that had already woken up (heartbeat, handler) sends nothing
        try:
            self.transport.send(frame)
        except TransportBusyError:
            pass

    def _not_taken(self) -> str:
        return (
            f"The bus at {self.endpoint} is not taking messages from {self.name} right now "
            "(connection lost, or too much queued); try again shortly."
        )

    def _on_unsent(self, waiters: list[asyncio.Future[Any]]) -> None:
        """The transport could not send, when the turn ended, frames that callers wait on."""
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(IpcDisconnectedError(self._not_taken()))

    # --- callbacks and tasks ---------------------------------------------------------------

    def run_callback(self, callback: Callable[..., Any], args: Sequence[object], what: str) -> None:
        try:
            outcome = callback(*args)
        except Exception:
            log.exception("%s: a callback for %s raised", self.name, what)
            return
        if inspect.isawaitable(outcome):
            self.start_task(self._await_callback, outcome, what)

    async def _await_callback(self, outcome: Awaitable[Any], what: str) -> None:
        try:
            await outcome
        except Exception:
            log.exception("%s: a callback for %s raised", self.name, what)

    def start_task(self, func: _TaskFunc, *args: Any) -> None:
        """Run `func(*args)` as a task of this connection, in the current context.

        Frames arrive in a loop callback (the socket's reader), outside any task, where anyio
        cannot tell which event loop runs (unless started by `anyio.run`), so its `start_soon`
        would fail there. The bus needs asyncio anyway (for the socket's descriptor), so this
        creates an asyncio task directly: no extra hop through another task. `close` cancels
        what is still running; the functions passed here catch their own exceptions.
        """
        task = self.loop.create_task(func(*args), context=contextvars.copy_context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
