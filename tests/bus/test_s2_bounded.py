"""S2 at the broker, in memory: no frame makes the broker do unbounded work or send a frame a peer
cannot take. The routing table driven with wire frames (`test_router.Bus`), and the in-memory
broker where a peer's own reaction matters."""

from __future__ import annotations

import anyio
import pytest

import broker
from broker import BrokerConfig
from broker import _wire as w
from broker._memory import MemoryBroker

from .test_router import A, B, Bus, C, of_kind, only

WAIT = 5.0


def _provide(bus: Bus, identity: bytes, gate: str, params: tuple[str, ...] = (), returns: str | None = None) -> list:
    return bus.send(identity, w.Provide(gate=gate, kind="func", params=params, returns=returns))


# --- the poisoned Provide ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "returns", "quoted"),
    [
        (("x" * 1_900_000,), None, "(1900000 characters)"),
        (("string",), "s" * 300, "(300 characters)"),
        (("string", "Dict<int,string>"), "string", "'Dict<int,string>'"),
        (("string?",), "integer??", "'integer??'"),
    ],
    ids=["huge-param", "long-return", "foreign-param", "double-question-mark"],
)
def test_s2_a_provide_with_a_type_the_bus_does_not_carry_is_refused_and_announced_to_nobody(
    params: tuple[str, ...], returns: str | None, quoted: str
) -> None:
    bus = Bus()
    bus.hello(A, "Evil")
    bus.hello(B, "Honest")
    sent = _provide(bus, A, "Evil.Gate", params, returns)
    notice = only(sent, to=A, kind=w.Notice).msg
    assert isinstance(notice, w.Notice) and notice.error.kind == "IpcRefusedError"
    assert quoted in notice.error.message and "not a type the bus carries" in notice.error.message
    assert len(notice.error.message) < 400  # the offending value is quoted cut, not whole
    assert not of_kind(sent, w.GateChanged) and bus.router.gate_info("Evil.Gate") is None


def test_every_type_name_the_client_declares_is_accepted() -> None:
    bus = Bus()
    bus.hello(A, "Prov")
    names = ("string", "integer", "number", "boolean", "object", "array", "any")
    sent = _provide(bus, A, "Prov.All", (*names, "any?"), "boolean?")
    assert not of_kind(sent, w.Notice) and of_kind(sent, w.GateChanged)


# --- frames that amplify -----------------------------------------------------------------------


def test_s2_a_batch_frame_of_twenty_thousand_snapshots_is_cut_with_one_notice() -> None:
    bus = Bus()
    bus.hello(A, "Evil")
    frame = w.pack([w.encode(w.Snapshot())] * 20_000)  # 240 KB
    sent = bus.raw(A, [frame])
    notice = only(sent, to=A).msg
    assert isinstance(notice, w.Notice) and "20000 messages" in notice.error.message
    assert "more than the 64 the bus takes in one frame" in notice.error.message


def test_a_batch_frame_within_the_cap_is_handled_as_before() -> None:
    bus = Bus()
    bus.hello(A, "Peer")
    sent = bus.raw(A, [w.pack([w.encode(w.Ping())] * 64)])
    assert len(of_kind(sent, w.Pong)) == 64


def test_s2_control_messages_over_the_peers_rate_are_dropped_with_one_notice() -> None:
    bus = Bus(control_burst=10, control_rate=5.0)
    bus.hello(A, "Chatty")
    frames = [w.pack([w.encode(w.Stats(id=i)) for i in range(j, j + 50)]) for j in range(0, 200, 50)]
    sent = [s for frame in frames for s in bus.raw(A, [frame])]
    assert len(of_kind(sent, w.StatsReply)) == 10  # the Hello that made it a peer is not counted
    notice = only(sent, kind=w.Notice).msg
    assert isinstance(notice, w.Notice) and notice.about == "stats"
    assert "Chatty sent more stats messages than the bus takes (5 a second" in notice.error.message
    bus.now += 1.0  # a second later: five more, and the next drop is said again
    sent = bus.raw(A, [w.pack([w.encode(w.Stats(id=i)) for i in range(10)])])
    assert len(of_kind(sent, w.StatsReply)) == 5 and len(of_kind(sent, w.Notice)) == 1


def test_s2_a_connection_saying_hello_under_new_names_keeps_its_rate() -> None:
    bus = Bus(control_burst=10, control_rate=0.001)
    bus.hello(A, "Name0")
    hellos = [w.encode(w.Hello(name=f"Name{i}", protocol=w.PROTOCOL_VERSION, incarnation="x")) for i in range(1, 40)]
    sent = bus.raw(A, [w.pack(hellos)])
    assert len(of_kind(sent, w.Welcome)) == 10 and only(sent, kind=w.Notice).msg.about == "hello"  # type: ignore[attr-defined]


def test_s2_snapshots_have_a_rate_of_their_own_and_calls_are_not_counted() -> None:
    bus = Bus(table_burst=3, table_rate=1.0)
    bus.hello(A, "Prov")
    bus.hello(B, "Caller")
    _provide(bus, A, "Prov.Echo", ("string",), "string")
    sent = bus.raw(B, [w.pack([w.encode(w.Snapshot())] * 10)])
    assert len(of_kind(sent, w.GateTable)) == 3
    assert only(sent, kind=w.Notice).msg.about == "snapshot"  # type: ignore[attr-defined]
    calls = [w.encode(w.Call(id=i, gate="Prov.Echo", payload=b'["x"]')) for i in range(1, 61)]
    assert len(of_kind(bus.raw(B, [w.pack(calls)]), w.Invoke)) == 60


@pytest.mark.asyncio
async def test_s2_a_peer_whose_snapshot_is_dropped_gets_the_error_rather_than_waiting() -> None:
    bus = MemoryBroker(BrokerConfig(table_burst=1, table_rate=0.001))
    async with bus.connect("Lister") as pi:
        with anyio.fail_after(WAIT):
            await pi.list_gates()
            with pytest.raises(broker.IpcRefusedError, match="Lister sent more snapshot messages"):
                await pi.list_gates()


# --- tables that would not fit in a frame ------------------------------------------------------


def _crowded(bus: Bus, providers: int, gates: int) -> int:
    """`providers` peers providing `gates` gates each, with long names; the number of gates."""
    for p in range(providers):
        identity = b"\x00prov-%d" % p
        bus.hello(identity, f"P{p}")
        for g in range(gates):
            _provide(bus, identity, f"P{p}.{'G' * 180}{g:04d}", ("string",) * 8, "string?")
    return providers * gates


def test_s2_welcome_and_gate_table_with_many_gates_come_in_pages_under_the_frame_limit() -> None:
    bus = Bus(max_gates_per_peer=1000)
    total = _crowded(bus, providers=4, gates=1000)  # some 2.3 MB of table
    hello = w.encode(w.Hello(name="Late", protocol=w.PROTOCOL_VERSION, incarnation="x"))
    items = bus.router.handle(C, [hello], bus.now)
    pages = [w.decode_to_peer(item.frame) for item in items if item.identity == C]
    welcome, rest = pages[0], pages[1:]
    assert isinstance(welcome, w.Welcome) and welcome.more and all(isinstance(p, w.GateTable) for p in rest)
    assert all(p.part for p in rest) and [p.more for p in rest] == [True] * (len(rest) - 1) + [False]  # type: ignore[union-attr]
    assert max(len(item.frame) for item in items) < 2 * broker.BrokerConfig().table_page_bytes
    gates = [g.name for g in welcome.gates] + [g.name for p in rest for g in p.gates]  # type: ignore[union-attr]
    assert len(gates) == len(set(gates)) == total
    bus.now += 1
    table = [s.msg for s in bus.send(C, w.Snapshot())]
    assert isinstance(table[0], w.GateTable) and table[0].more and not table[0].part
    assert sum(len(t.gates) for t in table) == total  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_s2_a_peer_joining_a_bus_with_many_gates_gets_them_all_from_the_pages() -> None:
    bus = MemoryBroker(BrokerConfig(table_page_bytes=2048))
    async with bus.connect("Prov") as prov:
        for i in range(200):
            prov.get_ipc_provider(f"Prov.Gate{i:03d}", params=(str,), returns=str).register_func(str.upper)
        await prov.flush()
        async with bus.connect("Late") as late:
            assert len(late.gates()) == 200  # from the Welcome and the pages after it
            assert await late.get_ipc_subscriber("Prov.Gate199").invoke_func("x") == "X"
            assert len(await late.list_gates()) == 200


def test_s2_gates_beyond_the_buss_bound_are_refused_whoever_provides_them() -> None:
    bus = Bus(max_gates=3)
    bus.hello(A, "One")
    bus.hello(B, "Two")
    for gate in ("One.A", "One.B", "Two.A"):
        assert not of_kind(_provide(bus, A if gate.startswith("One") else B, gate), w.Notice)
    notice = only(_provide(bus, B, "Two.B"), kind=w.Notice).msg
    assert "already holds 3 gates, the most it allows over all processes" in notice.error.message  # type: ignore[attr-defined]
    assert "already holds 3 gates" in only(bus.send(B, w.Subscribe(gate="Two.C")), kind=w.Notice).msg.error.message  # type: ignore[attr-defined]
    assert not of_kind(_provide(bus, A, "One.A", ("string",)), w.Notice)  # a gate already there may change


def test_s2_subscribers_listed_over_all_gates_are_bounded_and_freed_when_a_peer_leaves() -> None:
    bus = Bus(max_subscribers=2)
    bus.hello(A, "One")
    bus.hello(B, "Two")
    assert not of_kind(bus.send(A, w.Subscribe(gate="X.News")), w.Notice)
    assert not of_kind(bus.send(A, w.Subscribe(gate="X.News")), w.Notice)  # the same pair: listed once
    assert not of_kind(bus.send(B, w.Subscribe(gate="X.News")), w.Notice)
    notice = only(bus.send(B, w.Subscribe(gate="Y.News")), kind=w.Notice).msg
    assert "already lists 2 subscribers over all its gates" in notice.error.message  # type: ignore[attr-defined]
    bus.send(A, w.Bye())
    assert not of_kind(bus.send(B, w.Subscribe(gate="Y.News")), w.Notice)


# --- tables keyed on what a peer sends ---------------------------------------------------------


def test_s2_an_incarnation_over_the_cap_is_refused() -> None:
    bus = Bus()
    sent = bus.hello(A, "Prov", incarnation="i" * 100_000)
    refused = only(sent, to=A, kind=w.Refused).msg
    assert isinstance(refused, w.Refused)
    assert "incarnation of this process is 100000 characters" in refused.error.message
    assert bus.router.peers == []


def test_s2_processes_beyond_the_brokers_bound_are_refused() -> None:
    bus = Bus(max_peers=2)
    bus.hello(A, "One")
    bus.hello(B, "Two")
    refused = only(bus.hello(C, "Three"), kind=w.Refused).msg
    assert "2 processes are on the bus, the most this broker allows, so 'Three' cannot join" in refused.error.message  # type: ignore[attr-defined]
    assert not of_kind(bus.hello(A, "One"), w.Refused)  # a peer already on it may say Hello again


def test_s2_newcomers_beyond_the_join_rate_are_told_to_wait_their_turn() -> None:
    bus = Bus(join_burst=2, join_rate=0.001)
    bus.hello(A, "One")
    bus.hello(B, "Two")
    busy = only(bus.hello(C, "Three"), kind=w.NameBusy).msg
    assert isinstance(busy, w.NameBusy) and busy.retry_in > 0
    assert "More processes are joining the bus than it takes" in busy.reason and "'Three' waits its turn" in busy.reason
    assert of_kind(bus.hello(A, "One"), w.Welcome)  # a peer already on the bus is no newcomer


def test_s2_a_sweep_removes_a_bounded_number_of_silent_peers_at_a_time() -> None:
    bus = Bus(join_burst=100)
    for i in range(70):
        bus.hello(b"\x00silent-%d" % i, f"Silent{i}")
    bus.now += 10
    assert len(of_kind(bus.sweep(), w.PeerLeft)) == sum(range(70 - 64, 70))  # 64 leave, each told to those left
    assert len(bus.router.peers) == 6
    bus.sweep()
    assert bus.router.peers == []


# --- a slow reader ------------------------------------------------------------------------------


def test_s2_a_peer_that_reads_nothing_is_cut_off_past_its_byte_budget_and_told_why() -> None:
    bus = Bus(max_queued_bytes=100_000)
    bus.hello(A, "Pub")
    bus.hello(B, "Deaf")
    bus.send(B, w.Subscribe(gate="Pub.News"))
    deaf = bus.router.by_identity[B]
    for _ in range(5):  # as the transport counts what it sends (`Broker._deliver`)
        for item in bus.router.handle(A, [w.encode(w.Send(gate="Pub.News", payload=b"x" * 30_000))], bus.now):
            if item.identity == B:
                deaf.sent += len(item.frame)
    assert deaf.sent - deaf.read > 100_000
    sent = [w.decode_to_peer(item.frame) for item in bus.router.cut_off(deaf)]
    notice = next(m for m in sent if isinstance(m, w.Notice))
    assert notice.about == "queued" and notice.error.kind == "IpcDisconnectedError"
    assert "Deaf was disconnected by the bus because 0.1 MiB sent to it waited unread" in notice.error.message
    left = next(m for m in sent if isinstance(m, w.PeerLeft))
    assert left.name == "Deaf" and left.reason == notice.error.message
    assert bus.router.peers == ["Pub"]


def test_s2_a_peer_proves_what_it_read_by_echoing_the_marks_sent_after_it() -> None:
    bus = Bus(max_queued_bytes=4_000)
    bus.hello(B, "Reader")
    peer = bus.router.by_identity[B]
    peer.sent = 1_000  # as the transport counts what it sends (`Broker._deliver`)
    first = w.decode_to_peer(only_frame(bus.router.mark(peer)))
    peer.sent += 2_000
    second = w.decode_to_peer(only_frame(bus.router.mark(peer)))
    assert isinstance(first, w.Pong) and isinstance(second, w.Pong) and first.mark != second.mark
    bus.send(B, w.Ping(mark=12345))  # a mark never sent: proves nothing
    assert peer.read == 0
    bus.send(B, w.Ping(mark=first.mark))
    assert 1_000 < peer.read < 1_100 and len(peer.marks) == 1  # read up to the first mark
    bus.send(B, w.Ping(mark=second.mark))
    assert peer.read == peer.sent
    peer.sent += 5_000  # nothing more echoed: past the budget, the next mark cuts it off
    told = [w.decode_to_peer(item.frame) for item in bus.router.mark(peer)]
    assert [m.about for m in told if isinstance(m, w.Notice)] == ["queued"] and bus.router.peers == []


def only_frame(items: list) -> bytes:
    assert len(items) == 1
    frame: bytes = items[0].frame
    return frame
