"""The routing table proper: which process provides each gate, and who subscribes to it.

`_Gates` applies Provide, Withdraw, Subscribe and Unsubscribe (checking the gate's name, its
owner, and the bounds on gates and subscriptions per process, B7), drops a gate once nothing is
left on it, and tells every peer about each change with a sequenced GateChanged; a Snapshot gets
the whole table. The bounds are enforced here, for any client, and checked again by the peer
before it sends (`_peer_serve`, `_peer_messages`), where the error reaches the line that asked.
"""

from __future__ import annotations

from . import _wire as w
from ._config import check_gate_name, ownership_error, owns_gate
from ._router_state import _Gate, _Peer, _RouterState


class _Gates(_RouterState):
    """Changes to the gate table, each announced to every peer."""

    def gate_info(self, name: str) -> w.GateInfo | None:
        gate = self._gates.get(name)
        return gate.info() if gate else None

    def _gate(self, name: str) -> _Gate:
        gate = self._gates.get(name)
        if gate is None:
            gate = self._gates[name] = _Gate(name)
        return gate

    def _gate_changed(self, gate: _Gate) -> None:
        self._invalidate_routes()
        info = gate.info()
        if gate.empty():
            self._gates.pop(gate.name, None)
        for peer in self._by_identity.values():
            peer.seq += 1
            self._send(peer.identity, w.GateChanged(gate=info, seq=peer.seq))

    def _provide(self, peer: _Peer, msg: w.Provide) -> None:
        problem = check_gate_name(msg.gate)
        if problem is None and not owns_gate(peer.name, msg.gate):
            problem = ownership_error(peer.name, msg.gate)
        if problem is None and len(msg.params) > 8:
            problem = f"{msg.gate} declares {len(msg.params)} parameters; a gate takes 0 to 8."
        limit = self.config.max_gates_per_peer
        if problem is None and msg.gate not in peer.provides and len(peer.provides) >= limit:
            problem = (
                f"{peer.name} already provides {limit} gates, the most the bus allows per process; "
                f"{msg.gate!r} was not registered. Unregister the gates it no longer needs, or start "
                "the broker with a higher BrokerConfig.max_gates_per_peer."
            )
        if problem:
            self._notice(peer.identity, "IpcRefusedError", problem)
            return
        peer.provides.add(msg.gate)
        gate = self._gate(msg.gate)
        slot = w.SlotInfo(provider=peer.name, params=msg.params, returns=msg.returns)
        if msg.kind == "func":
            gate.func = slot
        else:
            gate.action = slot
        self._gate_changed(gate)

    def _withdraw(self, peer: _Peer, msg: w.Withdraw) -> None:
        gate = self._gates.get(msg.gate)
        if gate is None:
            return
        slot = gate.func if msg.kind == "func" else gate.action
        if slot is None or slot.provider != peer.name:
            return
        if msg.kind == "func":
            gate.func = None
        else:
            gate.action = None
        if (gate.func is None or gate.func.provider != peer.name) and (
            gate.action is None or gate.action.provider != peer.name
        ):
            peer.provides.discard(gate.name)
        self._gate_changed(gate)

    def _subscribe(self, peer: _Peer, name: str, delta: int) -> None:
        problem = check_gate_name(name)
        if problem:
            self._notice(peer.identity, "IpcRefusedError", problem)
            return
        if delta < 0 and name not in self._gates:
            return
        limit = self.config.max_subscriptions_per_peer
        if delta > 0 and peer.subscriptions >= limit:
            self._notice(
                peer.identity,
                "IpcRefusedError",
                f"{peer.name} already holds {limit} subscriptions, the most the bus allows per "
                f"process; the subscription to {name!r} was not made. Unsubscribe the callbacks it "
                "no longer needs, or start the broker with a higher BrokerConfig.max_subscriptions_per_peer.",
            )
            return
        gate = self._gate(name)
        before = gate.subscribers.get(peer.name, 0)
        count = max(0, before + delta)
        peer.subscriptions += count - before
        if count:
            gate.subscribers[peer.name] = count
        else:
            gate.subscribers.pop(peer.name, None)
        self._gate_changed(gate)

    def _table(self, peer: _Peer) -> w.GateTable:
        return w.GateTable(
            gates=tuple(g.info() for g in self._gates.values()),
            peers=tuple(self._by_name),
            seq=peer.seq,
        )
