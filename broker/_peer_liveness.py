"""A process's liveness: proving to the broker it is alive, and judging whether the broker is.

`Keepalive` says Hello (and again, after a restart, a silence, or while its name is busy),
sends heartbeats on the main transport, and runs the process's liveness beacon (opened by the
link's connector: `_transport.LivenessBeacon` on ZeroMQ): a thread with a socket of its own
that says Alive every heartbeat whatever the event loop does. So a process whose loop is
blocked for seconds (a sync handler in `time.sleep`, CPU-bound Python: the GIL lets the thread
run) keeps its name, gates and subscriptions at the broker, and its callers wait (B1: busy is
not dead). The beacon is a thread rather than ZMTP heartbeats because those cannot tell the
broker WHICH routing identity died without the draft ZMQ_ROUTER_NOTIFY option, which the
bundled libzmq lacks.

The process's own judgement that the broker is lost uses the newest of the last frame heard on
the main transport and the beacon's last answer: a loop that wakes after seconds finds the
beacon heard the broker meanwhile, and does not fail its own calls. An answer saying the broker
does not know this process (`AliveAck(known=False)`: the broker restarted, or gave this process
up while it was frozen) makes it say Hello again, as NeedHello does. Losing the broker is the
`PluginInterface`'s to handle (it fails the calls, tells the listeners): `Keepalive` is given
that as `lost`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import anyio

from . import _wire as w
from ._peer_link import Link, log
from ._transport_base import Beacon

if TYPE_CHECKING:
    from typing_extensions import Buffer

_monotonic: Final = time.monotonic


class Keepalive:
    """Hello, heartbeats and the liveness beacon of one process."""

    def __init__(self, link: Link, lost: Callable[[str], None]) -> None:
        self._link = link
        self._lost = lost
        self._beacon: Beacon | None = None
        self._beacon_opened = False
        self._alive_acked = 0.0
        """`time.monotonic()` of the beacon's last answer from a broker that knew this process."""
        self._welcomed_at = 0.0
        """`time.monotonic()` of the latest Welcome: an Alive sent before it may predate our Hello."""
        self.name_busy: w.NameBusy | None = None
        """The broker's last NameBusy: our name is held by a process it is not yet sure is gone."""
        self._name_busy_warned = False
        self.heartbeats = 0
        """Heartbeat turns so far (tests wait for one to pass)."""

    def hello(self) -> None:
        link = self._link
        if link.transport is not None:
            link.transport.pack = None  # whoever answers may be a broker that reads no batches
        hello = w.Hello(name=link.name, protocol=w.PROTOCOL_VERSION, incarnation=link.incarnation, batch=True)
        link.send_quietly(w.encode(hello))

    def again(self, why: str) -> None:
        """The broker restarted or forgot this process: lose the connection and say Hello again."""
        self._lost(why)
        self.hello()

    def _broker_silent(self) -> bool:
        """True if neither the transport nor the beacon has heard the broker within the timeout."""
        link = self._link
        heard = max(link.last_heard, self._alive_acked)
        return _monotonic() - heard > link.timeout

    async def run(self) -> None:
        """The heartbeat, for as long as the connection lives."""
        link = self._link
        ping = w.encode(w.Ping())
        while True:
            if link.connected:
                pause = link.heartbeat
            elif link.refused is not None and link.ever_connected:
                pause = link.heartbeat  # another live process took our name: ask, but calmly
            else:
                pause = min(0.1, link.heartbeat)
            await anyio.sleep(pause)
            if link.connected:
                if self._broker_silent():
                    self.again(f"no answer from the broker for {link.timeout:.1f} s")
                else:
                    link.send_quietly(ping)
            else:
                self.hello()
            self.heartbeats += 1
            link.changed()

    # --- the beacon ------------------------------------------------------------------------

    def welcomed(self, heartbeat: float) -> None:
        """A Welcome arrived: start the beacon (once), and forget the name contest."""
        self._welcomed_at = _monotonic()
        self.name_busy = None
        self._name_busy_warned = False
        if not self._beacon_opened:
            self._beacon_opened = True
            link = self._link
            self._beacon = link.connector.beacon(
                link.endpoint, self._alive_frame, self._on_beacon_reply, heartbeat, f"xivmcp-bus-alive-{link.name}"
            )
        elif self._beacon is not None:
            self._beacon.interval = heartbeat

    def _alive_frame(self) -> bytes:  # in the beacon's thread
        link = self._link
        return w.encode(w.Alive(name=link.name, incarnation=link.incarnation, stamp=_monotonic()))

    def _on_beacon_reply(self, frame: Buffer) -> None:
        """In the beacon's thread: note an answer, or hand a "not known" to the loop."""
        msg = w.decode_to_peer(frame)
        if not isinstance(msg, w.AliveAck):
            return
        if msg.known:
            self._alive_acked = _monotonic()  # a float attribute: atomic under the GIL
        elif msg.stamp >= self._welcomed_at:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the process is exiting
                self._link.loop.call_soon_threadsafe(self._on_forgotten, msg.stamp)

    def _on_forgotten(self, stamp: float) -> None:
        # Checked again on the loop: a Welcome may have come since the thread looked.
        link = self._link
        if link.closed or not link.connected or stamp < self._welcomed_at:
            return
        self.again("the broker no longer knew this process (it restarted, or gave this process up)")

    def stop(self) -> None:
        if self._beacon is not None:
            self._beacon.close()

    # --- a name another process holds ------------------------------------------------------

    def on_name_busy(self, msg: w.NameBusy) -> None:
        self.name_busy = msg
        if not self._name_busy_warned:
            self._name_busy_warned = True
            if msg.reason:
                log.warning("%s: %s", self._link.name, msg.reason)
                return
            log.warning(
                "%s: waiting for the InternalName %r: a process that held it was last heard %.1f s ago; "
                "the bus frees the name within %.1f s if that process is gone",
                self._link.name,
                msg.name,
                msg.last_heard,
                msg.frees_within,
            )
