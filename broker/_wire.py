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

Batches: a frame may also be a msgpack array of such messages, read one after the other as if
each had come alone. Every ZeroMQ message costs a send, a wake-up of ZeroMQ's I/O thread and a
receive in each process it crosses, so when several messages are ready in one loop turn, for
one destination, they share a frame (`pack`, `batches`). Each side sends batches only to a
side that said it reads them: a peer in its Hello (`batch`), the broker in its Welcome
(`batch`). A process of an older version leaves the field out, and gets one message a frame.

`Alive` travels on a socket of its own (a process's liveness beacon, `_transport.LivenessBeacon`),
so it names the process and proves it with its incarnation, which only that process and the
broker know; the broker answers it with `AliveAck` on the same socket.

Fields only ever get added, with defaults (msgspec's schema-evolution rules).

Long because every frame of the protocol lives in this one module (STYLE 6): the messages, the
broker's header views of two of them, and the batch frame that carries them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Sized
from typing import TYPE_CHECKING, Final, Literal, Protocol

import msgspec

if TYPE_CHECKING:
    from typing_extensions import Buffer

    class Frame(Buffer, Sized, Protocol):
        """A received frame: bytes, or a zmq.Frame lent without a copy."""


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
    batch: bool = False
    """This peer reads batch frames: the broker may join the messages it sends it."""


class Ping(msgspec.Struct, tag="ping", tag_field="t", frozen=True):
    mark: int = 0
    """The latest `Pong.mark` this process read: it has read everything the broker sent before it
    (S2: what the broker sent after the latest mark echoed waits unread, and is bounded)."""


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
    batch: bool = False
    """This broker reads batch frames: the peer may join the messages it sends."""
    more: bool = False
    """The gate table goes on in the GateTable pages that follow (`GateTable.part`)."""


class Refused(msgspec.Struct, tag="refused", tag_field="t", frozen=True):
    error: ErrorInfo


class NeedHello(msgspec.Struct, tag="needhello", tag_field="t", frozen=True):
    broker: str


class Pong(msgspec.Struct, tag="pong", tag_field="t", frozen=True):
    broker: str
    mark: int = 0
    """Nonzero: a mark in this process's stream, which it echoes at once in a Ping (`Ping.mark`),
    proving it has read everything before it (S2). Only a reader knows it: it cannot be guessed."""


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
    """The whole gate table (the answer to a Snapshot), or a page of it: a table too big for one
    frame goes as a first message (this, or a Welcome) with `more`, then pages with `part` (S2)."""

    gates: tuple[GateInfo, ...]
    peers: tuple[str, ...]
    seq: int
    part: bool = False
    """A page that goes on the table before it (a Welcome, or a GateTable); `peers` is empty."""
    more: bool = False
    """More pages follow."""


class Notice(msgspec.Struct, tag="notice", tag_field="t", frozen=True):
    """An error about something that had no reply of its own (a refused Provide, a bad frame)."""

    error: ErrorInfo
    about: str = ""
    """The tag of the message refused ("snapshot", "stats"), when a waiter waits for its answer."""


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
    reason: str = ""
    """Why the name must wait, when it is not held at all: the bus takes no more newcomers this
    moment (S2, a flood of joins); empty for a name another process holds."""


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

# --- what the broker forwards: the header read, the payload left as it came ------------------
#
# The broker routes a Call and a Reply by their header alone. A frame of `VIEW_ABOVE` bytes or
# more is read with views of them (same tags, same fields) that keep the payload as
# `msgspec.Raw`, a view of the received frame, and the Invoke or Result built from one embeds
# it as it came: copied once, into the frame sent on, not also decoded into bytes first (36 us
# a MiB, every hop). A smaller frame is read with the typed messages: at 200 bytes a `bytes`
# payload costs less than a Raw and the check below (0.3 us a message, measured). Either way the
# payload is msgpack binary (msgspec checks a `bytes` field, `bin_size` a view), so nothing a
# peer could not decode goes on, and spoils the batch it would travel in.

VIEW_ABOVE: Final = 16 * 1024
EMPTY_BIN: Final = msgspec.Raw(b"\xc4\x00")
"""An empty payload, encoded (msgpack bin 8 of length 0)."""


class CallView(msgspec.Struct, tag="call", tag_field="t", frozen=True):
    id: int
    gate: str
    kind: Kind = "func"
    payload: msgspec.Raw = EMPTY_BIN


class ReplyView(msgspec.Struct, tag="reply", tag_field="t", frozen=True):
    id: int
    error: ErrorInfo | None = None
    payload: msgspec.Raw = EMPTY_BIN


class InvokeOut(msgspec.Struct, tag="invoke", tag_field="t", frozen=True):
    """`Invoke` as the broker builds it (encoded only): the payload as it came, bytes or a view."""

    id: int
    gate: str
    kind: Kind
    caller: str
    payload: bytes | msgspec.Raw = b""


class ResultOut(msgspec.Struct, tag="result", tag_field="t", frozen=True):
    """`Result` as the broker builds it (encoded only)."""

    id: int
    error: ErrorInfo | None = None
    payload: bytes | msgspec.Raw = b""


_Control = Hello | Ping | Bye | Provide | Withdraw | Subscribe | Unsubscribe | Send | Snapshot | Alive | Abandon | Stats
_Viewed = _Control | CallView | ReplyView
Routed = ToBroker | CallView | ReplyView
"""A message as the broker reads it: Call and Reply typed, or as views in a large frame."""

_BIN_HEADER: Final = {0xC4: 2, 0xC5: 3, 0xC6: 5}


def bin_size(raw: msgspec.Raw) -> int:
    """The length of the msgpack binary `raw` holds, or -1 if it holds anything else."""
    view = memoryview(raw)
    header = _BIN_HEADER.get(view[0], 0) if view.nbytes else 0
    return view.nbytes - header if header else -1


# --- batch frames ---------------------------------------------------------------------------

BATCH_BYTES: Final = 64 * 1024
"""At most this many bytes of messages share a frame; a bigger message goes alone. Far under
every frame ceiling, and small enough that joining costs less than the sends it saves."""


def pack(frames: list[bytes]) -> bytes:
    """One batch frame of encoded messages: a msgpack array header, then the messages as they are."""
    count = len(frames)
    if count < 16:
        header = bytes((0x90 | count,))
    elif count < 0x10000:
        header = b"\xdc" + count.to_bytes(2, "big")
    else:
        header = b"\xdd" + count.to_bytes(4, "big")
    return header + b"".join(frames)


BATCH_MESSAGES: Final = 32
"""At most this many messages share a frame. A batch of everything ready makes the calls in
flight travel as one wave, which one process handles while the other two wait; capped, two or
more waves overlap (64 calls in flight, 2 cores: 66k calls/s uncapped, 82k to 97k at 32,
measured; 16 and 48 in between, 8 and less worse: sends stop being amortised)."""


def batches(frames: list[bytes], limit: int = BATCH_BYTES, most: int = BATCH_MESSAGES) -> Iterator[tuple[bytes, int]]:
    """The frames to send for `frames` in order, each with how many messages it carries: runs of
    up to `most` messages and `limit` bytes in one batch frame, a message that would be alone
    as itself (a batch of one would only cost bytes)."""
    start = size = 0
    for index, frame in enumerate(frames):
        if (size + len(frame) > limit or index - start >= most) and index > start:
            yield (frames[start] if index - start == 1 else pack(frames[start:index])), index - start
            start, size = index, 0
        size += len(frame)
    count = len(frames) - start
    if count:
        yield (frames[start] if count == 1 else pack(frames[start:])), count


# Built once: encoding and decoding are on the hot path of every call.
encode = msgspec.msgpack.Encoder().encode
decode_to_broker = msgspec.msgpack.Decoder(ToBroker).decode
decode_to_peer = msgspec.msgpack.Decoder(ToPeer).decode
_peer_frame: msgspec.msgpack.Decoder[ToPeer | list[ToPeer]] = msgspec.msgpack.Decoder(ToPeer | list[ToPeer])
decode_peer_frame = _peer_frame.decode
"""The message, or the batch of messages, of a frame sent to a peer."""
_small: msgspec.msgpack.Decoder[ToBroker | list[ToBroker]] = msgspec.msgpack.Decoder(ToBroker | list[ToBroker])
_large: msgspec.msgpack.Decoder[_Viewed | list[_Viewed]] = msgspec.msgpack.Decoder(_Viewed | list[_Viewed])


def decode_routed(frame: Frame) -> Routed | Sequence[Routed]:
    """The message, or the batch of messages, of a frame sent to the broker."""
    return (_large if len(frame) >= VIEW_ABOVE else _small).decode(frame)
