"""The bus's wire format: every frame header as a msgspec Struct, in one place.

A bus message is one msgpack frame: a tagged union (tag field "t"). Calls, replies and messages
carry their payload in a `payload` field as msgpack binary: JSON (an argument array for calls
and messages, a value for results) that is opaque to the broker, which only forwards it and
checks its size. One frame rather than a header frame plus a payload frame: every frame costs
a send and a receive in each of three processes, and that showed in the benchmark.

Peer -> broker: Hello, Ping, Bye, Provide, Withdraw, Subscribe, Unsubscribe, Call, Reply,
Send, Snapshot, Alive, Abandon, Stats.  Broker -> peer: Welcome, Refused, NeedHello, Pong,
Invoke, Result, Message, GateChanged, PeerJoined, PeerLeft, GateTable, Notice, AliveAck,
NameBusy, StatsReply.

`Alive` travels on a socket of its own (a process's liveness beacon, `_transport.LivenessBeacon`),
so it names the process and proves it with its incarnation, which only that process and the
broker know; the broker answers it with `AliveAck` on the same socket.

Fields only ever get added, with defaults (msgspec's schema-evolution rules).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

PROTOCOL_VERSION: Final = 1

Kind = Literal["func", "action"]


class ErrorInfo(msgspec.Struct, frozen=True):
    """An error as it travels: the IpcError class name and its message."""

    kind: str
    message: str
    type_name: str = ""
    detail: str = ""


class BrokerStats(msgspec.Struct, frozen=True):
    """What the broker holds right now, for tests and benchmarks (`PluginInterface.broker_stats`).

    `in_flight` counts the calls each process has waiting for a reply, by caller name;
    `contested_names` the names a newcomer is waiting for (B4).
    """

    broker: str
    peers: int
    gates: int
    pending_calls: int
    subscriptions: int = 0
    in_flight: dict[str, int] = {}
    contested_names: int = 0


class SlotInfo(msgspec.Struct, frozen=True):
    """Who fills a func or action slot of a gate, and its declared signature."""

    provider: str
    params: tuple[str, ...] = ()
    returns: str | None = None


class GateInfo(msgspec.Struct, frozen=True):
    """One gate as the broker knows it."""

    name: str
    func: SlotInfo | None = None
    action: SlotInfo | None = None
    subscribers: tuple[str, ...] = ()
    subscriptions: int = 0


# --- peer -> broker -------------------------------------------------------------------------


class Hello(msgspec.Struct, tag="hello", tag_field="t", frozen=True):
    name: str
    protocol: int
    incarnation: str


class Ping(msgspec.Struct, tag="ping", tag_field="t", frozen=True):
    pass


class Bye(msgspec.Struct, tag="bye", tag_field="t", frozen=True):
    pass


class Provide(msgspec.Struct, tag="provide", tag_field="t", frozen=True):
    gate: str
    kind: Kind
    params: tuple[str, ...] = ()
    returns: str | None = None


class Withdraw(msgspec.Struct, tag="withdraw", tag_field="t", frozen=True):
    gate: str
    kind: Kind


class Subscribe(msgspec.Struct, tag="sub", tag_field="t", frozen=True):
    gate: str


class Unsubscribe(msgspec.Struct, tag="unsub", tag_field="t", frozen=True):
    gate: str


class Call(msgspec.Struct, tag="call", tag_field="t", frozen=True):
    id: int
    gate: str
    kind: Kind = "func"
    payload: bytes = b""


class Reply(msgspec.Struct, tag="reply", tag_field="t", frozen=True):
    id: int
    error: ErrorInfo | None = None
    payload: bytes = b""


class Send(msgspec.Struct, tag="send", tag_field="t", frozen=True):
    gate: str
    payload: bytes = b""


class Snapshot(msgspec.Struct, tag="snapshot", tag_field="t", frozen=True):
    pass


class Alive(msgspec.Struct, tag="alive", tag_field="t", frozen=True):
    """From a process's liveness beacon: "this process is alive", whatever its event loop does.

    `stamp` is the beacon's clock when it sent this; the AliveAck carries it back, so the process
    can tell an answer to an Alive sent before its latest Welcome (stale) from a fresh one."""

    name: str
    incarnation: str
    stamp: float = 0.0


class Abandon(msgspec.Struct, tag="abandon", tag_field="t", frozen=True):
    """The caller gave up on its call `id` (cancelled, timed out): free it at the broker."""

    id: int


class Stats(msgspec.Struct, tag="stats", tag_field="t", frozen=True):
    id: int = 0


ToBroker = (
    Hello
    | Ping
    | Bye
    | Provide
    | Withdraw
    | Subscribe
    | Unsubscribe
    | Call
    | Reply
    | Send
    | Snapshot
    | Alive
    | Abandon
    | Stats
)

# --- broker -> peer -------------------------------------------------------------------------


class Welcome(msgspec.Struct, tag="welcome", tag_field="t", frozen=True):
    name: str
    broker: str
    heartbeat: float
    timeout: float
    max_payload: int
    gates: tuple[GateInfo, ...] = ()
    peers: tuple[str, ...] = ()
    seq: int = 0
    max_gates: int = 0
    """Gates this process may provide; 0: a broker from before the limit (use the default)."""
    max_subscriptions: int = 0


class Refused(msgspec.Struct, tag="refused", tag_field="t", frozen=True):
    error: ErrorInfo


class NeedHello(msgspec.Struct, tag="needhello", tag_field="t", frozen=True):
    broker: str


class Pong(msgspec.Struct, tag="pong", tag_field="t", frozen=True):
    broker: str


class Invoke(msgspec.Struct, tag="invoke", tag_field="t", frozen=True):
    id: int
    gate: str
    kind: Kind
    caller: str
    payload: bytes = b""


class Result(msgspec.Struct, tag="result", tag_field="t", frozen=True):
    id: int
    error: ErrorInfo | None = None
    payload: bytes = b""


class Message(msgspec.Struct, tag="msg", tag_field="t", frozen=True):
    gate: str
    sender: str
    seq: int
    payload: bytes = b""


class GateChanged(msgspec.Struct, tag="gate", tag_field="t", frozen=True):
    gate: GateInfo
    seq: int


class PeerJoined(msgspec.Struct, tag="joined", tag_field="t", frozen=True):
    name: str
    seq: int


class PeerLeft(msgspec.Struct, tag="left", tag_field="t", frozen=True):
    name: str
    reason: str
    seq: int


class GateTable(msgspec.Struct, tag="table", tag_field="t", frozen=True):
    gates: tuple[GateInfo, ...]
    peers: tuple[str, ...]
    seq: int


class Notice(msgspec.Struct, tag="notice", tag_field="t", frozen=True):
    """An error about something that had no reply of its own (a refused Provide, a bad frame)."""

    error: ErrorInfo


class AliveAck(msgspec.Struct, tag="aliveack", tag_field="t", frozen=True):
    """The answer to an Alive: `known` is False if the broker has no process of that name and
    incarnation (it restarted, or it removed this one): the process must say Hello again."""

    broker: str
    known: bool
    stamp: float = 0.0


class NameBusy(msgspec.Struct, tag="namebusy", tag_field="t", frozen=True):
    """The answer to a Hello for a name another process holds while the broker finds out whether
    that process is still alive: say Hello again in `retry_in` seconds (B4)."""

    name: str
    last_heard: float
    """Seconds since the broker last heard from the process holding the name."""
    frees_within: float
    """Seconds within which the name is free if that process is gone."""
    retry_in: float


class StatsReply(msgspec.Struct, tag="statsreply", tag_field="t", frozen=True):
    id: int
    stats: BrokerStats


ToPeer = (
    Welcome
    | Refused
    | NeedHello
    | Pong
    | Invoke
    | Result
    | Message
    | GateChanged
    | PeerJoined
    | PeerLeft
    | GateTable
    | Notice
    | AliveAck
    | NameBusy
    | StatsReply
)

# Built once: encoding and decoding are on the hot path of every call.
encode = msgspec.msgpack.Encoder().encode
decode_to_broker = msgspec.msgpack.Decoder(ToBroker).decode
decode_to_peer = msgspec.msgpack.Decoder(ToPeer).decode
