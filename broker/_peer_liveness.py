"""A process's liveness: proving to the broker it is alive, and judging whether the broker is.

`_Liveness` says Hello (and again, after a restart, a silence, or while its name is busy),
sends heartbeats on the main socket, and runs the process's liveness beacon
(`_transport.LivenessBeacon`): a thread with a socket of its own that says Alive every
heartbeat whatever the event loop does. So a process whose loop is blocked for seconds (a sync
handler in `time.sleep`, CPU-bound Python: the GIL lets the thread run) keeps its name, gates
and subscriptions at the broker, and its callers wait (B1: busy is not dead). The beacon is a
thread rather than ZMTP heartbeats because those cannot tell the broker WHICH routing identity
died without the draft ZMQ_ROUTER_NOTIFY option, which the bundled libzmq lacks.

The process's own judgement that the broker is lost uses the newest of the last frame heard on
the main socket and the beacon's last answer: a loop that wakes after seconds finds the beacon
heard the broker meanwhile, and does not fail its own calls. An answer saying the broker does
not know this process (`AliveAck(known=False)`: the broker restarted, or gave this process up
while it was frozen) makes it say Hello again, as NeedHello does.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Final

import anyio
import anyio.abc

from . import _wire as w
from ._peer_calls import _Calls
from ._peer_link import log
from ._transport import LivenessBeacon

if TYPE_CHECKING:
    from typing_extensions import Buffer

_monotonic: Final = time.monotonic


class _Liveness(_Calls):
    """Hello, heartbeats and the liveness beacon of one process."""

    def __init__(self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup) -> None:
        super().__init__(endpoint, name, task_group)
        self._beacon: LivenessBeacon | None = None
        self._alive_acked = 0.0
        """`time.monotonic()` of the beacon's last answer from a broker that knew this process."""
        self._welcomed_at = 0.0
        """`time.monotonic()` of the latest Welcome: an Alive sent before it may predate our Hello."""
        self._name_busy_warned = False
        self._heartbeats = 0
        """Heartbeat turns so far (tests wait for one to pass)."""

    def _hello(self) -> None:
        if self._transport is not None:
            self._transport.pack = None  # whoever answers may be a broker that reads no batches
        hello = w.Hello(name=self.name, protocol=w.PROTOCOL_VERSION, incarnation=self.incarnation, batch=True)
        self._send_quietly(w.encode(hello))

    def _lost(self, why: str) -> None:
        if not self._connected:
            return
        self._connected = False
        log.warning("%s lost the bus at %s: %s", self.name, self.endpoint, why)
        self._fail_calls(why)
        for callback in list(self._conn.listeners):
            self._run_callback(callback, (False,), "connection change")
        self._changed()

    def _broker_silent(self) -> bool:
        """True if neither the main socket nor the beacon has heard the broker within the timeout."""
        heard = max(self._conn.last_heard, self._alive_acked)
        return _monotonic() - heard > self._conn.timeout

    async def _heartbeat(self) -> None:
        ping = w.encode(w.Ping())
        while True:
            conn = self._conn
            if self._connected:
                pause = conn.heartbeat
            elif conn.refused is not None and conn.ever_connected:
                pause = conn.heartbeat  # another live process took our name: ask, but calmly
            else:
                pause = min(0.1, conn.heartbeat)
            await anyio.sleep(pause)
            if self._connected:
                if self._broker_silent():
                    self._lost(f"no answer from the broker for {self._conn.timeout:.1f} s")
                    self._hello()
                else:
                    self._send_quietly(ping)
            else:
                self._hello()
            self._heartbeats += 1
            self._changed()

    # --- the beacon ------------------------------------------------------------------------

    def _welcomed(self, heartbeat: float) -> None:
        """A Welcome arrived: start the beacon (once), and forget the name contest."""
        self._welcomed_at = _monotonic()
        self._conn.name_busy = None
        self._name_busy_warned = False
        if self._beacon is None:
            self._beacon = LivenessBeacon(
                self.endpoint, self._alive_frame, self._on_beacon_reply, heartbeat, f"xivmcp-bus-alive-{self.name}"
            )
        else:
            self._beacon.interval = heartbeat

    def _alive_frame(self) -> bytes:  # in the beacon's thread
        return w.encode(w.Alive(name=self.name, incarnation=self.incarnation, stamp=_monotonic()))

    def _on_beacon_reply(self, frame: Buffer) -> None:
        """In the beacon's thread: note an answer, or hand a "not known" to the loop."""
        msg = w.decode_to_peer(frame)
        if not isinstance(msg, w.AliveAck):
            return
        if msg.known:
            self._alive_acked = _monotonic()  # a float attribute: atomic under the GIL
        elif msg.stamp >= self._welcomed_at:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the process is exiting
                self._loop.call_soon_threadsafe(self._on_forgotten, msg.stamp)

    def _on_forgotten(self, stamp: float) -> None:
        # Checked again on the loop: a Welcome may have come since the thread looked.
        if self._closed or not self._connected or stamp < self._welcomed_at:
            return
        self._lost("the broker no longer knew this process (it restarted, or gave this process up)")
        self._hello()

    def _stop_beacon(self) -> None:
        if self._beacon is not None:
            self._beacon.close()

    # --- a name another process holds ------------------------------------------------------

    def _on_name_busy(self, msg: w.NameBusy) -> None:
        self._conn.name_busy = msg
        if not self._name_busy_warned:
            self._name_busy_warned = True
            log.warning(
                "%s: waiting for the InternalName %r: a process that held it was last heard %.1f s ago; "
                "the bus frees the name within %.1f s if that process is gone",
                self.name,
                msg.name,
                msg.last_heard,
                msg.frees_within,
            )
