"""The router's state, and the helpers that queue what it sends: the base of `Router`.

`_RouterState` holds the tables every part of the router reads: the peers by identity and by
name, the gates, the calls waiting for a reply, the names a newcomer waits for (`_contests`, B4),
and `_out`, the frames queued by the message being handled. The tables refer to each other (a
gate names its provider, a pending call its caller), so they live together here; the parts that
change them are mixins on top (`_router_gates`, `_router_calls`, `_router_peers`,
`_router_liveness`), composed in `_router.py`.

A caller's route to each gate it calls is cached on its `_Peer` (`routes`): the provider and
the pair counter, found in one lookup rather than four (the gate, its slot, the pair, the
provider's peer). Any change to a slot or a peer clears every cache (`_invalidate_routes`):
those are rare, calls are not.

A caller's calls are counted twice, per caller (`_Peer.calls`) and per caller and provider
(`_Pair`), so that one hung provider holds at most `max_in_flight_per_provider` of a caller's
calls and never starves its calls to anyone else (B6). A pending call points at its caller and
its pair directly: finishing a call costs no lookup.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from . import _wire as w
from ._config import BrokerConfig


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
class _Pair:
    """The calls one caller has waiting on one provider."""

    in_flight: int = 0


@dataclass(slots=True)
class _Peer:
    name: str
    identity: bytes
    incarnation: str
    last_seen: float
    batch: bool = False
    """It reads batch frames (its Hello said so)."""
    seq: int = 0
    calls: dict[int, int] = field(default_factory=dict)
    """This peer's calls waiting for a reply: its own call id -> the broker's (for Abandon)."""
    to: dict[str, _Pair] = field(default_factory=dict)
    """This peer's calls in flight by provider name."""
    provides: set[str] = field(default_factory=set)
    """The gates this peer fills a slot of (counted against `max_gates_per_peer`)."""
    subscriptions: int = 0
    routes: dict[tuple[str, w.Kind], _Route] = field(default_factory=dict)
    """Where this peer's calls to each (gate, kind) go, while the tables stay as they are."""


@dataclass(slots=True)
class _Route:
    provider: _Peer
    pair: _Pair


@dataclass(slots=True)
class _Gate:
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
class _Pending:
    caller: _Peer
    caller_call_id: int
    provider: str
    gate: str
    pair: _Pair


def _err(kind: str, message: str) -> w.ErrorInfo:
    return w.ErrorInfo(kind=kind, message=message)


class _RouterState:
    """The tables of the router and the frames queued for sending."""

    def __init__(self, config: BrokerConfig | None = None) -> None:
        self.config = config or BrokerConfig()
        self.incarnation = uuid.uuid4().hex
        self._by_identity: dict[bytes, _Peer] = {}
        self._by_name: dict[str, _Peer] = {}
        self._gates: dict[str, _Gate] = {}
        self._pending: dict[int, _Pending] = {}
        self._contests: dict[tuple[str, str], float] = {}
        """(name, newcomer's incarnation) -> when the newcomer first asked for the held name."""
        self._next_call = 0
        self._out: list[Outgoing] = []

    # --- output helpers --------------------------------------------------------------------

    def _too_big(self, what: str, size: int) -> str:
        limit = self.config.max_payload
        return (
            f"The payload for {what} is {size} bytes; the bus carries at most {limit} bytes "
            f"({limit // 1024} KiB). Send less, or start the broker with a larger --max-payload."
        )

    def reads_batches(self, identity: bytes) -> bool:
        """Whether the peer at `identity` said it reads batch frames."""
        peer = self._by_identity.get(identity)
        return peer is not None and peer.batch

    def _invalidate_routes(self) -> None:
        """A slot, a provider or a pair changed: no cached route may outlive it."""
        for peer in self._by_identity.values():
            peer.routes.clear()

    def _send(self, identity: bytes, msg: w.ToPeer) -> None:
        self._out.append(Outgoing(identity, w.encode(msg)))

    def _probe_of(self, peer: _Peer) -> Outgoing:
        """A harmless frame (a Pong) to `peer`, marked so that if its connection is gone the
        transport says so and the router removes it (`undeliverable`)."""
        return Outgoing(peer.identity, w.encode(w.Pong(broker=self.incarnation)), probe=True)

    def _result(self, identity: bytes, call_id: int, error: w.ErrorInfo) -> None:
        self._out.append(Outgoing(identity, w.encode(w.Result(id=call_id, error=error))))

    def _notice(self, identity: bytes, kind: str, message: str) -> None:
        self._send(identity, w.Notice(error=_err(kind, message)))

    def _refuse(self, identity: bytes, message: str) -> None:
        self._send(identity, w.Refused(error=_err("IpcRefusedError", message)))
