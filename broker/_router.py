"""The broker's routing table: pure logic, no sockets.

`Router.handle(identity, frames, now)` takes one message as the ROUTER socket received it and
returns what to send, as `Outgoing` items; `Router.sweep(now)` removes peers that stopped
sending heartbeats, and `Router.probe()` asks the transport to try every peer's connection.
The transport (`_transport.py`) owns the socket; this module never sees it, so the whole
routing logic is tested in memory.

Identities are the ROUTER's routing ids, assigned by ZeroMQ on each connection; they never
leave the router. A Hello binds an identity to an InternalName, and every request a peer
makes afterwards carries that name, whatever its payload says.

`Router` decodes each frame (one message, or a batch of them, handled one after the other as
if each had come alone) and hands every message to the part that owns what it concerns. In a
large frame, a Call and a Reply are decoded as header views (`_wire.CallView`, `ReplyView`):
their payload is forwarded as it came, never decoded. The parts, one module each, each keep
their own table; they share only who is on the bus and the queue of frames to send
(`_router_tables`):

- `GateRegistry` (`_router_gates`): Provide, Withdraw, Subscribe, Unsubscribe and the table's
  change events;
- `CallRelay` (`_router_calls`): Call, Reply, Abandon and Send, with the limits on payloads and
  calls in flight;
- `Sessions` (`_router_peers`): Hello (and a name handed on from a process that died), Bye,
  removing a peer;
- `Liveness` (`_router_liveness`): Alive from a process's beacon, the sweep, and probes of closed
  connections.

The router itself bounds what one frame can make it do (S2): a batch frame of more than
`max_batch_messages` messages is dropped whole with a Notice, and a peer's control messages
(Hello, Provide, Withdraw, Subscribe, Unsubscribe, Snapshot, Stats: each costs a table or an
announcement to every peer) are metered by a token bucket per peer (`_admit`); calls, replies
and messages are not, and have their own bounds. A peer that has more bytes sent to it and unread
than `max_queued_bytes` is cut off (`cut_off`) with the reason at the end of its queue: the
transport counts the bytes it sends each peer, and every quarter of the budget asks the router
for a mark (`mark`), a Pong with a random token that the peer echoes in a Ping once it has read
that far; a peer cannot claim to have read what it has not.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from . import _wire as w
from ._config import BrokerConfig
from ._router_calls import CallRelay
from ._router_gates import GateRegistry
from ._router_liveness import Liveness
from ._router_peers import Sessions
from ._router_tables import Bucket, Outbox, Outgoing, Peer, PeerTable, err

if TYPE_CHECKING:
    from ._wire import Frame

__all__ = ["Outgoing", "Router"]

log = logging.getLogger("xivmcp.broker")


class Router:
    """The routing table; `handle`, `sweep`, `probe`, `undeliverable` and `shutdown` return what
    to send."""

    def __init__(self, config: BrokerConfig | None = None) -> None:
        self.config = config = config or BrokerConfig()
        self.incarnation = incarnation = uuid.uuid4().hex
        self._out = out = Outbox(incarnation)
        self._peers = peers = PeerTable()
        self._gates = gates = GateRegistry(config, peers, out)
        self._calls = calls = CallRelay(config, peers, gates, out)
        self._sessions = sessions = Sessions(config, incarnation, peers, gates, calls, out)
        self.bind_names_to = sessions.bind_names_to
        self._liveness = Liveness(config, incarnation, peers, sessions, out)
        self._by_identity = self.by_identity = peers.by_identity
        """Every frame's first lookup, one hop shorter (the table never replaces this dict); the
        transport reads it too, to count the bytes it sends each peer (`Peer.sent`, S2)."""

    # --- what the broker asks --------------------------------------------------------------

    @property
    def peers(self) -> list[str]:
        return sorted(self._peers.by_name)

    @property
    def pending_calls(self) -> int:
        return len(self._calls)

    def gate_info(self, name: str) -> w.GateInfo | None:
        return self._gates.info(name)

    def reads_batches(self, identity: bytes) -> bool:
        """Whether the peer at `identity` said it reads batch frames."""
        return self._peers.reads_batches(identity)

    def stats(self) -> w.BrokerStats:
        """What the broker holds right now (the answer to a Stats request)."""
        peers = self._by_identity.values()
        return w.BrokerStats(
            broker=self.incarnation,
            peers=len(self._peers.by_name),
            gates=len(self._gates),
            pending_calls=len(self._calls),
            subscriptions=sum(p.subscriptions for p in peers),
            in_flight={p.name: len(p.calls) for p in peers if p.calls},
            contested_names=self._sessions.contested_names,
        )

    # --- what the broker tells it ----------------------------------------------------------

    def handle(self, identity: bytes, frames: Sequence[Frame], now: float) -> list[Outgoing]:
        """Process one received message (or batch of messages); never raises."""
        sent: list[Outgoing] = []
        self._out.items = sent
        for msg in self._decode(identity, frames):
            try:
                self._dispatch(identity, msg, now)
            except Exception:  # a bug must not take the bus down
                log.exception("internal error while routing a message from %r", identity)
                self._out.notice(identity, "IpcError", "The broker failed to handle that message; see its log.")
        return sent

    def sweep(self, now: float) -> list[Outgoing]:
        """Remove peers not heard from within the timeout; forget contests nobody waits for."""
        sent: list[Outgoing] = []
        self._out.items = sent
        self._liveness.sweep(now)
        return sent

    def probe(self) -> list[Outgoing]:
        """A probe for every peer: the transport saw a connection close and cannot say whose."""
        return self._liveness.probe()

    def undeliverable(self, item: Outgoing, why: str, gone: bool = True) -> list[Outgoing]:
        """The transport could not send `item`: the connection is `gone`, or the peer is too slow.

        A probe that finds the connection gone removes its peer; a probe to a slow peer proves
        nothing (a blocked loop fills its queue) and is dropped. An Invoke fails its call."""
        sent: list[Outgoing] = []
        self._out.items = sent
        if item.probe:
            self._liveness.unreachable(item, gone)
        elif item.call_id:
            self._calls.undeliverable(item, why)
        return sent

    def mark(self, peer: Peer) -> list[Outgoing]:
        """`peer` was sent `next_mark` bytes or more: send it a mark to echo (S2), a quarter of the
        budget after the last; if it has not proven it read what came more than `max_queued_bytes`
        before, cut it off."""
        budget = self.config.max_queued_bytes
        if peer.sent - peer.read > budget:
            return self.cut_off(peer)
        token = secrets.randbits(62) + 1
        frame = w.encode(w.Pong(broker=self.incarnation, mark=token))
        peer.sent += len(frame)
        peer.next_mark = peer.sent + budget // 4
        peer.marks.append((peer.sent, token))
        return [Outgoing(peer.identity, frame)]

    def _marked(self, peer: Peer, token: int) -> None:
        """`peer` echoed the mark `token`: it read everything sent before it."""
        for index, (offset, sent_token) in enumerate(peer.marks):
            if sent_token == token:
                peer.read = offset
                del peer.marks[: index + 1]
                return

    def cut_off(self, peer: Peer) -> list[Outgoing]:
        """`peer` has more bytes sent and unread than `max_queued_bytes` (S2): remove it, and
        tell it why at the end of its queue (it reconnects by itself once it reads again)."""
        sent: list[Outgoing] = []
        self._out.items = sent
        budget = self.config.max_queued_bytes
        reason = (
            f"{peer.name} was disconnected by the bus because {(peer.sent - peer.read) / 2**20:.1f} MiB sent "
            f"to it waited unread, over the {budget / 2**20:g} MiB the bus lets wait (it reads too slowly, "
            "or its event loop is blocked): keep its handlers short; it joins again by itself once it reads."
        )
        log.warning("%s", reason)
        identity = peer.identity
        self._sessions.remove(peer, reason)
        self._out.send(identity, w.Notice(error=err("IpcDisconnectedError", reason), about="queued"))
        return sent

    def shutdown(self) -> list[Outgoing]:
        """Fail every pending call: the broker is stopping."""
        sent: list[Outgoing] = []
        self._out.items = sent
        self._calls.shutdown()
        return sent

    # --- one message -----------------------------------------------------------------------

    def _decode(self, identity: bytes, frames: Sequence[Frame]) -> Sequence[w.Routed]:
        if len(frames) != 1:
            self._out.notice(
                identity,
                "IpcError",
                f"Malformed message: expected one frame (a msgpack message), got {len(frames)} frames.",
            )
            return ()
        try:
            msgs = w.decode_routed(frames[0])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            self._out.notice(identity, "IpcError", f"Malformed message frame: {exc}. Use the broker package's client.")
            return ()
        if not isinstance(msgs, list):
            return (msgs,)  # type: ignore[return-value]  # one message, not a batch
        if not msgs:
            self._out.notice(
                identity, "IpcError", "Malformed message frame: an empty batch. Send at least one message."
            )
        elif len(msgs) > self.config.max_batch_messages:
            self._out.notice(
                identity,
                "IpcRefusedError",
                f"A frame carried {len(msgs)} messages, more than the {self.config.max_batch_messages} the bus "
                "takes in one frame, so it dropped them all: send the rest in further frames.",
            )
            return ()
        return msgs

    def _dispatch(self, identity: bytes, msg: w.Routed, now: float) -> None:
        peer = self._by_identity.get(identity)
        if isinstance(msg, w.Hello):
            if peer is None or self._admit(peer, msg, now):
                self._sessions.hello(identity, peer, msg, now)
            return
        if peer is None:
            if isinstance(msg, w.Alive):  # a beacon's socket is never a peer's: checked only here
                self._liveness.alive(identity, msg, now)
                return
            # Unknown identity: a peer from before a broker restart, or one we declared dead.
            self._out.send(identity, w.NeedHello(broker=self.incarnation))
            return
        peer.last_seen = now
        match msg:
            case w.Call() | w.CallView():
                self._calls.call(peer, msg)
            case w.Reply() | w.ReplyView():
                self._calls.reply(peer, msg)
            case w.Ping():
                if msg.mark:
                    self._marked(peer, msg.mark)
                self._out.send(identity, w.Pong(broker=self.incarnation))
            case w.Send():
                self._calls.broadcast(peer, msg)
            case w.Abandon():
                self._calls.abandon(peer, msg)
            case w.Bye():
                self._sessions.remove(peer, f"{peer.name} disconnected")
            case _ if not self._admit(peer, msg, now):
                pass  # over its rate: dropped, and said so (`_admit`)
            case w.Provide():
                self._gates.provide(peer, msg)
            case w.Withdraw():
                self._gates.withdraw(peer, msg)
            case w.Subscribe():
                self._gates.subscribe(peer, msg.gate, +1)
            case w.Unsubscribe():
                self._gates.subscribe(peer, msg.gate, -1)
            case w.Snapshot():
                self._gates.send_table(peer)
            case w.Stats():
                self._out.send(identity, w.StatsReply(id=msg.id, stats=self.stats()))
            case w.Alive():
                self._liveness.alive(identity, msg, now)

    def _admit(self, peer: Peer, msg: w.Routed, now: float) -> bool:
        """Whether `peer` may send the control message `msg` now (S2: each costs the broker a
        table or an announcement to every peer); if not, it is dropped and the peer told."""
        config = self.config
        bucket = peer.control
        if bucket is None:
            bucket = peer.control = Bucket(config.control_burst, now)
        allowed = bucket.take(now, config.control_rate, config.control_burst)
        per_second = config.control_rate
        if allowed and isinstance(msg, w.Snapshot):
            tables = peer.tables
            if tables is None:
                tables = peer.tables = Bucket(config.table_burst, now)
            allowed = tables.take(now, config.table_rate, config.table_burst)
            per_second = config.table_rate
        if not allowed and now - peer.noticed >= 1.0:
            peer.noticed = now
            tag = str(type(msg).__struct_config__.tag)
            self._out.send(
                peer.identity,
                w.Notice(
                    error=err(
                        "IpcRefusedError",
                        f"{peer.name} sent more {tag} messages than the bus takes ({per_second:g} a second on "
                        "average), so the bus dropped them: send fewer, as a process needs them only when "
                        "it joins or changes what it provides or subscribes to.",
                    ),
                    about=tag,
                ),
            )
        return allowed
