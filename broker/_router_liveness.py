"""Liveness at the broker: is a peer busy, frozen or gone (B1, B2)?

Three signals, each for a case the others miss:

* `Alive`, from a process's liveness beacon: a thread of that process with its own socket, so a
  peer whose event loop is blocked for seconds (a sync handler, a long computation) still
  refreshes `last_seen`, keeps its name and gates, and its calls wait (B1: busy is not dead).
  The beacon's identity is not the peer's, so the Alive names the process and proves it with the
  incarnation only that process and the broker know; it is answered with `AliveAck`, whose
  `known=False` tells a process the broker forgot it (restart, sweep) so it says Hello again.
* the sweep: a peer not heard from for `peer_timeout` is removed (a frozen process, SIGSTOP).
* probes: when the transport sees a connection close, `probe()` sends a harmless frame to every
  peer; one whose connection is gone cannot be sent to, and `undeliverable` removes it at once:
  a killed process is noticed in milliseconds rather than at the next sweep (B2). ZeroMQ's own
  heartbeats cannot tell which routing identity died without the draft ZMQ_ROUTER_NOTIFY,
  which the bundled libzmq lacks; a failed send to that identity can.
"""

from __future__ import annotations

import hmac

from . import _wire as w
from ._router_peers import _Peers
from ._router_state import Outgoing


class _Liveness(_Peers):
    """Alive, the sweep of silent peers, and probes of peers whose connection may be gone."""

    def sweep(self, now: float) -> list[Outgoing]:
        """Remove peers not heard from within the timeout; forget contests nobody waits for."""
        self._out = []
        limit = now - self.config.peer_timeout
        for peer in [p for p in self._by_identity.values() if p.last_seen < limit]:
            silent = now - peer.last_seen
            self._remove_peer(peer, f"{peer.name} stopped answering (no heartbeat for {silent:.1f} s)")
        if self._contests:
            # A newcomer that gave up (or got its answer) asks no more; its contest would
            # otherwise stay. Twice the window and a second is past any live contest.
            forget = now - 2 * self.config.peer_timeout - 1.0
            for key in [k for k, began in self._contests.items() if began < forget]:
                del self._contests[key]
        return self._out

    def probe(self) -> list[Outgoing]:
        """A probe for every peer: the transport saw a connection close and cannot say whose."""
        return [self._probe_of(peer) for peer in self._by_identity.values()]

    def undeliverable(self, item: Outgoing, why: str, gone: bool = True) -> list[Outgoing]:
        """The transport could not send `item`: the connection is `gone`, or the peer is too slow.

        A probe that finds the connection gone removes its peer; a probe to a slow peer proves
        nothing (a blocked loop fills its queue) and is dropped. An Invoke fails its call."""
        self._out = []
        if item.probe:
            peer = self._by_identity.get(item.identity)
            if peer is not None and gone:
                self._remove_peer(peer, f"{peer.name}'s connection closed (its process exited or was killed)")
        elif item.call_id:
            self._undeliverable_invoke(item, why)
        return self._out

    def _alive(self, identity: bytes, msg: w.Alive, now: float) -> None:
        holder = self._by_name.get(msg.name)
        known = holder is not None and hmac.compare_digest(holder.incarnation.encode(), msg.incarnation.encode())
        if holder is not None and known:
            holder.last_seen = now
        self._send(identity, w.AliveAck(broker=self.incarnation, known=known, stamp=msg.stamp))
