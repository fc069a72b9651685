"""The router's records, and the two things every part of the router shares: who is on the bus
(`PeerTable`) and what the message being handled sends (`Outbox`).

The records are plain data: `Peer` (one process's session), `Gate` (its slots and subscribers),
`Pending` (a call waiting for its reply), `Pair` and `Route`; `Outgoing` is one frame to send.
Each part of the router (`_router_gates`, `_router_calls`, `_router_peers`, `_router_liveness`)
owns its own table and is handed these two.

A caller's route to each gate it calls is cached on its `Peer` (`routes`): the provider and the
pair counter, found in one lookup rather than four (the gate, its slot, the pair, the
provider's peer). Any change to a slot or a peer clears every cache
(`PeerTable.invalidate_routes`): those are rare, calls are not.

A caller's calls are counted twice, per caller (`Peer.calls`) and per caller and provider
(`Pair`), so that one hung provider holds at most `max_in_flight_per_provider` of a caller's
calls and never starves its calls to anyone else (B6). A pending call points at its caller and
its pair directly: finishing a call costs no lookup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import _wire as w


@dataclass(slots=True)
class Outgoing:
    identity: bytes
    frame: bytes
    """The message, encoded: the broker sends one frame a message (or a batch of them)."""
    call_id: int = 0
    """Nonzero for an Invoke: if it cannot be delivered, the router fails that call."""
    probe: bool = False
    """A liveness probe: if the peer's connection is gone, the router removes the peer at once."""


@dataclass(slots=True)
class Pair:
    """The calls one caller has waiting on one provider."""

    in_flight: int = 0


@dataclass(slots=True)
class Bucket:
    """A token bucket: how many more messages of a kind a peer may send now (S2)."""

    tokens: float
    at: float

    def take(self, now: float, rate: float, burst: float) -> bool:
        """Take one token if there is one (refilled at `rate` a second, up to `burst`)."""
        tokens = min(burst, self.tokens + max(0.0, now - self.at) * rate)
        self.at = max(now, self.at)
        if tokens < 1.0:
            self.tokens = tokens
            return False
        self.tokens = tokens - 1.0
        return True


@dataclass(slots=True)
class Peer:
    name: str
    identity: bytes
    incarnation: str
    last_seen: float
    batch: bool = False
    """It reads batch frames (its Hello said so)."""
    seq: int = 0
    calls: dict[int, int] = field(default_factory=dict)
    """This peer's calls waiting for a reply: its own call id -> the broker's (for Abandon)."""
    to: dict[str, Pair] = field(default_factory=dict)
    """This peer's calls in flight by provider name."""
    provides: set[str] = field(default_factory=set)
    """The gates this peer fills a slot of (counted against `max_gates_per_peer`)."""
    subscriptions: int = 0
    routes: dict[tuple[str, w.Kind], Route] = field(default_factory=dict)
    """Where this peer's calls to each (gate, kind) go, while the tables stay as they are."""
    control: Bucket | None = None
    """Its Hello, Provide, Withdraw, Subscribe, Unsubscribe, Snapshot and Stats (S2)."""
    tables: Bucket | None = None
    """Its Snapshots: each costs a whole table (S2)."""
    noticed: float = -1e9
    """When it was last told that a message of its was dropped for its rate (once a second)."""
    sent: int = 0
    """Bytes the broker handed the transport for it, this session (S2)."""
    read: int = 0
    """Bytes it has proven it read: `sent` when the latest mark it echoed was sent."""
    marks: list[tuple[int, int]] = field(default_factory=list)
    """The marks sent it and not yet echoed: (`sent` after the mark, its token), oldest first."""
    next_mark: int = 0
    """When `sent` reaches this, a mark goes after what was sent (`Router.mark`)."""


@dataclass(slots=True)
class Route:
    provider: Peer
    pair: Pair


@dataclass(slots=True)
class Gate:
    name: str
    func: w.SlotInfo | None = None
    action: w.SlotInfo | None = None
    subscribers: dict[str, int] = field(default_factory=dict)

    def info(self) -> w.GateInfo:
        return w.GateInfo(
            name=self.name,
            func=self.func,
            action=self.action,
            subscribers=tuple(sorted(self.subscribers)),
            subscriptions=sum(self.subscribers.values()),
        )

    def empty(self) -> bool:
        return self.func is None and self.action is None and not self.subscribers


@dataclass(slots=True)
class Pending:
    caller: Peer
    caller_call_id: int
    provider: str
    gate: str
    pair: Pair


def err(kind: str, message: str) -> w.ErrorInfo:
    return w.ErrorInfo(kind=kind, message=message)


class PeerTable:
    """The processes on the bus, by ROUTER identity and by InternalName.

    Both dicts are public for reading (the router looks a frame's sender up in `by_identity`
    before anything else) and are never replaced, only changed: a reader may keep a reference.
    Only the sessions (`_router_peers.Sessions`) add, move and drop peers."""

    def __init__(self) -> None:
        self.by_identity: dict[bytes, Peer] = {}
        self.by_name: dict[str, Peer] = {}

    def add(self, peer: Peer) -> None:
        self.by_identity[peer.identity] = peer
        self.by_name[peer.name] = peer

    def move(self, peer: Peer, identity: bytes) -> None:
        """`peer`'s process came back on a new connection."""
        del self.by_identity[peer.identity]
        peer.identity = identity
        self.by_identity[identity] = peer

    def drop(self, peer: Peer) -> None:
        self.by_identity.pop(peer.identity, None)
        if self.by_name.get(peer.name) is peer:
            del self.by_name[peer.name]

    def reads_batches(self, identity: bytes) -> bool:
        """Whether the peer at `identity` said it reads batch frames."""
        peer = self.by_identity.get(identity)
        return peer is not None and peer.batch

    def invalidate_routes(self) -> None:
        """A slot, a provider or a pair changed: no cached route may outlive it."""
        for peer in self.by_identity.values():
            peer.routes.clear()


class Outbox:
    """The frames queued by what the router is handling, for the transport to send."""

    def __init__(self, incarnation: str) -> None:
        self.items: list[Outgoing] = []
        """A fresh list for each thing the router handles (it returns that list); appended to
        directly on the hot path (a call, a reply), else through the helpers below."""
        self._incarnation = incarnation

    def send(self, identity: bytes, msg: w.ToPeer) -> None:
        self.items.append(Outgoing(identity, w.encode(msg)))

    def result(self, identity: bytes, call_id: int, error: w.ErrorInfo) -> None:
        self.items.append(Outgoing(identity, w.encode(w.Result(id=call_id, error=error))))

    def notice(self, identity: bytes, kind: str, message: str) -> None:
        self.send(identity, w.Notice(error=err(kind, message)))

    def refuse(self, identity: bytes, message: str) -> None:
        self.send(identity, w.Refused(error=err("IpcRefusedError", message)))

    def probe_of(self, peer: Peer) -> Outgoing:
        """A harmless frame (a Pong) to `peer`, marked so that if its connection is gone the
        transport says so and the router removes it (`Router.undeliverable`)."""
        return Outgoing(peer.identity, w.encode(w.Pong(broker=self._incarnation)), probe=True)
