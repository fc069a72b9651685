"""The broker's routing table: pure logic, no sockets.

`Router.handle(identity, frames, now)` takes one message as the ROUTER socket received it and
returns what to send, as `Outgoing` items; `Router.sweep(now)` removes peers that stopped
sending heartbeats, and `Router.probe()` asks the transport to try every peer's connection.
The transport (`_transport.py`) owns the socket; this module never sees
it, so the whole routing logic is tested in memory.

Identities are the ROUTER's routing ids, assigned by ZeroMQ on each connection; they never
leave the router. A Hello binds an identity to an InternalName, and every request a peer
makes afterwards carries that name, whatever its payload says.

This module decodes each frame (one message, or a batch of them, handled one after the other
as if each had come alone) and dispatches every message to the part it concerns. In a large
frame, a Call and a Reply are decoded as header views (`_wire.CallView`, `ReplyView`): their
payload is forwarded as it came, never decoded. The parts, one module each, are mixins on one object, so routing a
call makes no extra hop:

- `_router_state`: the tables (peers, gates, pending calls) and the queue of `Outgoing` frames;
- `_router_gates`: Provide, Withdraw, Subscribe, Unsubscribe and the table's change events;
- `_router_calls`: Call, Reply, Abandon and Send, with the limits on payloads and calls in flight;
- `_router_peers`: Hello (and a name handed on from a process that died), Bye, removing a peer;
- `_router_liveness`: Alive from a process's beacon, the sweep, and probes of closed connections.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from . import _wire as w
from ._router_liveness import _Liveness
from ._router_state import Outgoing

if TYPE_CHECKING:
    from ._wire import Frame

__all__ = ["Outgoing", "Router"]

log = logging.getLogger("xivmcp.broker")


class Router(_Liveness):
    """The routing table; `handle`, `sweep`, `probe`, `undeliverable` and `shutdown` return what
    to send."""

    def stats(self) -> w.BrokerStats:
        """What the broker holds right now (the answer to a Stats request)."""
        peers = self._by_identity.values()
        return w.BrokerStats(
            broker=self.incarnation,
            peers=len(self._by_name),
            gates=len(self._gates),
            pending_calls=len(self._pending),
            subscriptions=sum(p.subscriptions for p in peers),
            in_flight={p.name: len(p.calls) for p in peers if p.calls},
            contested_names=len({name for name, _ in self._contests}),
        )

    def handle(self, identity: bytes, frames: Sequence[Frame], now: float) -> list[Outgoing]:
        """Process one received message (or batch of messages); never raises."""
        self._out = []
        for msg in self._decode(identity, frames):
            try:
                self._dispatch(identity, msg, now)
            except Exception:  # a bug must not take the bus down
                log.exception("internal error while routing a message from %r", identity)
                self._notice(identity, "IpcError", "The broker failed to handle that message; see its log.")
        return self._out

    def _decode(self, identity: bytes, frames: Sequence[Frame]) -> Sequence[w.Routed]:
        if len(frames) != 1:
            self._notice(
                identity,
                "IpcError",
                f"Malformed message: expected one frame (a msgpack message), got {len(frames)} frames.",
            )
            return ()
        try:
            msgs = w.decode_routed(frames[0])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            self._notice(identity, "IpcError", f"Malformed message frame: {exc}. Use the broker package's client.")
            return ()
        if not isinstance(msgs, list):
            return (msgs,)  # type: ignore[return-value]  # one message, not a batch
        if not msgs:
            self._notice(identity, "IpcError", "Malformed message frame: an empty batch. Send at least one message.")
        return msgs

    def _dispatch(self, identity: bytes, msg: w.Routed, now: float) -> None:
        peer = self._by_identity.get(identity)
        if isinstance(msg, w.Hello):
            self._hello(identity, peer, msg, now)
            return
        if peer is None:
            if isinstance(msg, w.Alive):  # a beacon's socket is never a peer's: checked only here
                self._alive(identity, msg, now)
                return
            # Unknown identity: a peer from before a broker restart, or one we declared dead.
            self._send(identity, w.NeedHello(broker=self.incarnation))
            return
        peer.last_seen = now
        match msg:
            case w.Call() | w.CallView():
                self._call(peer, msg)
            case w.Reply() | w.ReplyView():
                self._reply(peer, msg)
            case w.Ping():
                self._send(identity, w.Pong(broker=self.incarnation))
            case w.Send():
                self._broadcast_message(peer, msg, msg.payload)
            case w.Provide():
                self._provide(peer, msg)
            case w.Withdraw():
                self._withdraw(peer, msg)
            case w.Subscribe():
                self._subscribe(peer, msg.gate, +1)
            case w.Unsubscribe():
                self._subscribe(peer, msg.gate, -1)
            case w.Snapshot():
                self._send(identity, self._table(peer))
            case w.Bye():
                self._remove_peer(peer, f"{peer.name} disconnected")
            case w.Abandon():
                self._abandon(peer, msg)
            case w.Stats():
                self._send(identity, w.StatsReply(id=msg.id, stats=self.stats()))
            case w.Alive():
                self._alive(identity, msg, now)
