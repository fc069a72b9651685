"""Peer sessions: who is on the bus, under which name, and handing a name on (B4).

`_Peers` binds a ROUTER identity to an InternalName on Hello (moving a known process to its new
connection, starting a fresh session), announces joins and departures to every other peer, and
removes a peer on Bye or when liveness (`_router_liveness`) finds it gone. Removing a peer
withdraws its gates and subscriptions and fails the calls it was serving, so this part sits on
top of the gates and the calls.

A Hello for a name another process holds is not refused at once: the holder may be a process
that just died (killed, its connection not yet seen closing) and the newcomer its restart.
The broker probes the holder and answers the newcomer NameBusy; the newcomer says Hello again
until the name is decided. The holder is alive if the broker hears from it (its beacon's Alive
comes every heartbeat) well after the newcomer first asked: then the newcomer is refused, as two
live processes with one name must be. If the holder is dead, its probe or the sweep removes it
within the liveness window and the newcomer's next Hello gets the name.
"""

from __future__ import annotations

import logging
from typing import Final

from . import _wire as w
from ._config import check_peer_name
from ._router_calls import _Calls
from ._router_gates import _Gates
from ._router_state import _err, _Gate, _Peer

log = logging.getLogger("xivmcp.broker")

MAX_CONTESTS: Final = 1024
"""Newcomers that may wait for held names at once (B7: a raw client inventing incarnations
cannot grow the table without bound; the sweep forgets contests nobody asks about)."""


class _Peers(_Gates, _Calls):
    """Sessions of the peers: Hello, Bye, and removing a peer."""

    @property
    def peers(self) -> list[str]:
        return sorted(self._by_name)

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
        if holder is not None and holder.identity != identity:
            if holder.incarnation != msg.incarnation:
                self._contest(identity, holder, msg, now)
                return
            # The same process on a new connection: move its state to the new identity.
            del self._by_identity[holder.identity]
            holder.identity = identity
            self._by_identity[identity] = holder
            peer = holder
        elif peer is not None and peer.name != msg.name:
            self._remove_peer(peer, f"{peer.name} reconnected as {msg.name}")
            peer = None
        if self._contests:
            self._contests.pop((msg.name, msg.incarnation), None)
        joined = peer is None
        changed: list[_Gate] = []
        if peer is None:
            peer = _Peer(name=msg.name, identity=identity, incarnation=msg.incarnation, last_seen=now)
            self._by_identity[identity] = peer
            self._by_name[msg.name] = peer
        else:
            changed = self._new_session(peer)
        peer.last_seen = now
        peer.seq = 0
        peer.batch = msg.batch
        config = self.config
        self._send(
            identity,
            w.Welcome(
                name=msg.name,
                broker=self.incarnation,
                heartbeat=config.heartbeat_interval,
                timeout=config.peer_timeout,
                max_payload=config.max_payload,
                gates=tuple(g.info() for g in self._gates.values()),
                peers=tuple(self._by_name),
                seq=0,
                max_gates=config.max_gates_per_peer,
                max_subscriptions=config.max_subscriptions_per_peer,
                batch=True,
            ),
        )
        for gate in changed:
            self._gate_changed(gate)
        if joined:
            for other in self._by_identity.values():
                if other is not peer:
                    other.seq += 1
                    self._send(other.identity, w.PeerJoined(name=peer.name, seq=other.seq))

    def _contest(self, identity: bytes, holder: _Peer, msg: w.Hello, now: float) -> None:
        """A newcomer asks for `holder`'s name: refuse it if the holder is alive, else make it wait."""
        key = (msg.name, msg.incarnation)
        began = self._contests.get(key)
        silent = now - holder.last_seen
        config = self.config
        # Heard from well after the newcomer asked: a frame the holder sent just before it died
        # may still be read a moment later, so only what comes after a settling time counts.
        settle = min(0.25, config.heartbeat_interval / 2)
        if began is not None and holder.last_seen >= began + settle:
            del self._contests[key]
            self._refuse(
                identity,
                f"The InternalName {msg.name!r} is already connected from another process, which is "
                f"alive (last heard {silent:.1f} s ago). Each process needs its own name: start this "
                "one under another InternalName, or stop the other process first.",
            )
            return
        if began is None:
            if len(self._contests) >= MAX_CONTESTS:
                self._refuse(
                    identity,
                    f"{len(self._contests)} processes are already waiting for names other processes "
                    f"hold, the most the bus allows; {msg.name!r} cannot wait too. Try again shortly.",
                )
                return
            self._contests[key] = now
            log.info("%s: a new process asks for the name; probing the one that holds it", msg.name)
        self._out.append(self._probe_of(holder))
        retry = min(0.25, config.heartbeat_interval / 2)
        self._send(
            identity,
            w.NameBusy(
                name=msg.name,
                last_heard=silent,
                frees_within=max(0.0, config.peer_timeout - silent),
                retry_in=retry,
            ),
        )

    def _new_session(self, peer: _Peer) -> list[_Gate]:
        """A known process said Hello again. After the Welcome it fails its own calls in flight
        and re-sends every Provide and Subscribe it holds, so forget the old session's calls and
        subscriptions (else they would count twice). Returns the gates whose subscribers changed."""
        for call_id in peer.calls.values():
            pending = self._pending.pop(call_id, None)  # its caller gave up on it; drop the late reply
            if pending is not None:
                pending.pair.in_flight -= 1
        peer.calls.clear()
        peer.subscriptions = 0
        changed = [gate for gate in self._gates.values() if gate.subscribers.pop(peer.name, 0)]
        for gate in changed:
            if gate.empty():
                del self._gates[gate.name]  # so the Welcome does not list it
        return changed

    def _remove_peer(self, peer: _Peer, reason: str) -> None:
        self._invalidate_routes()  # its slots and the pairs to it go below
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
        for call_id in peer.calls.values():
            self._pending.pop(call_id, None)  # its calls' replies will find nobody; drop them then
        peer.calls.clear()
        for call_id, pending in list(self._pending.items()):
            if pending.provider == peer.name:
                del self._pending[call_id]
                self._finish_pending(pending)
                self._result(
                    pending.caller.identity,
                    pending.caller_call_id,
                    _err(
                        "IpcPeerLeftError",
                        f"{peer.name} left the bus during the call to {pending.gate} ({reason}).",
                    ),
                )
        for gate in changed:
            self._gate_changed(gate)
        for other in self._by_identity.values():
            other.to.pop(peer.name, None)  # its calls to the peer all failed above
            other.seq += 1
            self._send(other.identity, w.PeerLeft(name=peer.name, reason=reason, seq=other.seq))
        log.info("peer left: %s", reason)
