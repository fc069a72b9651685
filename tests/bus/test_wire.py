"""The frame codec: every header round-trips, and the decoders refuse what is not theirs."""

from __future__ import annotations

import msgspec
import pytest

from broker import _wire as w

ERROR = w.ErrorInfo(kind="IpcHandlerError", message="ValueError: x", type_name="ValueError", detail="x")
GATE = w.GateInfo(
    name="Prov.Echo",
    func=w.SlotInfo(provider="Prov", params=("string", "integer?"), returns="string"),
    action=w.SlotInfo(provider="Prov"),
    subscribers=("A", "B"),
    subscriptions=3,
)

TO_BROKER: list[w.ToBroker] = [
    w.Hello(name="Prov", protocol=w.PROTOCOL_VERSION, incarnation="abc"),
    w.Ping(),
    w.Bye(),
    w.Provide(gate="Prov.Echo", kind="func", params=("string",), returns="string"),
    w.Provide(gate="Prov.Log", kind="action"),
    w.Withdraw(gate="Prov.Echo", kind="action"),
    w.Subscribe(gate="Prov.News"),
    w.Unsubscribe(gate="Prov.News"),
    w.Call(id=7, gate="Prov.Echo"),
    w.Call(id=8, gate="Prov.Log", kind="action"),
    w.Reply(id=7),
    w.Reply(id=7, error=ERROR),
    w.Send(gate="Prov.News"),
    w.Snapshot(),
    w.Alive(name="Prov", incarnation="abc", stamp=12.5),
    w.Abandon(id=7),
    w.Stats(id=3),
]

TO_PEER: list[w.ToPeer] = [
    w.Welcome(name="Prov", broker="b1", heartbeat=0.5, timeout=2.0, max_payload=1024, gates=(GATE,), peers=("Prov",)),
    w.Refused(error=ERROR),
    w.NeedHello(broker="b1"),
    w.Pong(broker="b1"),
    w.Invoke(id=1, gate="Prov.Echo", kind="func", caller="Tst"),
    w.Result(id=1),
    w.Result(id=1, error=ERROR),
    w.Message(gate="Prov.News", sender="Prov", seq=4),
    w.GateChanged(gate=GATE, seq=5),
    w.PeerJoined(name="Tst", seq=6),
    w.PeerLeft(name="Tst", reason="gone", seq=7),
    w.GateTable(gates=(GATE,), peers=("Prov", "Tst"), seq=8),
    w.Notice(error=ERROR),
    w.AliveAck(broker="b1", known=False, stamp=12.5),
    w.NameBusy(name="Prov", last_heard=0.7, frees_within=1.3, retry_in=0.1),
    w.StatsReply(id=3, stats=w.BrokerStats(broker="b1", peers=2, gates=3, pending_calls=0, in_flight={"Tst": 1})),
]


@pytest.mark.parametrize("msg", TO_BROKER, ids=lambda m: type(m).__name__)
def test_peer_to_broker_header_round_trips(msg: w.ToBroker) -> None:
    assert w.decode_to_broker(w.encode(msg)) == msg


@pytest.mark.parametrize("msg", TO_PEER, ids=lambda m: type(m).__name__)
def test_broker_to_peer_header_round_trips(msg: w.ToPeer) -> None:
    assert w.decode_to_peer(w.encode(msg)) == msg


def test_message_is_one_msgpack_map_tagged_by_t_with_the_payload_as_binary() -> None:
    assert msgspec.msgpack.decode(w.encode(w.Call(id=3, gate="A.B", payload=b"[1]"))) == {
        "t": "call",
        "id": 3,
        "gate": "A.B",
        "kind": "func",
        "payload": b"[1]",
    }


def test_decoders_refuse_the_other_directions_messages() -> None:
    with pytest.raises(msgspec.ValidationError):
        w.decode_to_broker(w.encode(w.Pong(broker="b")))
    with pytest.raises(msgspec.ValidationError):
        w.decode_to_peer(w.encode(w.Ping()))


@pytest.mark.parametrize(
    "frame",
    [b"", b"\xc1", b"not msgpack at all", msgspec.msgpack.encode({"t": "nope"}), msgspec.msgpack.encode({"id": 1})],
)
def test_decoder_refuses_malformed_headers(frame: bytes) -> None:
    with pytest.raises((msgspec.DecodeError, msgspec.ValidationError)):
        w.decode_to_broker(frame)


def test_a_header_with_an_unknown_field_still_decodes() -> None:
    """Fields only get added: an older broker reads a newer peer's header."""
    frame = msgspec.msgpack.encode({"t": "call", "id": 1, "gate": "A.B", "priority": "high"})
    assert w.decode_to_broker(frame) == w.Call(id=1, gate="A.B")


def test_a_welcome_from_an_older_broker_without_the_limits_still_decodes() -> None:
    old = msgspec.msgpack.encode(
        {"t": "welcome", "name": "P", "broker": "b", "heartbeat": 0.5, "timeout": 2.0, "max_payload": 1}
    )
    welcome = w.decode_to_peer(old)
    assert isinstance(welcome, w.Welcome) and welcome.max_gates == 0 and welcome.max_subscriptions == 0
