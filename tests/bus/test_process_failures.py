"""What the bus does when processes die, restart or misbehave: real processes, real sockets.

A raw ZeroMQ DEALER plays a client that does not use the broker package, to show the broker
answers garbage with a Notice and keeps serving everyone else.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio
import msgspec
import pytest
import pytest_asyncio
import zmq
import zmq.asyncio

import broker
from broker import _wire as w

if TYPE_CHECKING:
    from tests.conftest import BrokerProcess, PeerProcess, Spawn

pytestmark = pytest.mark.asyncio

WAIT = 5.0


@pytest_asyncio.fixture
async def raw_dealer(broker_proc: BrokerProcess) -> AsyncIterator[zmq.asyncio.Socket]:
    """A plain DEALER socket connected to the broker, closed with linger 0."""
    ctx = zmq.asyncio.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(broker_proc.endpoint)
    try:
        yield sock
    finally:
        sock.close(0)
        ctx.term()


async def receive(sock: zmq.asyncio.Socket, kind: type[w.ToPeer]) -> tuple[w.ToPeer, list[bytes]]:
    """The next message of type `kind` from the broker (others, such as GateChanged, are skipped)."""
    with anyio.fail_after(WAIT):
        while True:
            frames = await sock.recv_multipart()
            msg = w.decode_to_peer(frames[0])
            if isinstance(msg, kind):
                return msg, frames[1:]


async def raw_hello(sock: zmq.asyncio.Socket, name: str) -> None:
    await sock.send_multipart([w.encode(w.Hello(name=name, protocol=w.PROTOCOL_VERSION, incarnation="raw"))])
    await receive(sock, w.Welcome)


async def test_b2_kill_9_of_provider_mid_call_fails_the_pending_call_naming_it_and_peers_learn_it_left(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    watcher = await spawn_peer("watcher", "Watcher")
    await watcher.expect("ready")
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        changes: list[tuple[str, bool, str]] = []
        pi.on_peer_change(lambda name, joined, reason: changes.append((name, joined, reason)))
        failure: list[BaseException] = []
        call_ended = anyio.Event()

        async def call_slow() -> None:
            try:
                await pi.get_ipc_subscriber("Prov.Slow").invoke_func()
            except broker.IpcError as exc:
                failure.append(exc)
            call_ended.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(call_slow)
            await ready_provider.expect("slow-started")
            ready_provider.kill()  # kill -9, mid-call
            with anyio.fail_after(3.0):
                await call_ended.wait()
        with anyio.fail_after(WAIT):
            await pi.wait_peer_gone("Prov")
        assert not pi.get_ipc_subscriber("Prov.Echo").has_function()

    [error] = failure
    assert isinstance(error, broker.IpcPeerLeftError)
    gone = "Prov's connection closed (its process exited or was killed)"
    assert str(error) == f"Prov left the bus during the call to Prov.Slow ({gone})."
    assert [c for c in changes if c[0] == "Prov"] == [("Prov", False, gone)]
    assert await watcher.expect("left Prov", WAIT) == f"left Prov {gone}"


async def test_broker_restart_peers_reconnect_and_restore_registrations_and_subscriptions(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    sub = await spawn_peer("subscriber", "Sub1", "Prov.News")
    await sub.expect("ready")
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        heard: list[object] = []
        pi.get_ipc_subscriber("Prov.News").subscribe(heard.append)
        connection: list[bool] = []
        pi.on_connection_change(connection.append)
        echo = pi.get_ipc_subscriber("Prov.Echo")

        def news_subscribers() -> tuple[str, ...]:
            info = pi.gate("Prov.News")
            return () if info is None else info.subscribers

        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: news_subscribers() == ("Sub1", "Tst"))
        first_broker = pi._link.broker

        assert broker_proc.broker is not None
        broker_proc.broker.kill()
        await anyio.to_thread.run_sync(broker_proc.start_broker)

        with anyio.fail_after(10.0):
            await pi.wait_until(lambda: connection[-2:] == [False, True])
            await echo.wait_ready()
            await pi.wait_until(lambda: news_subscribers() == ("Sub1", "Tst"))
            assert await echo.invoke_func("again") == "again"
            assert await pi.get_ipc_subscriber("Prov.SubCount").invoke_func() == 2
            assert await pi.get_ipc_subscriber("Prov.Announce").invoke_func("after restart") == 2
            await pi.wait_until(lambda: heard == ["after restart"])
        assert pi._link.broker != first_broker
        assert pi.peers == {"Prov", "Sub1", "Tst"}
    await ready_provider.expect("reconnected")
    await sub.expect("reconnected")
    assert await sub.expect("msg", WAIT) == 'msg Prov.News Prov ["after restart"]'


async def test_malformed_frames_from_raw_socket_get_notices_and_the_broker_keeps_serving(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, raw_dealer: zmq.asyncio.Socket
) -> None:
    await raw_hello(raw_dealer, "Raw")
    garbage: list[tuple[list[bytes], str]] = [
        ([os.urandom(64)], "Malformed message frame"),
        ([b""], "Malformed message frame"),
        ([b"a", b"b", b"c", b"d", b"e"], "got 5 frames"),
        ([msgspec.msgpack.encode({"t": "launch-missiles", "gate": "Prov.Echo"})], "Malformed message frame"),
        ([msgspec.msgpack.encode({"t": "call", "id": "not a number", "gate": "Prov.Echo"})], "Malformed message frame"),
    ]
    for frames, expected in garbage:
        await raw_dealer.send_multipart(frames)
        notice, _ = await receive(raw_dealer, w.Notice)
        assert isinstance(notice, w.Notice)
        assert notice.error.kind == "IpcError"
        assert expected in notice.error.message

    # The same raw socket, done properly, still gets served; so does a normal peer.
    await raw_dealer.send_multipart([w.encode(w.Call(id=7, gate="Prov.Echo", payload=b'["raw"]'))])
    result, body = await receive(raw_dealer, w.Result)
    assert result == w.Result(id=7, payload=b'"raw"') and body == []
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("fine") == "fine"


async def test_raw_socket_without_hello_is_told_to_say_hello(raw_dealer: zmq.asyncio.Socket) -> None:
    await raw_dealer.send_multipart([w.encode(w.Call(id=1, gate="Prov.Echo", payload=b"[]"))])
    need, _ = await receive(raw_dealer, w.NeedHello)
    assert isinstance(need, w.NeedHello) and need.broker


async def test_raw_socket_providing_a_foreign_gate_gets_a_notice(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, raw_dealer: zmq.asyncio.Socket
) -> None:
    await raw_hello(raw_dealer, "Raw")
    await raw_dealer.send_multipart([w.encode(w.Provide(gate="Prov.Echo", kind="func", params=("string",)))])
    notice, _ = await receive(raw_dealer, w.Notice)
    assert isinstance(notice, w.Notice)
    assert notice.error.kind == "IpcRefusedError"
    assert notice.error.message.startswith("Raw may not provide 'Prov.Echo'")
    # Prov still owns its gate.
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        assert pi.gate("Prov.Echo") == broker.GateInfo(
            name="Prov.Echo", func=broker.SlotInfo(provider="Prov", params=("string",), returns="string")
        )
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("mine") == "mine"


async def test_payload_over_one_mib_is_refused_and_the_bus_keeps_working(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, raw_dealer: zmq.asyncio.Socket
) -> None:
    big = "x" * (1024 * 1024 + 1)
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        echo = pi.get_ipc_subscriber("Prov.Echo")
        with pytest.raises(broker.IpcRefusedError) as err:
            await echo.invoke_func(big)
        assert str(err.value) == (
            f"The payload for Prov.Echo is {len(big) + 4} bytes; the bus carries at most 1048576 bytes "
            "(1024 KiB). Send less, or start the broker with a larger --max-payload."
        )
        # The broker enforces the limit itself, for a client that does not check.
        await raw_hello(raw_dealer, "Raw")
        await raw_dealer.send_multipart([w.encode(w.Call(id=1, gate="Prov.Echo", payload=msgspec.json.encode([big])))])
        result, _ = await receive(raw_dealer, w.Result)
        assert isinstance(result, w.Result) and result.error is not None
        assert result.error.kind == "IpcRefusedError"
        assert result.error.message == str(err.value)
        with anyio.fail_after(WAIT):
            assert await echo.invoke_func("small") == "small"
            assert await echo.invoke_func("y" * 500_000) == "y" * 500_000
