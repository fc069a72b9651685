"""Batch frames, header views and cached routes: the bus hop's shortcuts keep every promise.

Batches are negotiated (a Hello and a Welcome say `batch`), so a peer or broker of an older
version, and every raw client, still gets one message a frame; a batch is handled exactly as
its messages one after the other. The broker forwards a payload without decoding it, but
refuses one that is not msgpack binary, as the typed decoder did. A cached route never
outlives the slot, provider or pair it points at.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import anyio
import msgspec
import pytest
import pytest_asyncio
import zmq
import zmq.asyncio

import broker
from broker import _transport
from broker import _wire as w

from .test_router import A, B, Bus, C, of_kind, only

WAIT = 5.0


# --- the frame format -------------------------------------------------------------------------


def test_a_batch_frame_decodes_to_its_messages_in_order() -> None:
    calls = [w.Call(id=i, gate="Prov.Echo", payload=b"[%d]" % i) for i in range(20)]  # past 15: a longer header
    assert w.decode_routed(w.pack([w.encode(c) for c in calls])) == calls
    results = [w.Result(id=i) for i in range(3)]
    assert w.decode_peer_frame(w.pack([w.encode(r) for r in results])) == results
    assert w.decode_peer_frame(w.encode(results[0])) == results[0]  # a single message still reads alone


def test_a_large_frame_is_read_with_views_that_leave_the_payload_as_it_came() -> None:
    big = b"x" * w.VIEW_ABOVE
    msgs = w.decode_routed(w.pack([w.encode(w.Call(id=1, gate="P.E", payload=big)), w.encode(w.Reply(id=2))]))
    assert isinstance(msgs, list) and [type(m) for m in msgs] == [w.CallView, w.ReplyView]
    call = msgs[0]
    assert isinstance(call, w.CallView) and bytes(memoryview(call.payload)) == msgspec.msgpack.encode(big)


def test_batches_join_runs_under_the_limit_and_send_a_message_alone_as_itself() -> None:
    small, big = b"s" * 10, b"b" * 100
    out = list(w.batches([small, small, big, small, small, small], limit=40))
    assert [count for _, count in out] == [2, 1, 3]
    assert out[0][0] == w.pack([small, small]) and out[1][0] == big and out[2][0] == w.pack([small] * 3)
    assert [count for _, count in w.batches([small] * 70)] == [
        w.BATCH_MESSAGES,
        w.BATCH_MESSAGES,
        70 - 2 * w.BATCH_MESSAGES,
    ]
    assert list(w.batches([small])) == [(small, 1)]
    assert list(w.batches([])) == []
    assert all(len(frame) <= 40 + 5 for frame, count in out if count > 1)


def test_bin_size_reads_every_binary_header_and_refuses_anything_else() -> None:
    for size in (0, 255, 256, 70_000):
        assert w.bin_size(msgspec.Raw(msgspec.msgpack.encode(b"x" * size))) == size
    for value in ("text", 7, None, [b"x"]):
        assert w.bin_size(msgspec.Raw(msgspec.msgpack.encode(value))) == -1


def test_the_broker_views_encode_exactly_as_the_messages_they_stand_for() -> None:
    payload = b'["hi"]'
    raw = msgspec.Raw(msgspec.msgpack.encode(payload))
    expected = w.encode(w.Invoke(id=9, gate="P.E", kind="func", caller="C", payload=payload))
    for as_received in (payload, raw):
        assert w.encode(w.InvokeOut(id=9, gate="P.E", kind="func", caller="C", payload=as_received)) == expected
    assert w.encode(w.ResultOut(id=3)) == w.encode(w.Result(id=3))
    assert w.encode(w.ResultOut(id=3, payload=raw)) == w.encode(w.Result(id=3, payload=payload))


def test_hello_and_welcome_without_the_batch_field_mean_no_batches() -> None:
    hello = w.decode_to_broker(msgspec.msgpack.encode({"t": "hello", "name": "Old", "protocol": 1, "incarnation": "x"}))
    assert isinstance(hello, w.Hello) and hello.batch is False
    assert w.Welcome(name="P", broker="b", heartbeat=0.5, timeout=2.0, max_payload=1).batch is False


# --- the router -------------------------------------------------------------------------------


def test_the_broker_welcomes_with_batch_and_sends_batches_only_to_a_peer_that_asked() -> None:
    bus = Bus()
    welcome = only(bus.send(A, w.Hello(name="New", protocol=w.PROTOCOL_VERSION, incarnation="n", batch=True)), to=A)
    assert isinstance(welcome.msg, w.Welcome) and welcome.msg.batch is True
    bus.hello(B, "Old")
    assert bus.router.reads_batches(A) and not bus.router.reads_batches(B) and not bus.router.reads_batches(C)


def test_a_batch_is_handled_as_its_messages_one_after_the_other() -> None:
    bus = Bus()
    bus.hello(A, "Prov")
    hello = w.Hello(name="Caller", protocol=w.PROTOCOL_VERSION, incarnation="c")
    frame = w.pack(
        [
            w.encode(hello),  # the batch's first message makes the peer its next ones come from
            w.encode(w.Call(id=1, gate="Prov.Echo", payload=b"[]")),  # not provided yet: refused
            w.encode(w.Ping()),
        ]
    )
    sent = bus.raw(B, [frame])
    assert [type(s.msg) for s in sent if s.to == B] == [w.Welcome, w.Result, w.Pong]
    bus.provide(A, "Prov.Echo")
    calls = w.pack([w.encode(w.Call(id=i, gate="Prov.Echo", payload=b"[%d]" % i)) for i in (2, 3, 4)])
    invokes = of_kind(bus.raw(B, [calls]), w.Invoke)
    assert [s.payload for s in invokes] == [b"[2]", b"[3]", b"[4]"] and all(s.to == A for s in invokes)


def test_an_empty_batch_is_answered_with_a_notice() -> None:
    bus = Bus()
    bus.hello(A, "Raw")
    [notice] = bus.raw(A, [w.pack([])])
    assert isinstance(notice.msg, w.Notice) and "an empty batch" in notice.msg.error.message


@pytest.mark.parametrize("filler", [0, w.VIEW_ABOVE], ids=["small-frame", "large-frame-view"])
def test_a_payload_that_is_not_binary_is_refused_and_nothing_is_forwarded(filler: int) -> None:
    bus = Bus()
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    pad = "p" * filler  # an unknown field: a large frame is read with views
    bad_call = msgspec.msgpack.encode({"t": "call", "id": 1, "gate": "Prov.Echo", "payload": "[]", "pad": pad})
    [notice] = bus.raw(B, [bad_call])
    assert notice.to == B and isinstance(notice.msg, w.Notice) and "Malformed message frame" in notice.msg.error.message
    assert bus.router.pending_calls == 0
    [invoke] = bus.call(B, 2, "Prov.Echo")
    assert isinstance(invoke.msg, w.Invoke)
    bad_reply = msgspec.msgpack.encode({"t": "reply", "id": invoke.msg.id, "payload": 5, "pad": pad})
    [notice] = bus.raw(A, [bad_reply])
    assert notice.to == A and isinstance(notice.msg, w.Notice)
    assert bus.router.pending_calls == 1  # the call still waits for a reply it can forward


def test_a_large_payload_goes_through_as_it_came_both_ways() -> None:
    bus = Bus()
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    big = b'"' + b"z" * (2 * w.VIEW_ABOVE) + b'"'
    [invoke] = bus.call(B, 1, "Prov.Echo", big)
    assert isinstance(invoke.msg, w.Invoke) and invoke.payload == big
    [result] = bus.send(A, w.Reply(id=invoke.msg.id), big)
    assert isinstance(result.msg, w.Result) and result.msg.id == 1 and result.payload == big


def test_a_cached_route_follows_the_gate_to_a_new_provider_and_forgets_a_withdrawn_one() -> None:
    bus = Bus()
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    assert only(bus.call(B, 1, "Prov.Echo"), kind=w.Invoke).to == A  # cached now
    bus.send(A, w.Bye())  # fails call 1; the restarted provider comes on another connection
    bus.hello(C, "Prov")
    bus.provide(C, "Prov.Echo")
    assert only(bus.call(B, 2, "Prov.Echo"), kind=w.Invoke).to == C
    bus.send(C, w.Withdraw(gate="Prov.Echo", kind="func"))
    [refused] = bus.call(B, 3, "Prov.Echo")
    assert isinstance(refused.msg, w.Result) and refused.msg.error is not None
    assert refused.msg.error.kind == "IpcNotReadyError"


def test_cached_routes_keep_every_limit() -> None:
    # SPEC: B6, B7
    bus = Bus(max_in_flight=3, max_in_flight_per_provider=2, max_payload=64)
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    first = only(bus.call(B, 1, "Prov.Echo"), kind=w.Invoke)
    only(bus.call(B, 2, "Prov.Echo"), kind=w.Invoke)
    [full] = bus.call(B, 3, "Prov.Echo")
    assert (
        isinstance(full.msg, w.Result)
        and full.msg.error is not None
        and "calls in flight to Prov" in full.msg.error.message
    )
    [big] = bus.call(B, 4, "Prov.Echo", b"[" + b"1," * 40 + b"1]")
    assert (
        isinstance(big.msg, w.Result)
        and big.msg.error is not None
        and "bytes; the bus carries at most 64" in big.msg.error.message
    )
    assert isinstance(first.msg, w.Invoke)
    assert bus.send(B, w.Abandon(id=1)) == []  # frees a place at once
    assert isinstance(only(bus.call(B, 5, "Prov.Echo"), kind=w.Invoke).msg, w.Invoke)
    assert bus.router.stats().in_flight == {"Caller": 2}


# --- the broker and a peer on real sockets -----------------------------------------------------


@pytest.fixture
def thread_broker() -> Iterator[broker.Broker]:
    bus = broker.Broker(broker.BrokerConfig(endpoint="tcp://127.0.0.1:0")).start_in_thread()
    try:
        yield bus
    finally:
        bus.close()


@pytest_asyncio.fixture
async def zmq_context() -> AsyncIterator[zmq.asyncio.Context]:
    ctx = zmq.asyncio.Context()
    try:
        yield ctx
    finally:
        ctx.destroy(linger=0)


@contextlib.asynccontextmanager
async def _raw_caller(
    ctx: zmq.asyncio.Context, endpoint: str, name: str, batch: bool
) -> AsyncIterator[zmq.asyncio.Socket]:
    """A DEALER past its Welcome, closed on leaving (never left for the garbage collector)."""
    with ctx.socket(zmq.DEALER) as sock:
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(endpoint)
        await sock.send(w.encode(w.Hello(name=name, protocol=w.PROTOCOL_VERSION, incarnation=name, batch=batch)))
        while not isinstance(w.decode_peer_frame(await sock.recv()), w.Welcome):
            pass
        yield sock


async def _results(sock: zmq.asyncio.Socket, count: int) -> list[int]:
    """The number of messages in each frame that brought the next `count` Results."""
    per_frame: list[int] = []
    while sum(per_frame) < count:
        msg = w.decode_peer_frame(await sock.recv())
        msgs = msg if isinstance(msg, list) else [msg]
        if any(isinstance(m, w.Result) for m in msgs):
            assert all(isinstance(m, w.Result) and m.error is None for m in msgs)
            per_frame.append(len(msgs))
    return per_frame


@pytest.mark.asyncio
async def test_the_broker_batches_results_for_a_peer_that_reads_batches_and_not_for_a_raw_one(
    thread_broker: broker.Broker, zmq_context: zmq.asyncio.Context
) -> None:
    async with broker.connect(thread_broker.endpoint, "Prov") as prov:
        prov.get_ipc_provider("Prov.Echo", params=(str,), returns=str).register_func(lambda text: text)
        await prov.flush()
        calls = w.pack([w.encode(w.Call(id=i, gate="Prov.Echo", payload=b'["x"]')) for i in range(1, 6)])
        with anyio.fail_after(WAIT):
            async with _raw_caller(zmq_context, thread_broker.endpoint, "New", batch=True) as new:
                await new.send(calls)
                assert await _results(new, 5) == [5]  # the provider answered the batch as one, too
            async with _raw_caller(zmq_context, thread_broker.endpoint, "Old", batch=False) as old:
                await old.send(calls)  # a raw client may send a batch; it gets one message a frame
                assert await _results(old, 5) == [1] * 5


@pytest.mark.asyncio
@pytest.mark.parametrize("broker_batches", [True, False], ids=["batching-broker", "older-broker"])
async def test_a_peer_joins_its_calls_only_for_a_broker_that_reads_batches(
    zmq_context: zmq.asyncio.Context, broker_batches: bool
) -> None:
    fake = zmq_context.socket(zmq.ROUTER)
    fake.setsockopt(zmq.LINGER, 0)
    fake.bind("tcp://127.0.0.1:*")  # the port the OS gives it: no other test process takes it first
    endpoint = fake.getsockopt_string(zmq.LAST_ENDPOINT)
    welcome = w.Welcome(
        name="Many", broker="fake", heartbeat=0.5, timeout=2.0, max_payload=1 << 20, batch=broker_batches
    )
    frames: list[int] = []  # messages per frame carrying Calls

    async def script() -> None:
        answered = 0
        while answered < 4:
            identity, frame = await fake.recv_multipart()
            if not broker_batches:
                w.decode_to_broker(frame)  # one message a frame, or this raises
            decoded = w.decode_routed(frame)
            msgs = decoded if isinstance(decoded, list) else [decoded]
            for m in msgs:
                if isinstance(m, w.Hello):
                    await fake.send_multipart([identity, w.encode(welcome)])
                elif isinstance(m, w.Call):
                    answered += 1
                    await fake.send_multipart([identity, w.encode(w.Result(id=m.id, payload=b'"ok"'))])
            calls_here = sum(isinstance(m, w.Call) for m in msgs)
            if calls_here:
                frames.append(calls_here)

    with anyio.fail_after(WAIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(script)
            async with broker.connect(endpoint, "Many") as pi:
                echo = pi.get_ipc_subscriber("Fake.Echo")
                replies: list[object] = []

                async def call() -> None:
                    replies.append(await echo.invoke_func("hi"))

                async with anyio.create_task_group() as calls:
                    for _ in range(4):
                        calls.start_soon(call)  # all four run in one loop turn
    assert replies == ["ok"] * 4
    # The turn's first call goes at once; the other three wait for the turn's end, and go as one
    # batch frame to a broker that reads them, one frame each to one that does not.
    assert frames == ([1, 3] if broker_batches else [1, 1, 1, 1])


@pytest.mark.asyncio
async def test_a_queued_message_that_cannot_be_sent_fails_its_waiter(
    free_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[bytes] = []

    def send(sock: object, frame: bytes, flags: int, copy: bool) -> None:
        if frame == b"second":
            raise zmq.Again()  # the connection dropped within the turn
        sent.append(frame)

    monkeypatch.setattr(_transport, "_send", send)
    lost: list[asyncio.Future[object]] = []
    told = anyio.Event()

    def on_unsent(waiters: list[asyncio.Future[object]]) -> None:
        lost.extend(waiters)
        told.set()

    transport = _transport.DealerTransport(free_endpoint, lambda frame: None, 1 << 20, on_unsent)
    try:
        transport.send(b"first")  # the turn's first message: sent at once
        waiter: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        transport.send(b"second", waiter)  # waits for the turn's end, then cannot be sent
        with anyio.fail_after(WAIT):
            await told.wait()
    finally:
        transport.close()
    assert sent == [b"first"] and lost == [waiter]
