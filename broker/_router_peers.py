"""Peer bookkeeping and liveness: who is on the bus, under which name, and whether it still is.

`_Peers` binds a ROUTER identity to an InternalName on Hello (refusing a name another process
holds, moving a known process to its new connection, starting a fresh session), announces
joins and departures to every other peer, and removes a peer on Bye or when `sweep` finds it
silent past the timeout. Removing a peer withdraws its gates and subscriptions and fails the
calls it was serving, so this part sits on top of the gates and the calls.
"""

from __future__ import annotations

import logging

from . import _wire as w
from ._config import check_peer_name
from ._router_calls import _Calls
from ._router_gates import _Gates
from ._router_state import Outgoing, _err, _Gate, _Peer

log = logging.getLogger("xivmcp.broker")


class _Peers(_Gates, _Calls):
    """Sessions of the peers: Hello, Bye, and the sweep of silent ones."""

    @property
    def peers(self) -> list[str]:
        return sorted(self._by_name)

    def sweep(self, now: float) -> list[Outgoing]:
        """Remove peers not heard from within the timeout."""
        self._out = []
        limit = now - self.config.peer_timeout
        for peer in [p for p in self._by_identity.values() if p.last_seen < limit]:
            silent = now - peer.last_seen
            self._remove_peer(peer, f"{peer.name} stopped answering (no heartbeat for {silent:.1f} s)")
        return self._out

    def _hello(self, identity: bytes, peer: _Peer | None, msg: w.Hello, now: float) -> None:
        if msg.protocol != w.PROTOCOL_VERSION:
            self._refuse(
                identity,
                f"This broker speaks bus protocol {w.PROTOCOL_VERSION}, the peer {msg.protocol}. "
                "Install the same xivmcp-bus version for both.",
            )
            return
        problem = check_peer_name(msg.name)
        if problem:
            self._refuse(identity, problem)
            return
        holder = self._by_name.get(msg.name)
        old_identity = identity
        if holder is not None and holder.identity != identity:
            if holder.incarnation != msg.incarnation:
                self._refuse(
                    identity,
                    f"The InternalName {msg.name!r} is already connected from another process "
                    f"(last heard {now - holder.last_seen:.1f} s ago). Each process needs its own "
                    f"name; if that process died, the bus notices within "
                    f"{self.config.peer_timeout:.0f} s and the name is free again.",
                )
                return
            # The same process on a new connection: move its state to the new identity.
            old_identity = holder.identity
            del self._by_identity[holder.identity]
            holder.identity = identity
            self._by_identity[identity] = holder
            peer = holder
        elif peer is not None and peer.name != msg.name:
            self._remove_peer(peer, f"{peer.name} reconnected as {msg.name}")
            peer = None
        joined = peer is None
        changed: list[_Gate] = []
        if peer is None:
            peer = _Peer(name=msg.name, identity=identity, incarnation=msg.incarnation, last_seen=now)
            self._by_identity[identity] = peer
            self._by_name[msg.name] = peer
        else:
            changed = self._new_session(peer, old_identity)
        peer.last_seen = now
        peer.seq = 0
        self._send(
            identity,
            w.Welcome(
                name=msg.name,
                broker=self.incarnation,
                heartbeat=self.config.heartbeat_interval,
                timeout=self.config.peer_timeout,
                max_payload=self.config.max_payload,
                gates=tuple(g.info() for g in self._gates.values()),
                peers=tuple(self._by_name),
                seq=0,
            ),
        )
        for gate in changed:
            self._gate_changed(gate)
        if joined:
            for other in self._by_identity.values():
                if other is not peer:
                    other.seq += 1
                    self._send(other.identity, w.PeerJoined(name=peer.name, seq=other.seq))

    def _new_session(self, peer: _Peer, old_identity: bytes) -> list[_Gate]:
        """A known process said Hello again. After the Welcome it fails its own calls in flight
        and re-sends every Provide and Subscribe it holds, so forget the old session's calls and
        subscriptions (else they would count twice). Returns the gates whose subscribers changed."""
        for call_id, pending in list(self._pending.items()):
            if pending.caller == old_identity:
                del self._pending[call_id]  # its caller gave up on it; drop the late reply
        peer.in_flight = 0
        changed = [gate for gate in self._gates.values() if gate.subscribers.pop(peer.name, 0)]
        for gate in changed:
            if gate.empty():
                del self._gates[gate.name]  # so the Welcome does not list it
        return changed

    def _remove_peer(self, peer: _Peer, reason: str) -> None:
        self._by_identity.pop(peer.identity, None)
        if self._by_name.get(peer.name) is peer:
            del self._by_name[peer.name]
        changed: list[_Gate] = []
        for gate in self._gates.values():
            touched = False
            if gate.func is not None and gate.func.provider == peer.name:
                gate.func, touched = None, True
            if gate.action is not None and gate.action.provider == peer.name:
                gate.action, touched = None, True
            if gate.subscribers.pop(peer.name, 0):
                touched = True
            if touched:
                changed.append(gate)
        for call_id, pending in list(self._pending.items()):
            if pending.provider == peer.name:
                del self._pending[call_id]
                self._finish_pending(pending)
                self._result(
                    pending.caller,
                    pending.caller_call_id,
                    _err(
                        "IpcPeerLeftError",
                        f"{peer.name} left the bus during the call to {pending.gate} ({reason}).",
                    ),
                )
            elif pending.caller == peer.identity:
                del self._pending[call_id]  # its reply will find nobody; drop it then
        for gate in changed:
            self._gate_changed(gate)
        for other in self._by_identity.values():
            other.seq += 1
            self._send(other.identity, w.PeerLeft(name=peer.name, reason=reason, seq=other.seq))
        log.info("peer left: %s", reason)
