"""The routing table proper: which process provides each gate, and who subscribes to it.

`GateRegistry` owns the gates. It applies Provide, Withdraw, Subscribe and Unsubscribe, checking
the gate's name, its owner, the bounds on gates and subscriptions per process (B7), and the
signature a provider declares: only the bus's type names, so a gate's info has a size bound
(S2). It drops a gate once nothing is left on it, and tells every peer about each change with a
sequenced GateChanged; a Snapshot gets the whole table, in pages of about `table_page_bytes`
(`pages`), so no table is over any peer's frame limit however many gates exist. The bounds are
enforced here, for any client, and checked again by the peer before it sends (`_peer_serve`,
`_peer_messages`), where the error reaches the line that asked. When a process leaves or starts
a new session, the sessions (`_router_peers`) ask it to let go of that process's slots and
subscriptions.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import _wire as w
from ._config import BrokerConfig, check_gate_name, check_signature, ownership_error, owns_gate
from ._router_tables import Gate, Outbox, Peer, PeerTable


class GateRegistry:
    """The gate table, each change announced to every peer."""

    def __init__(self, config: BrokerConfig, peers: PeerTable, out: Outbox) -> None:
        self._config = config
        self._peers = peers
        self._out = out
        self._gates: dict[str, Gate] = {}
        self._listed = 0
        """Subscribers listed over all gates (a process once per gate), against `max_subscribers`."""

    def __len__(self) -> int:
        return len(self._gates)

    def info(self, name: str) -> w.GateInfo | None:
        gate = self._gates.get(name)
        return gate.info() if gate else None

    def slot(self, name: str, kind: w.Kind) -> w.SlotInfo | None:
        """Who fills the func or action slot of gate `name`, if anyone."""
        gate = self._gates.get(name)
        return None if gate is None else (gate.func if kind == "func" else gate.action)

    def subscribers(self, name: str) -> Iterable[str]:
        """The InternalNames of the processes subscribed to gate `name`."""
        gate = self._gates.get(name)
        return () if gate is None else gate.subscribers

    def pages(self) -> list[tuple[w.GateInfo, ...]]:
        """The gate table in pages of about `table_page_bytes` each (at least one, maybe empty):
        a Welcome or a GateTable carries the first, GateTable parts the others (S2)."""
        budget = self._config.table_page_bytes
        pages: list[tuple[w.GateInfo, ...]] = []
        page: list[w.GateInfo] = []
        size = 0
        for gate in self._gates.values():
            info = gate.info()
            cost = _encoded_size(info)
            if page and size + cost > budget:
                pages.append(tuple(page))
                page, size = [], 0
            page.append(info)
            size += cost
        pages.append(tuple(page))
        return pages

    def send_table(self, peer: Peer) -> None:
        """The whole table to `peer` (the answer to its Snapshot), in pages."""
        pages = self.pages()
        first = w.GateTable(gates=pages[0], peers=tuple(self._peers.by_name), seq=peer.seq, more=len(pages) > 1)
        self._out.send(peer.identity, first)
        self.send_parts(peer, pages[1:])

    def send_parts(self, peer: Peer, pages: list[tuple[w.GateInfo, ...]]) -> None:
        """The pages after a table's first (in a Welcome or a GateTable), in order."""
        last = len(pages) - 1
        for index, page in enumerate(pages):
            self._out.send(peer.identity, w.GateTable(gates=page, peers=(), seq=peer.seq, part=True, more=index < last))

    # --- changes a peer asks for -----------------------------------------------------------

    def provide(self, peer: Peer, msg: w.Provide) -> None:
        problem = check_gate_name(msg.gate)
        if problem is None and not owns_gate(peer.name, msg.gate):
            problem = ownership_error(peer.name, msg.gate)
        if problem is None:
            problem = check_signature(msg.gate, msg.params, msg.returns)
        limit = self._config.max_gates_per_peer
        if problem is None and msg.gate not in peer.provides and len(peer.provides) >= limit:
            problem = (
                f"{peer.name} already provides {limit} gates, the most the bus allows per process; "
                f"{msg.gate!r} was not registered. Unregister the gates it no longer needs, or start "
                "the broker with a higher BrokerConfig.max_gates_per_peer."
            )
        if problem is None and msg.gate not in self._gates:
            problem = self._table_full(msg.gate)
        if problem:
            self._out.notice(peer.identity, "IpcRefusedError", problem)
            return
        peer.provides.add(msg.gate)
        gate = self._gate(msg.gate)
        slot = w.SlotInfo(provider=peer.name, params=msg.params, returns=msg.returns)
        if msg.kind == "func":
            gate.func = slot
        else:
            gate.action = slot
        self.announce(gate)

    def withdraw(self, peer: Peer, msg: w.Withdraw) -> None:
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
        self.announce(gate)

    def subscribe(self, peer: Peer, name: str, delta: int) -> None:
        problem = check_gate_name(name)
        if problem:
            self._out.notice(peer.identity, "IpcRefusedError", problem)
            return
        if delta < 0 and name not in self._gates:
            return
        limit = self._config.max_subscriptions_per_peer
        if delta > 0 and peer.subscriptions >= limit:
            self._out.notice(
                peer.identity,
                "IpcRefusedError",
                f"{peer.name} already holds {limit} subscriptions, the most the bus allows per "
                f"process; the subscription to {name!r} was not made. Unsubscribe the callbacks it "
                "no longer needs, or start the broker with a higher BrokerConfig.max_subscriptions_per_peer.",
            )
            return
        problem = None if name in self._gates else self._table_full(name)
        gate = self._gates.get(name)
        if problem is None and delta > 0 and (gate is None or peer.name not in gate.subscribers):
            if self._listed >= self._config.max_subscribers:
                problem = (
                    f"The bus already lists {self._listed} subscribers over all its gates, the most it allows, "
                    f"so {peer.name}'s subscription to {name!r} was not made: stop processes that no longer "
                    "need their subscriptions, or start the broker with a higher BrokerConfig.max_subscribers."
                )
        if problem:
            self._out.notice(peer.identity, "IpcRefusedError", problem)
            return
        gate = self._gate(name)
        before = gate.subscribers.get(peer.name, 0)
        count = max(0, before + delta)
        self._listed += (count > 0) - (before > 0)
        peer.subscriptions += count - before
        if count:
            gate.subscribers[peer.name] = count
        else:
            gate.subscribers.pop(peer.name, None)
        self.announce(gate)

    # --- a peer leaving, or starting over --------------------------------------------------

    def release(self, peer: Peer) -> list[Gate]:
        """Empty every slot `peer` fills and drop its subscriptions; the gates changed, to
        `announce` once the rest of its departure is done."""
        changed: list[Gate] = []
        for gate in self._gates.values():
            touched = False
            if gate.func is not None and gate.func.provider == peer.name:
                gate.func, touched = None, True
            if gate.action is not None and gate.action.provider == peer.name:
                gate.action, touched = None, True
            if gate.subscribers.pop(peer.name, 0):
                touched = True
                self._listed -= 1
            if touched:
                changed.append(gate)
        return changed

    def drop_subscriptions(self, peer: Peer) -> list[Gate]:
        """Forget `peer`'s subscriptions (it re-sends them in its new session); the gates changed.
        A gate left empty goes at once, so the Welcome does not list it."""
        peer.subscriptions = 0
        changed = [gate for gate in self._gates.values() if gate.subscribers.pop(peer.name, 0)]
        self._listed -= len(changed)
        for gate in changed:
            if gate.empty():
                del self._gates[gate.name]
        return changed

    def announce(self, gate: Gate) -> None:
        """`gate` changed: drop it if empty, and tell every peer with a sequenced GateChanged."""
        peers = self._peers
        peers.invalidate_routes()
        info = gate.info()
        if gate.empty():
            self._gates.pop(gate.name, None)
        send = self._out.send
        for peer in peers.by_identity.values():
            peer.seq += 1
            send(peer.identity, w.GateChanged(gate=info, seq=peer.seq))

    def _table_full(self, name: str) -> str | None:
        """Why the new gate `name` cannot join the table, or None."""
        limit = self._config.max_gates
        if len(self._gates) < limit:
            return None
        return (
            f"The bus already holds {limit} gates, the most it allows over all processes, so {name!r} was "
            "not added: stop processes that are no longer needed, or start the broker with a higher "
            "BrokerConfig.max_gates."
        )

    def _gate(self, name: str) -> Gate:
        gate = self._gates.get(name)
        if gate is None:
            gate = self._gates[name] = Gate(name)
        return gate


def _encoded_size(info: w.GateInfo) -> int:
    """About how many bytes `info` takes encoded (field names included), never much less."""
    size = 96 + len(info.name) + sum(len(name) + 3 for name in info.subscribers)
    for slot in (info.func, info.action):
        if slot is not None:
            size += 48 + len(slot.provider) + 10 * len(slot.params)
    return size
