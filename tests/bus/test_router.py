"""The routing table in memory: `broker._router.Router` driven with fake identities and wire frames."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import pytest

from broker import BrokerConfig
from broker import _wire as w
from broker._router import Outgoing, Router
from broker._router_peers import MAX_CONTESTS


@dataclass
class Sent:
    """One decoded Outgoing item."""

    to: bytes
    msg: w.ToPeer
    payload: bytes | None
    call_id: int


def decode(items: list[Outgoing]) -> list[Sent]:
    out = []
    for item in items:
        msg = w.decode_to_peer(item.frame)
        payload = getattr(msg, "payload", b"") or None
        if payload is not None:
            msg = msgspec.structs.replace(msg, payload=b"")  # type: ignore[type-var]
        out.append(Sent(item.identity, msg, payload, item.call_id))
    return out


class Bus:
    """A Router plus a clock, speaking encoded frames like the transport does."""

    def __init__(self, **config: object) -> None:
        self.router = Router(BrokerConfig(**config))  # type: ignore[arg-type]
        self.now = 1000.0

    def raw(self, identity: bytes, frames: list[bytes]) -> list[Sent]:
        return decode(self.router.handle(identity, frames, self.now))

    def send(self, identity: bytes, msg: w.ToBroker, payload: bytes | None = None) -> list[Sent]:
        if payload is not None:
            msg = msgspec.structs.replace(msg, payload=payload)  # type: ignore[type-var]
        return self.raw(identity, [w.encode(msg)])

    def hello(self, identity: bytes, name: str, incarnation: str | None = None) -> list[Sent]:
        return self.send(identity, w.Hello(name=name, protocol=w.PROTOCOL_VERSION, incarnation=incarnation or name))

    def provide(self, identity: bytes, gate: str, kind: w.Kind = "func", params: tuple[str, ...] = ()) -> list[Sent]:
        return self.send(identity, w.Provide(gate=gate, kind=kind, params=params, returns="string"))

    def call(
        self, identity: bytes, call_id: int, gate: str, payload: bytes = b"[]", kind: w.Kind = "func"
    ) -> list[Sent]:
        return self.send(identity, w.Call(id=call_id, gate=gate, kind=kind), payload)

    def sweep(self) -> list[Sent]:
        return decode(self.router.sweep(self.now))


A, B, C, D = b"\x00id-a", b"\x00id-b", b"\x00id-c", b"\x00id-d"


def only(sent: list[Sent], to: bytes | None = None, kind: type | None = None) -> Sent:
    matching = [s for s in sent if (to is None or s.to == to) and (kind is None or isinstance(s.msg, kind))]
    assert len(matching) == 1, sent
    return matching[0]


def of_kind(sent: list[Sent], kind: type) -> list[Sent]:
    return [s for s in sent if isinstance(s.msg, kind)]


@pytest.fixture
def bus() -> Bus:
    return Bus()


def test_hello_is_answered_with_welcome_carrying_the_table_and_limits(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo", params=("string",))
    welcome = only(bus.hello(B, "Caller"), to=B, kind=w.Welcome).msg
    assert isinstance(welcome, w.Welcome)
    assert welcome.name == "Caller"
    assert welcome.broker == bus.router.incarnation
    assert (welcome.heartbeat, welcome.timeout, welcome.max_payload) == (0.5, 2.0, 1024 * 1024)
    assert welcome.gates == (
        w.GateInfo(name="Prov.Echo", func=w.SlotInfo(provider="Prov", params=("string",), returns="string")),
    )
    assert sorted(welcome.peers) == ["Caller", "Prov"]


def test_new_peer_is_announced_to_the_others(bus: Bus) -> None:
    bus.hello(A, "Prov")
    joined = only(bus.hello(B, "Caller"), to=A).msg
    assert joined == w.PeerJoined(name="Caller", seq=1)


def test_hello_with_another_protocol_version_is_refused(bus: Bus) -> None:
    sent = bus.send(A, w.Hello(name="Old", protocol=w.PROTOCOL_VERSION + 1, incarnation="x"))
    refused = only(sent, to=A, kind=w.Refused).msg
    assert isinstance(refused, w.Refused)
    assert refused.error.kind == "IpcRefusedError"
    assert "Install the same xivmcp-bus version for both" in refused.error.message
    assert bus.router.peers == []


def test_hello_with_an_invalid_name_is_refused(bus: Bus) -> None:
    refused = only(bus.hello(A, "not valid!"), kind=w.Refused).msg
    assert isinstance(refused, w.Refused)
    assert "'not valid!' is not a valid InternalName" in refused.error.message


def test_hello_with_a_name_ending_in_a_newline_is_refused(bus: Bus) -> None:
    refused = only(bus.hello(A, "MyPlugin\n"), kind=w.Refused).msg
    assert isinstance(refused, w.Refused)
    assert "'MyPlugin\\n' is not a valid InternalName" in refused.error.message
    assert bus.router.peers == []


def test_provide_and_subscribe_of_a_gate_name_ending_in_a_newline_are_refused(bus: Bus) -> None:
    bus.hello(A, "Prov")
    for msg in (w.Provide(gate="Prov.Echo\n", kind="func"), w.Subscribe(gate="Prov.Echo\n")):
        [notice] = bus.send(A, msg)
        assert isinstance(notice.msg, w.Notice) and notice.msg.error.kind == "IpcRefusedError"
        assert "The gate name 'Prov.Echo\\n' has characters the bus does not carry" in notice.msg.error.message
    assert bus.router.gate_info("Prov.Echo\n") is None and bus.router.gate_info("Prov.Echo") is None


def test_provide_announces_the_gate_to_every_peer(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.hello(B, "Caller")
    sent = bus.provide(A, "Prov.Echo", params=("string",))
    assert {s.to for s in of_kind(sent, w.GateChanged)} == {A, B}
    info = bus.router.gate_info("Prov.Echo")
    assert info == w.GateInfo(name="Prov.Echo", func=w.SlotInfo("Prov", ("string",), "string"))


def test_call_is_forwarded_to_the_provider_as_invoke_with_the_caller_name(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo", params=("string",))
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 41, "Prov.Echo", b'["hi"]')
    assert invoke.to == A
    assert isinstance(invoke.msg, w.Invoke)
    assert (invoke.msg.gate, invoke.msg.kind, invoke.msg.caller) == ("Prov.Echo", "func", "Caller")
    assert invoke.payload == b'["hi"]'
    assert invoke.call_id == invoke.msg.id != 0
    assert bus.router.pending_calls == 1


def test_caller_name_comes_from_the_hello_not_the_payload(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo", params=("string",))
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 1, "Prov.Echo", b'["XivMcp"]')
    assert isinstance(invoke.msg, w.Invoke) and invoke.msg.caller == "Caller"


def test_reply_reaches_the_caller_as_result_with_its_own_call_id(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo", params=("string",))
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 41, "Prov.Echo", b'["hi"]')
    assert isinstance(invoke.msg, w.Invoke)
    [result] = bus.send(A, w.Reply(id=invoke.msg.id), b'"hi"')
    assert result.to == B
    assert result.msg == w.Result(id=41)
    assert result.payload == b'"hi"'
    assert bus.router.pending_calls == 0


def test_reply_with_an_error_reaches_the_caller(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 5, "Prov.Echo")
    assert isinstance(invoke.msg, w.Invoke)
    error = w.ErrorInfo(kind="IpcHandlerError", message="ValueError: no", type_name="ValueError", detail="no")
    [result] = bus.send(A, w.Reply(id=invoke.msg.id, error=error))
    assert result.to == B and result.msg == w.Result(id=5, error=error) and result.payload is None


def test_reply_from_a_peer_that_is_not_the_provider_is_ignored(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    bus.hello(C, "Meddler")
    [invoke] = bus.call(B, 5, "Prov.Echo")
    assert isinstance(invoke.msg, w.Invoke)
    assert bus.send(C, w.Reply(id=invoke.msg.id), b'"forged"') == []
    assert bus.router.pending_calls == 1


@pytest.mark.parametrize(("kind", "what"), [("func", "method"), ("action", "action")])
def test_call_of_an_empty_slot_fails_not_ready(bus: Bus, kind: w.Kind, what: str) -> None:
    bus.hello(B, "Caller")
    [result] = bus.call(B, 3, "Prov.Nope", kind=kind)
    assert result.to == B
    assert result.msg == w.Result(
        id=3, error=w.ErrorInfo("IpcNotReadyError", f"IPC {what} Prov.Nope was not registered yet.")
    )


def test_call_of_an_action_when_only_the_func_is_provided_fails_not_ready(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo", kind="func")
    bus.hello(B, "Caller")
    [result] = bus.call(B, 3, "Prov.Echo", kind="action")
    assert isinstance(result.msg, w.Result) and result.msg.error is not None
    assert result.msg.error.message == "IPC action Prov.Echo was not registered yet."


def test_provide_of_a_foreign_gate_is_refused_with_a_notice(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Thief")
    [notice] = bus.provide(B, "Prov.Echo")
    assert notice.to == B and isinstance(notice.msg, w.Notice)
    assert notice.msg.error.kind == "IpcRefusedError"
    assert notice.msg.error.message == (
        "Thief may not provide 'Prov.Echo': a process provides only gates named 'Thief.…' "
        "(its InternalName and a dot), such as 'Thief.XivMcp.Invoke'."
    )
    info = bus.router.gate_info("Prov.Echo")
    assert info is not None and info.func is not None and info.func.provider == "Prov"


def test_provide_of_a_gate_named_like_a_longer_prefix_is_refused(bus: Bus) -> None:
    bus.hello(A, "Prov")
    [notice] = bus.provide(A, "ProvX.Echo")
    assert isinstance(notice.msg, w.Notice) and notice.msg.error.kind == "IpcRefusedError"


def test_provide_with_more_than_eight_params_is_refused(bus: Bus) -> None:
    bus.hello(A, "Prov")
    [notice] = bus.provide(A, "Prov.Wide", params=("any",) * 9)
    assert isinstance(notice.msg, w.Notice)
    assert notice.msg.error.message == "Prov.Wide declares 9 parameters; a gate takes 0 to 8."


def test_message_on_a_foreign_gate_is_refused_with_a_notice(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.hello(B, "Thief")
    bus.send(A, w.Subscribe(gate="Prov.News"))
    [notice] = bus.send(B, w.Send(gate="Prov.News"), b'["fake"]')
    assert notice.to == B and isinstance(notice.msg, w.Notice)
    assert notice.msg.error.message.startswith("Thief may not send messages on 'Prov.News'")


def test_hello_for_a_held_name_probes_the_holder_and_answers_name_busy(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    bus.now += 0.7
    items = bus.router.handle(
        B, [w.encode(w.Hello(name="Prov", protocol=w.PROTOCOL_VERSION, incarnation="second"))], bus.now
    )
    [probe] = [i for i in items if i.identity == A]
    assert probe.probe and isinstance(w.decode_to_peer(probe.frame), w.Pong)
    [busy] = [s for s in decode(items) if s.to == B]
    assert busy.msg == w.NameBusy(
        name="Prov", last_heard=pytest.approx(0.7), frees_within=pytest.approx(1.3), retry_in=0.25
    )
    assert bus.router.peers == ["Prov"]
    assert bus.router.stats().contested_names == 1
    # The newcomer is still unknown: whatever else it sends gets NeedHello.
    [need] = bus.send(B, w.Ping())
    assert isinstance(need.msg, w.NeedHello)


def test_second_live_peer_with_a_taken_name_is_refused_once_the_holder_is_heard_from(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    bus.now += 0.5
    assert isinstance(only(bus.hello(B, "Prov", incarnation="second"), to=B).msg, w.NameBusy)
    bus.now += 0.1
    bus.send(b"beacon-a", w.Alive(name="Prov", incarnation="first"))  # too soon after: may be stale
    assert isinstance(only(bus.hello(B, "Prov", incarnation="second"), to=B).msg, w.NameBusy)
    bus.now += 0.3
    bus.send(b"beacon-a", w.Alive(name="Prov", incarnation="first"))
    bus.now += 0.1
    [refused] = bus.hello(B, "Prov", incarnation="second")
    assert refused.to == B and isinstance(refused.msg, w.Refused)
    assert refused.msg.error.message == (
        "The InternalName 'Prov' is already connected from another process, which is alive (last heard "
        "0.1 s ago). Each process needs its own name: start this one under another InternalName, or "
        "stop the other process first."
    )
    assert bus.router.peers == ["Prov"]
    assert bus.router.stats().contested_names == 0


def test_held_name_goes_to_the_newcomer_once_the_holders_probe_finds_its_connection_gone(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    bus.provide(A, "Prov.Echo")
    bus.hello(C, "Watcher")
    items = bus.router.handle(
        B, [w.encode(w.Hello(name="Prov", protocol=w.PROTOCOL_VERSION, incarnation="second"))], bus.now
    )
    [probe] = [i for i in items if i.probe]
    left = decode(bus.router.undeliverable(probe, "its connection is gone", gone=True))
    assert only(left, to=C, kind=w.PeerLeft).msg.reason == "Prov's connection closed (its process exited or was killed)"  # type: ignore[union-attr]
    assert bus.router.gate_info("Prov.Echo") is None
    sent = bus.hello(B, "Prov", incarnation="second")
    assert isinstance(only(sent, to=B).msg, w.Welcome)
    assert isinstance(only(sent, to=C, kind=w.PeerJoined).msg, w.PeerJoined)
    assert bus.router.stats().contested_names == 0


def test_held_name_goes_to_the_newcomer_once_the_silent_holder_is_swept(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    bus.now += 1.0
    assert isinstance(only(bus.hello(B, "Prov", incarnation="second"), to=B).msg, w.NameBusy)
    bus.now += 1.1
    bus.sweep()
    assert bus.router.peers == []
    assert isinstance(only(bus.hello(B, "Prov", incarnation="second"), to=B).msg, w.Welcome)


def test_contests_nobody_asks_about_any_more_are_forgotten(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    bus.hello(B, "Prov", incarnation="second")
    bus.now += 5.5
    bus.send(A, w.Ping())
    bus.sweep()
    assert bus.router.stats().contested_names == 0


def test_newcomers_waiting_for_held_names_are_bounded(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    for n in range(MAX_CONTESTS):
        assert isinstance(only(bus.hello(B, "Prov", incarnation=f"n{n}"), to=B).msg, w.NameBusy)
    [refused] = bus.hello(B, "Prov", incarnation="one-too-many")
    assert isinstance(refused.msg, w.Refused)
    assert refused.msg.error.message == (
        "1024 processes are already waiting for names other processes hold, the most the bus "
        "allows; 'Prov' cannot wait too. Try again shortly."
    )


def test_a_probe_to_a_slow_peer_keeps_it(bus: Bus) -> None:
    bus.hello(A, "Prov")
    [probe] = bus.router.probe()
    assert probe.identity == A and probe.probe
    assert bus.router.undeliverable(probe, "its queue is full", gone=False) == []
    assert bus.router.peers == ["Prov"]


def test_a_probe_that_finds_a_providers_connection_gone_fails_its_calls_naming_it(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Slow")
    bus.hello(B, "Caller")
    bus.call(B, 9, "Prov.Slow")
    probes = {item.identity: item for item in bus.router.probe()}
    assert set(probes) == {A, B}
    sent = decode(bus.router.undeliverable(probes[A], "its connection is gone", gone=True))
    result = only(sent, to=B, kind=w.Result).msg
    assert isinstance(result, w.Result) and result.error is not None and result.id == 9
    assert result.error.kind == "IpcPeerLeftError"
    assert result.error.message == (
        "Prov left the bus during the call to Prov.Slow (Prov's connection closed (its process exited or was killed))."
    )
    assert bus.router.peers == ["Caller"] and bus.router.pending_calls == 0


def test_alive_with_the_right_incarnation_keeps_a_busy_peer_past_the_timeout(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="secret-a")
    for _ in range(8):
        bus.now += 0.5
        [ack] = bus.send(b"beacon", w.Alive(name="Prov", incarnation="secret-a", stamp=3.5))
        assert ack.to == b"beacon"
        assert ack.msg == w.AliveAck(broker=bus.router.incarnation, known=True, stamp=3.5)
        assert bus.sweep() == []
    assert bus.router.peers == ["Prov"]


def test_alive_with_a_wrong_incarnation_or_unknown_name_is_not_known_and_refreshes_nothing(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="secret-a")
    bus.now += 1.5
    for alive in (w.Alive(name="Prov", incarnation="guess"), w.Alive(name="Nobody", incarnation="secret-a")):
        [ack] = bus.send(b"beacon", alive)
        assert ack.msg == w.AliveAck(broker=bus.router.incarnation, known=False)
    bus.now += 0.6
    bus.sweep()
    assert bus.router.peers == []


def test_same_incarnation_on_a_new_connection_rebinds_the_name(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="one-process")
    bus.provide(A, "Prov.Echo")
    bus.hello(C, "Other")
    sent = bus.hello(B, "Prov", incarnation="one-process")
    assert isinstance(only(sent, to=B, kind=w.Welcome).msg, w.Welcome)
    assert of_kind(sent, w.PeerJoined) == []  # the same process: nobody joined
    assert bus.router.peers == ["Other", "Prov"]
    # Calls now reach the new connection; the old identity is unknown.
    bus.hello(D, "Caller")
    [invoke] = bus.call(D, 1, "Prov.Echo")
    assert invoke.to == B
    [need] = bus.send(A, w.Ping())
    assert isinstance(need.msg, w.NeedHello)


def test_rebinding_peer_that_restores_its_subscriptions_is_not_counted_twice(bus: Bus) -> None:
    """After every Welcome a peer re-sends its Subscribes; the count must stay what the peer holds."""
    bus.hello(A, "Sub", incarnation="one-process")
    bus.send(A, w.Subscribe(gate="Prov.News"))
    bus.hello(B, "Sub", incarnation="one-process")
    bus.send(B, w.Subscribe(gate="Prov.News"))  # the peer's restore after the Welcome
    info = bus.router.gate_info("Prov.News")
    assert info is not None and info.subscriptions == 1


def test_repeated_hello_on_the_same_connection_does_not_double_subscriptions(bus: Bus) -> None:
    bus.hello(A, "Sub")
    bus.send(A, w.Subscribe(gate="Prov.News"))
    bus.hello(A, "Sub")
    bus.send(A, w.Subscribe(gate="Prov.News"))  # the peer's restore after the Welcome
    info = bus.router.gate_info("Prov.News")
    assert info is not None and info.subscriptions == 1


def test_rebinding_caller_can_still_make_calls(bus: Bus) -> None:
    """Calls lost with the old connection no longer count against the peer's in-flight limit."""
    bus = Bus(max_in_flight=1)
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller", incarnation="one-process")
    [invoke] = bus.call(B, 1, "Prov.Echo")
    bus.hello(C, "Caller", incarnation="one-process")  # the old connection's call is lost with it
    [second] = bus.call(C, 2, "Prov.Echo")
    assert isinstance(second.msg, w.Invoke) and second.to == A


def test_sweep_removes_silent_peers_and_fails_their_pending_calls(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Slow")
    bus.hello(B, "Caller")
    bus.call(B, 9, "Prov.Slow")
    bus.now += 1.5
    bus.send(B, w.Ping())  # Caller keeps talking; Prov falls silent
    bus.now += 1.0
    sent = bus.sweep()
    assert bus.router.peers == ["Caller"]
    result = only(sent, to=B, kind=w.Result).msg
    assert isinstance(result, w.Result) and result.id == 9 and result.error is not None
    assert result.error.kind == "IpcPeerLeftError"
    assert result.error.message == (
        "Prov left the bus during the call to Prov.Slow (Prov stopped answering (no heartbeat for 2.5 s))."
    )
    left = only(sent, to=B, kind=w.PeerLeft).msg
    assert isinstance(left, w.PeerLeft) and left.name == "Prov"
    gate = only(sent, to=B, kind=w.GateChanged).msg
    assert isinstance(gate, w.GateChanged) and gate.gate.func is None
    assert bus.router.gate_info("Prov.Slow") is None
    assert bus.router.pending_calls == 0


def test_sweep_keeps_peers_heard_within_the_timeout(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.now += 2.0
    assert bus.sweep() == []
    assert bus.router.peers == ["Prov"]


def test_bye_removes_the_peer_and_frees_its_name(bus: Bus) -> None:
    bus.hello(A, "Prov", incarnation="first")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    sent = bus.send(A, w.Bye())
    left = only(sent, to=B, kind=w.PeerLeft).msg
    assert left == w.PeerLeft(name="Prov", reason="Prov disconnected", seq=left.seq)  # type: ignore[union-attr]
    assert bus.router.gate_info("Prov.Echo") is None
    assert isinstance(only(bus.hello(C, "Prov", incarnation="second"), to=C).msg, w.Welcome)


def test_caller_leaving_drops_its_pending_calls_and_the_late_reply(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 1, "Prov.Echo")
    bus.send(B, w.Bye())
    assert bus.router.pending_calls == 0
    assert isinstance(invoke.msg, w.Invoke)
    assert bus.send(A, w.Reply(id=invoke.msg.id), b'"late"') == []


def test_call_payload_over_the_limit_is_refused_with_a_clear_message() -> None:
    bus = Bus(max_payload=1024)
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    [result] = bus.call(B, 2, "Prov.Echo", b"[" + b"1," * 600 + b"1]")
    assert result.to == B and isinstance(result.msg, w.Result) and result.msg.error is not None
    assert result.msg.error.kind == "IpcRefusedError"
    assert result.msg.error.message == (
        "The payload for Prov.Echo is 1203 bytes; the bus carries at most 1024 bytes (1 KiB). "
        "Send less, or start the broker with a larger --max-payload."
    )
    assert bus.router.pending_calls == 0


def test_result_payload_over_the_limit_is_refused_to_the_caller() -> None:
    bus = Bus(max_payload=1024)
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 2, "Prov.Echo")
    assert isinstance(invoke.msg, w.Invoke)
    [result] = bus.send(A, w.Reply(id=invoke.msg.id), b'"' + b"x" * 2000 + b'"')
    assert result.to == B and result.payload is None
    assert isinstance(result.msg, w.Result) and result.msg.error is not None
    assert result.msg.error.message.startswith("The payload for the result of Prov.Echo is 2002 bytes")


def test_message_payload_over_the_limit_is_refused_with_a_notice() -> None:
    bus = Bus(max_payload=1024)
    bus.hello(A, "Prov")
    bus.hello(B, "Sub")
    bus.send(B, w.Subscribe(gate="Prov.News"))
    [notice] = bus.send(A, w.Send(gate="Prov.News"), b"x" * 1025)
    assert notice.to == A and isinstance(notice.msg, w.Notice)
    assert notice.msg.error.message.startswith("The payload for Prov.News is 1025 bytes")


def test_calls_beyond_the_in_flight_limit_are_refused_until_one_finishes() -> None:
    bus = Bus(max_in_flight=2)
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    [first] = bus.call(B, 1, "Prov.Echo")
    bus.call(B, 2, "Prov.Echo")
    [refused] = bus.call(B, 3, "Prov.Echo")
    assert refused.to == B and isinstance(refused.msg, w.Result) and refused.msg.error is not None
    assert refused.msg.error.kind == "IpcRefusedError"
    assert refused.msg.error.message == (
        "Caller already has 2 calls in flight, the most the bus allows per process; wait for some to "
        "finish, or cancel the calls it no longer needs (a cancelled call is freed at once)."
    )
    assert isinstance(first.msg, w.Invoke)
    bus.send(A, w.Reply(id=first.msg.id), b'"done"')
    [invoke] = bus.call(B, 4, "Prov.Echo")
    assert isinstance(invoke.msg, w.Invoke)


def test_calls_to_one_provider_beyond_the_per_provider_limit_are_refused_naming_it() -> None:
    bus = Bus(max_in_flight_per_provider=2)
    bus.hello(A, "Hung")
    bus.provide(A, "Hung.Slow")
    bus.hello(C, "Other")
    bus.provide(C, "Other.Echo")
    bus.hello(B, "Caller")
    [first] = bus.call(B, 1, "Hung.Slow")
    bus.call(B, 2, "Hung.Slow")
    [refused] = bus.call(B, 3, "Hung.Slow")
    assert isinstance(refused.msg, w.Result) and refused.msg.error is not None
    assert refused.msg.error.kind == "IpcRefusedError"
    assert refused.msg.error.message == (
        "Caller already has 2 calls in flight to Hung, the most the bus allows from one process to "
        "another; Hung is not answering them (is it hung or overloaded?). Wait for some to finish, "
        "or cancel the calls it no longer needs; calls to other processes are not affected."
    )
    # The hung provider does not starve the caller's calls to anyone else, nor other callers.
    assert isinstance(only(bus.call(B, 4, "Other.Echo"), to=C).msg, w.Invoke)
    bus.hello(D, "Another")
    assert isinstance(only(bus.call(D, 1, "Hung.Slow"), to=A).msg, w.Invoke)
    assert bus.router.stats().in_flight == {"Caller": 3, "Another": 1}
    assert isinstance(first.msg, w.Invoke)
    bus.send(A, w.Reply(id=first.msg.id), b'"late"')
    assert isinstance(only(bus.call(B, 5, "Hung.Slow"), to=A).msg, w.Invoke)


def test_abandon_frees_the_call_and_its_place_and_drops_the_late_reply() -> None:
    bus = Bus(max_in_flight_per_provider=1)
    bus.hello(A, "Hung")
    bus.provide(A, "Hung.Slow")
    bus.hello(B, "Caller")
    [invoke] = bus.call(B, 1, "Hung.Slow")
    assert bus.send(B, w.Abandon(id=1)) == []
    assert bus.router.pending_calls == 0 and bus.router.stats().in_flight == {}
    [again] = bus.call(B, 2, "Hung.Slow")
    assert isinstance(invoke.msg, w.Invoke) and isinstance(again.msg, w.Invoke)
    assert bus.send(A, w.Reply(id=invoke.msg.id), b'"late"') == []  # nobody waits for it
    assert bus.send(B, w.Abandon(id=1)) == []  # twice, or after the answer: nothing
    assert bus.send(B, w.Abandon(id=77)) == []
    [result] = bus.send(A, w.Reply(id=again.msg.id), b'"in time"')
    assert result.to == B and isinstance(result.msg, w.Result) and result.msg.id == 2


def test_a_call_id_already_in_flight_is_refused(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    bus.call(B, 1, "Prov.Echo")
    [refused] = bus.call(B, 1, "Prov.Echo")
    assert refused.to == B and isinstance(refused.msg, w.Result) and refused.msg.error is not None
    assert refused.msg.error.message == "Call id 1 is already in flight; number each call anew."
    assert bus.router.pending_calls == 1


def test_gates_beyond_the_per_process_limit_are_refused_with_a_notice() -> None:
    bus = Bus(max_gates_per_peer=2)
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.One")
    bus.provide(A, "Prov.Two")
    bus.provide(A, "Prov.Two", kind="action")  # the same gate: counted once
    bus.provide(A, "Prov.One")  # again (a restore after a Welcome): counted once
    [notice] = bus.provide(A, "Prov.Three")
    assert notice.to == A and isinstance(notice.msg, w.Notice)
    assert notice.msg.error.kind == "IpcRefusedError"
    assert notice.msg.error.message == (
        "Prov already provides 2 gates, the most the bus allows per process; 'Prov.Three' was not "
        "registered. Unregister the gates it no longer needs, or start the broker with a higher "
        "BrokerConfig.max_gates_per_peer."
    )
    assert bus.router.gate_info("Prov.Three") is None
    bus.send(A, w.Withdraw(gate="Prov.Two", kind="func"))
    assert of_kind(bus.provide(A, "Prov.Three"), w.Notice) != []  # Prov.Two still has its action
    bus.send(A, w.Withdraw(gate="Prov.Two", kind="action"))
    assert of_kind(bus.provide(A, "Prov.Three"), w.Notice) == []
    assert bus.router.stats().gates == 2


def test_subscriptions_beyond_the_per_process_limit_are_refused_with_a_notice() -> None:
    bus = Bus(max_subscriptions_per_peer=2)
    bus.hello(A, "Sub")
    bus.send(A, w.Subscribe(gate="Prov.News"))
    bus.send(A, w.Subscribe(gate="Prov.News"))
    [notice] = bus.send(A, w.Subscribe(gate="Prov.Other"))
    assert isinstance(notice.msg, w.Notice) and notice.msg.error.kind == "IpcRefusedError"
    assert notice.msg.error.message.startswith(
        "Sub already holds 2 subscriptions, the most the bus allows per process; the subscription "
        "to 'Prov.Other' was not made."
    )
    assert bus.router.gate_info("Prov.Other") is None
    bus.send(A, w.Unsubscribe(gate="Prov.News"))
    bus.send(A, w.Unsubscribe(gate="Prov.Nothing"))  # not subscribed: frees nothing
    assert of_kind(bus.send(A, w.Subscribe(gate="Prov.Other")), w.Notice) == []
    assert bus.router.stats().subscriptions == 2


def test_welcome_tells_the_peer_its_limits(bus: Bus) -> None:
    welcome = only(bus.hello(A, "Prov"), to=A).msg
    assert isinstance(welcome, w.Welcome)
    assert (welcome.max_gates, welcome.max_subscriptions) == (512, 1024)


def test_stats_request_is_answered_with_the_tables_sizes(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    bus.send(B, w.Subscribe(gate="Prov.News"))
    bus.call(B, 1, "Prov.Echo")
    [reply] = bus.send(B, w.Stats(id=5))
    assert reply.to == B and reply.msg == w.StatsReply(
        id=5,
        stats=w.BrokerStats(
            broker=bus.router.incarnation, peers=2, gates=2, pending_calls=1, subscriptions=1, in_flight={"Caller": 1}
        ),
    )


@pytest.mark.parametrize(
    ("frames", "expected"),
    [
        pytest.param([b"\xc1\xff garbage \x00"], "Malformed message frame", id="garbage-bytes"),
        pytest.param([b""], "Malformed message frame", id="empty-frame"),
        pytest.param([], "got 0 frames", id="no-frames"),
        pytest.param([b"a", b"b", b"c", b"d", b"e"], "got 5 frames", id="five-frames"),
        pytest.param([w.encode(w.Ping()), b"x", b"y"], "got 3 frames", id="three-frames"),
        pytest.param([w.encode(w.Call(id=1, gate="Prov.Echo")), b"[]"], "got 2 frames", id="old-two-frames"),
        pytest.param([msgspec.msgpack.encode({"t": "nuke"})], "Malformed message frame", id="wrong-tag"),
        pytest.param([msgspec.msgpack.encode({"x": 1})], "Malformed message frame", id="no-tag"),
        pytest.param([msgspec.msgpack.encode([1, 2, 3])], "Malformed message frame", id="not-a-map"),
        pytest.param([msgspec.msgpack.encode({"t": "call", "id": "x", "gate": "A.B"})], "Malformed", id="bad-field"),
        pytest.param([w.encode(w.Pong(broker="b"))], "Malformed message frame", id="peer-bound-message"),
    ],
)
def test_malformed_frames_are_answered_with_a_notice_and_never_raise(
    bus: Bus, frames: list[bytes], expected: str
) -> None:
    bus.hello(A, "Raw")
    for identity in (A, B):  # a known peer and an unknown identity alike
        [notice] = bus.raw(identity, frames)
        assert notice.to == identity and isinstance(notice.msg, w.Notice)
        assert notice.msg.error.kind == "IpcError"
        assert expected in notice.msg.error.message
    assert bus.router.peers == ["Raw"]


def test_internal_error_is_answered_with_a_notice_and_never_raises(bus: Bus, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    bus.hello(A, "Prov")
    monkeypatch.setattr(bus.router._gates, "provide", broken)
    [notice] = bus.provide(A, "Prov.Echo")
    assert isinstance(notice.msg, w.Notice)
    assert notice.msg.error.message == "The broker failed to handle that message; see its log."


def test_unknown_identity_is_answered_with_need_hello(bus: Bus) -> None:
    for msg in (w.Ping(), w.Call(id=1, gate="A.B"), w.Subscribe(gate="A.B"), w.Reply(id=1), w.Bye()):
        [need] = bus.send(A, msg)
        assert need.to == A and need.msg == w.NeedHello(broker=bus.router.incarnation)
    assert bus.router.peers == []


def test_ping_is_answered_with_pong_carrying_the_broker_incarnation(bus: Bus) -> None:
    bus.hello(A, "Prov")
    [pong] = bus.send(A, w.Ping())
    assert pong.msg == w.Pong(broker=bus.router.incarnation)


def test_message_fans_out_to_subscribers_only(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.hello(B, "Sub1")
    bus.hello(C, "Sub2")
    bus.hello(D, "Bystander")
    bus.send(B, w.Subscribe(gate="Prov.News"))
    bus.send(C, w.Subscribe(gate="Prov.News"))
    bus.send(D, w.Subscribe(gate="Prov.Other"))
    sent = bus.send(A, w.Send(gate="Prov.News"), b'["hello"]')
    assert sorted(s.to for s in sent) == [B, C]
    for s in sent:
        assert isinstance(s.msg, w.Message)
        assert (s.msg.gate, s.msg.sender, s.payload) == ("Prov.News", "Prov", b'["hello"]')


def test_message_on_a_gate_nobody_subscribes_is_a_no_op(bus: Bus) -> None:
    bus.hello(A, "Prov")
    assert bus.send(A, w.Send(gate="Prov.News"), b'["x"]') == []


def test_subscribe_before_provide_keeps_the_subscription_when_the_provider_comes(bus: Bus) -> None:
    bus.hello(B, "Sub")
    bus.send(B, w.Subscribe(gate="Late.News"))
    bus.hello(A, "Late")
    welcome = only(bus.hello(C, "Other"), to=C, kind=w.Welcome).msg
    assert isinstance(welcome, w.Welcome)
    assert welcome.gates == (w.GateInfo(name="Late.News", subscribers=("Sub",), subscriptions=1),)
    [message] = bus.send(A, w.Send(gate="Late.News"), b'["first"]')
    assert message.to == B and isinstance(message.msg, w.Message) and message.msg.sender == "Late"
    bus.provide(A, "Late.News")
    info = bus.router.gate_info("Late.News")
    assert info is not None and info.func is not None and info.subscribers == ("Sub",)


def test_subscriptions_are_counted_per_subscribe(bus: Bus) -> None:
    bus.hello(B, "Sub")
    bus.send(B, w.Subscribe(gate="Prov.News"))
    bus.send(B, w.Subscribe(gate="Prov.News"))
    info = bus.router.gate_info("Prov.News")
    assert info is not None and (info.subscribers, info.subscriptions) == (("Sub",), 2)
    bus.send(B, w.Unsubscribe(gate="Prov.News"))
    info = bus.router.gate_info("Prov.News")
    assert info is not None and info.subscriptions == 1
    bus.send(B, w.Unsubscribe(gate="Prov.News"))
    assert bus.router.gate_info("Prov.News") is None


def test_withdraw_empties_the_slot_and_calls_fail_not_ready(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo", kind="func")
    bus.provide(A, "Prov.Echo", kind="action")
    bus.hello(B, "Caller")
    sent = bus.send(A, w.Withdraw(gate="Prov.Echo", kind="func"))
    assert {s.to for s in of_kind(sent, w.GateChanged)} == {A, B}
    info = bus.router.gate_info("Prov.Echo")
    assert info is not None and info.func is None and info.action is not None
    [result] = bus.call(B, 1, "Prov.Echo")
    assert isinstance(result.msg, w.Result) and result.msg.error is not None
    assert result.msg.error.kind == "IpcNotReadyError"
    bus.send(A, w.Withdraw(gate="Prov.Echo", kind="action"))
    assert bus.router.gate_info("Prov.Echo") is None


def test_withdraw_of_a_slot_the_peer_does_not_fill_is_ignored(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Other")
    assert bus.send(B, w.Withdraw(gate="Prov.Echo", kind="func")) == []
    assert bus.send(B, w.Withdraw(gate="Nobody.Echo", kind="func")) == []
    info = bus.router.gate_info("Prov.Echo")
    assert info is not None and info.func is not None


def test_snapshot_returns_the_gate_table(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    [table] = bus.send(A, w.Snapshot())
    assert isinstance(table.msg, w.GateTable)
    assert [g.name for g in table.msg.gates] == ["Prov.Echo"]
    assert table.msg.peers == ("Prov",)


def test_events_carry_a_gapless_sequence_per_peer(bus: Bus) -> None:
    bus.hello(A, "Watcher")
    seqs: list[int] = []
    for sent in (bus.hello(B, "Prov"), bus.provide(B, "Prov.Echo"), bus.send(B, w.Bye())):
        seqs.extend(s.msg.seq for s in sent if s.to == A)  # type: ignore[union-attr]
    assert seqs == [1, 2, 3, 4]  # joined, gate changed, gate changed (gone), left


def test_undeliverable_invoke_fails_the_call_with_peer_left(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    [invoke] = bus.router.handle(B, [w.encode(w.Call(id=4, gate="Prov.Echo", payload=b"[]"))], bus.now)
    [result] = decode(bus.router.undeliverable(invoke, "its connection is gone"))
    assert result.to == B and isinstance(result.msg, w.Result) and result.msg.error is not None
    assert result.msg.error.kind == "IpcPeerLeftError"
    assert result.msg.error.message == "Prov could not be reached for Prov.Echo: its connection is gone."


def test_shutdown_fails_every_pending_call(bus: Bus) -> None:
    bus.hello(A, "Prov")
    bus.provide(A, "Prov.Echo")
    bus.hello(B, "Caller")
    bus.call(B, 4, "Prov.Echo")
    [result] = decode(bus.router.shutdown())
    assert result.to == B and isinstance(result.msg, w.Result) and result.msg.error is not None
    assert result.msg.error.kind == "IpcDisconnectedError"
    assert bus.router.pending_calls == 0
