"""The attacks of bench.abuse: raw ZeroMQ clients that speak the bus's wire format and abuse it (S2).

Each attack is a function of the broker's endpoint and a deadline: it runs in the attacker child
(`python -m bench.abuse --role attack`), on 127.0.0.1 only, its loops bounded both in count and by
the deadline, and returns what it did and what the broker answered. They never read more than
they need: the slow reader reads nothing at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import zmq

from broker import _wire as w

Ctx = zmq.Context[zmq.Socket[bytes]]
Done = dict[str, Any]
"""What an attack did, and the first thing the broker told it (`said`)."""
Attack = Callable[[Ctx, str, float, bool], Done]
"""(context, endpoint, deadline on time.monotonic(), quick) -> what it did."""

HUGE = 1_900_000
"""A parameter type string of 1.9 MB: under the broker's frame ceiling, over a table's worth."""


def _dealer(ctx: Ctx, endpoint: str) -> zmq.Socket[bytes]:
    if not endpoint.startswith("tcp://127.0.0.1:"):
        raise SystemExit(f"bench.abuse attacks only 127.0.0.1, not {endpoint}")
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDHWM, 1000)
    sock.connect(endpoint)
    return sock


def _hello(sock: zmq.Socket[bytes], name: str, incarnation: str = "", wait: bool = True) -> w.ToPeer | None:
    sock.send(w.encode(w.Hello(name=name, protocol=w.PROTOCOL_VERSION, incarnation=incarnation or name, batch=True)))
    if not wait:
        return None
    return _answer(sock, (w.Welcome, w.Refused, w.NameBusy), 5.0)


def _answer(sock: zmq.Socket[bytes], kinds: tuple[type, ...], timeout: float) -> w.ToPeer | None:
    """The next message of one of `kinds`, or None after `timeout` seconds."""
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        if not sock.poll(int(left * 1000) + 1):
            return None
        frame = w.decode_peer_frame(sock.recv())
        for msg in frame if isinstance(frame, list) else [frame]:
            if isinstance(msg, kinds):
                return msg
    return None


def _drain_notices(sock: zmq.Socket[bytes]) -> list[str]:
    """The Notices and refusals already queued for `sock`, without waiting."""
    said: list[str] = []
    while sock.poll(0):
        frame = w.decode_peer_frame(sock.recv())
        said += [m.error.message for m in (frame if isinstance(frame, list) else [frame]) if isinstance(m, w.Notice)]
    return said


def _said(msg: w.ToPeer | None) -> str | None:
    return msg.error.message if isinstance(msg, w.Notice | w.Refused) else None


def poisoned_provide(
    ctx: zmq.Context[zmq.Socket[bytes]], endpoint: str, deadline: float, quick: bool
) -> dict[str, Any]:
    """Gates whose parameter type is a 1.9 MB string: every later Welcome would carry them."""
    sock = _dealer(ctx, endpoint)
    _hello(sock, "AtkProvide")
    sent = 0
    for i in range(3 if quick else 10):
        if time.monotonic() > deadline:
            break
        sock.send(w.encode(w.Provide(gate=f"AtkProvide.Gate{i}", kind="func", params=("x" * HUGE,))))
        sent += 1
    notice = _answer(sock, (w.Notice,), 5.0)
    return {"frames": sent, "said": notice.error.message if isinstance(notice, w.Notice) else None}


def amplify_batch(ctx: Ctx, endpoint: str, deadline: float, quick: bool) -> Done:
    """A 240 KB batch frame of 20,000 Snapshot requests, again and again: 20,000 tables each."""
    sock = _dealer(ctx, endpoint)
    _hello(sock, "AtkBatch")
    frame = w.pack([w.encode(w.Snapshot())] * 20_000)
    sent = 0
    for _ in range(20 if quick else 100):
        if time.monotonic() > deadline:
            break
        sock.send(frame)
        sent += 1
    notice = _answer(sock, (w.Notice,), 5.0)
    return {
        "frames": sent,
        "bytes_each": len(frame),
        "said": notice.error.message if isinstance(notice, w.Notice) else None,
    }


def control_flood(ctx: Ctx, endpoint: str, deadline: float, quick: bool) -> Done:
    """Snapshot, Stats, Subscribe and Hello as fast as the socket takes them, 64 to a frame."""
    sock = _dealer(ctx, endpoint)
    _hello(sock, "AtkControl")
    msgs = [w.Snapshot(), w.Stats(id=1), w.Subscribe(gate="AtkControl.News"), w.Unsubscribe(gate="AtkControl.News")]
    frame = w.pack([w.encode(msgs[i % 4]) for i in range(64)])
    sent = 0
    for _ in range(2_000 if quick else 20_000):
        if time.monotonic() > deadline:
            break
        try:
            sock.send(frame, zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            _drain_notices(sock)  # it must read some, or its own queue is what fills
    return {"frames": sent, "messages": sent * 64}


def slow_reader(ctx: Ctx, endpoint: str, deadline: float, quick: bool) -> Done:
    """A peer that subscribes and then never reads, while a second one floods the gate."""
    deaf, pub = _dealer(ctx, endpoint), _dealer(ctx, endpoint)
    _hello(deaf, "AtkDeaf")
    deaf.send(w.encode(w.Subscribe(gate="AtkPub.News")))
    _hello(pub, "AtkPub")
    payload = b'["' + b"n" * 100_000 + b'"]'
    frame = w.encode(w.Send(gate="AtkPub.News", payload=payload))
    sent = 0
    for _ in range(1_000 if quick else 3_000):  # 100 MB or 300 MB, over the 64 MiB budget
        if time.monotonic() > deadline:
            break
        try:
            pub.send(frame, zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            _drain_notices(pub)
    notice = _answer(deaf, (w.Notice,), 10.0)  # now it reads: the reason is at the end of its queue
    while isinstance(notice, w.Notice) and notice.about != "queued":
        notice = _answer(deaf, (w.Notice,), 10.0)
    return {"frames": sent, "said": notice.error.message if isinstance(notice, w.Notice) else None}


def long_incarnation(
    ctx: zmq.Context[zmq.Socket[bytes]], endpoint: str, deadline: float, quick: bool
) -> dict[str, Any]:
    """Hellos for the honest peers' names, each with a fresh 1 MB incarnation: a contest table
    keyed on them would hold them all."""
    sock = _dealer(ctx, endpoint)
    sent = 0
    for i in range(50 if quick else 300):
        if time.monotonic() > deadline:
            break
        _hello(sock, f"Honest{i % 4}", incarnation=f"{i:08d}" + "i" * 1_000_000, wait=False)
        sent += 1
    said = _answer(sock, (w.Refused,), 5.0)
    return {"frames": sent, "said": said.error.message if isinstance(said, w.Refused) else None}


def many_names(ctx: Ctx, endpoint: str, deadline: float, quick: bool) -> Done:
    """One connection saying Hello under a new name again and again: each a join and a leave
    announced to every peer."""
    sock = _dealer(ctx, endpoint)
    _hello(sock, "AtkName0")
    sent = 0
    for i in range(2_000 if quick else 20_000):
        if time.monotonic() > deadline:
            break
        names = [
            w.encode(w.Hello(name=f"AtkName{i * 64 + j}", protocol=w.PROTOCOL_VERSION, incarnation="x"))
            for j in range(64)
        ]
        try:
            sock.send(w.pack(names), zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            _drain_notices(sock)
    return {"frames": sent, "hellos": sent * 64}


def many_connections(
    ctx: zmq.Context[zmq.Socket[bytes]], endpoint: str, deadline: float, quick: bool
) -> dict[str, Any]:
    """A connection a name, past the broker's bound on peers."""
    count = 300 if quick else 1_200
    socks = [_dealer(ctx, endpoint) for _ in range(count)]
    for i, sock in enumerate(socks):
        _hello(sock, f"AtkConn{i}", wait=False)
    welcomed = refused = waiting = 0
    for sock in socks:
        if time.monotonic() > deadline + 10:
            break
        answer = _answer(sock, (w.Welcome, w.Refused, w.NameBusy), 5.0)
        welcomed += isinstance(answer, w.Welcome)
        refused += isinstance(answer, w.Refused)
        waiting += isinstance(answer, w.NameBusy)
    for sock in socks:
        sock.close(0)
    return {"connections": count, "welcomed": welcomed, "refused": refused, "told_to_wait": waiting}


ATTACKS: dict[str, Attack] = {
    "poisoned_provide": poisoned_provide,
    "amplify_batch": amplify_batch,
    "control_flood": control_flood,
    "slow_reader": slow_reader,
    "long_incarnation": long_incarnation,
    "many_names": many_names,
    "many_connections": many_connections,
}
