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
  peer; one whose connection is gone cannot be sent to, and `unreachable` removes it at once:
  a killed process is noticed in milliseconds rather than at the next sweep (B2). ZeroMQ's own
  heartbeats cannot tell which routing identity died without the draft ZMQ_ROUTER_NOTIFY,
  which the bundled libzmq lacks; a failed send to that identity can.

`Liveness` keeps no table of its own: it reads when each peer was last seen (`Peer.last_seen`,
refreshed by every frame) and has the sessions (`_router_peers`) remove the ones it finds gone.
"""

from __future__ import annotations

import hmac

from . import _wire as w
from ._config import MAX_INCARNATION, MAX_SWEEP, BrokerConfig
from ._router_peers import Sessions
from ._router_tables import Outbox, Outgoing, PeerTable


class Liveness:
    """Alive, the sweep of silent peers, and probes of peers whose connection may be gone."""

    def __init__(
        self, config: BrokerConfig, incarnation: str, peers: PeerTable, sessions: Sessions, out: Outbox
    ) -> None:
        self._config = config
        self._incarnation = incarnation
        self._peers = peers
        self._sessions = sessions
        self._out = out

    def alive(self, identity: bytes, msg: w.Alive, now: float) -> None:
        holder = self._peers.by_name.get(msg.name)
        incarnation = msg.incarnation
        known = (
            holder is not None
            and len(incarnation) <= MAX_INCARNATION
            and hmac.compare_digest(holder.incarnation.encode(), incarnation.encode())
        )
        if holder is not None and known:
            holder.last_seen = now
        self._out.send(identity, w.AliveAck(broker=self._incarnation, known=known, stamp=msg.stamp))

    def sweep(self, now: float) -> None:
        """Remove peers not heard from within the timeout; forget contests nobody waits for."""
        limit = now - self._config.peer_timeout
        silent = [p for p in self._peers.by_identity.values() if p.last_seen < limit]
        for peer in silent[:MAX_SWEEP]:  # each is announced to every peer: the rest at the next sweep
            quiet = now - peer.last_seen
            self._sessions.remove(peer, f"{peer.name} stopped answering (no heartbeat for {quiet:.1f} s)")
        self._sessions.forget_contests(now)

    def probe(self) -> list[Outgoing]:
        """A probe for every peer: the transport saw a connection close and cannot say whose."""
        probe_of = self._out.probe_of
        return [probe_of(peer) for peer in self._peers.by_identity.values()]

    def unreachable(self, item: Outgoing, gone: bool) -> None:
        """The probe `item` could not be sent. If the connection is `gone`, its peer is removed;
        a probe to a slow peer proves nothing (a blocked loop fills its queue) and is dropped."""
        peer = self._peers.by_identity.get(item.identity)
        if peer is not None and gone:
            self._sessions.remove(peer, f"{peer.name}'s connection closed (its process exited or was killed)")
