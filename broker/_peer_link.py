"""A peer's link to the broker: the state every part of a `PluginInterface` stands on.

`_Link` holds the process's identity (name, incarnation), the transport it sends on, what the
broker said in its last Welcome (`_Connection`), the connected flag and the change event that
`wait_until` watches. It also runs what the link's events trigger: callbacks and tasks, in the
context of the process whose call or message is being handled (`current_caller`).

The other parts are mixins on top of it (`_peer_calls`, `_peer_serve`, `_peer_messages`,
`_peer_mirror`), so the hot path stays on one object; `_peer.py` composes them and drives the
connection's life cycle.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from . import _wire as w
from ._config import HEARTBEAT_INTERVAL, MAX_GATES_PER_PEER, MAX_PAYLOAD, MAX_SUBSCRIPTIONS_PER_PEER, PEER_TIMEOUT
from ._errors import IpcDisconnectedError, IpcError, IpcRefusedError
from ._transport import DealerTransport, TransportBusyError

log = logging.getLogger("xivmcp.bus")

_TaskFunc = Callable[..., Coroutine[Any, Any, None]]

_caller: contextvars.ContextVar[str] = contextvars.ContextVar("xivmcp_bus_caller", default="")


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
    max_gates: int = MAX_GATES_PER_PEER
    max_subscriptions: int = MAX_SUBSCRIPTIONS_PER_PEER
    seq: int = 0
    last_heard: float = 0.0
    """`time.monotonic()` when a frame last came on the main socket."""
    refused: IpcError | None = None
    name_busy: w.NameBusy | None = None
    """The broker's last NameBusy: our name is held by a process it is not yet sure is gone."""
    ever_connected: bool = False
    listeners: list[Callable[[bool], Any]] = field(default_factory=list)


class _Link:
    """Identity, transport and connection state of one process on the bus."""

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
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def connected(self) -> bool:
        return self._connected

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

    def _changed(self) -> None:
        event, self._change = self._change, anyio.Event()
        event.set()

    # --- sending ---------------------------------------------------------------------------

    def _check_size(self, gate: str, payload: bytes) -> None:
        limit = self._conn.max_payload
        if len(payload) > limit:
            raise IpcRefusedError(
                f"The payload for {gate} is {len(payload)} bytes; the bus carries at most {limit} "
                f"bytes ({limit // 1024} KiB). Send less, or start the broker with a larger --max-payload."
            )

    def _send(self, frame: bytes, waiter: asyncio.Future[Any] | None = None) -> None:
        """Send `frame` (now, or with the rest of this loop turn's: `DealerTransport.send`);
        raise at once if the bus takes no messages. `waiter`, if given, fails with
        IpcDisconnectedError if the frame was queued and then could not be sent."""
        if not self._connected or self._transport is None:
            raise IpcDisconnectedError(
                f"{self.name} is not connected to the bus at {self.endpoint}; start the broker "
                "(`xivmcp broker` or `xivmcp up`). This process reconnects by itself."
            )
        try:
            self._transport.send(frame, waiter)
        except TransportBusyError:
            raise IpcDisconnectedError(self._not_taken()) from None

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

    def _send_quietly(self, frame: bytes) -> None:
        """Send control traffic (hello, ping, restore) that may fail while disconnected."""
        if self._transport is None or self._closed:
            return  # closed: a task that had already woken up (heartbeat, handler) sends nothing
        try:
            self._transport.send(frame)
        except TransportBusyError:
            pass

    # --- callbacks and tasks ---------------------------------------------------------------

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
