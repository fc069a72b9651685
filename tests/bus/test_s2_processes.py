"""S2 across the socket: a raw client that abuses the broker, and honest peers that keep the bus.

The poisoned Provide runs against the broker process (`xivmcp broker`) and a provider process;
the reader that never reads against a broker in a thread of the test, where its byte budget is
set small. How a `PluginInterface` itself reacts (it joins again after being cut off, it says
what it read so it is never cut off while it reads, it fails a dropped request at once) runs on
the in-memory broker, where the socket is not the point."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import anyio
import pytest
import zmq
import zmq.asyncio

import broker
from broker import _wire as w

if TYPE_CHECKING:
    from tests.conftest import BrokerProcess, PeerProcess

pytestmark = pytest.mark.asyncio

WAIT = 5.0


@contextlib.asynccontextmanager
async def _raw_peer(ctx: zmq.asyncio.Context, endpoint: str, name: str) -> AsyncIterator[zmq.asyncio.Socket]:
    """A DEALER that said Hello and got its Welcome (and whatever pages follow it); closed on
    leaving, so no socket is left for the garbage collector to warn about during a later test."""
    with ctx.socket(zmq.DEALER) as sock:
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(endpoint)
        await sock.send(w.encode(w.Hello(name=name, protocol=w.PROTOCOL_VERSION, incarnation=name)))
        while not isinstance(w.decode_peer_frame(await sock.recv()), w.Welcome):
            pass
        yield sock


async def _next(sock: zmq.asyncio.Socket, kind: type[w.ToPeer]) -> w.ToPeer:
    while True:
        frame = w.decode_peer_frame(await sock.recv())
        for msg in frame if isinstance(frame, list) else [frame]:
            if isinstance(msg, kind):
                return msg


async def test_s2_a_poisoned_provide_is_refused_and_the_bus_stays_up_for_everyone(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, zmq_context: zmq.asyncio.Context
) -> None:
    with anyio.fail_after(WAIT):
        async with _raw_peer(zmq_context, broker_proc.endpoint, "Evil") as evil:
            for i in range(2):  # two gates of 1.2 MB each: together over every peer's frame limit
                await evil.send(w.encode(w.Provide(gate=f"Evil.Gate{i}", kind="func", params=("x" * 1_200_000,))))
                notice = await _next(evil, w.Notice)
                assert isinstance(notice, w.Notice) and "not a type the bus carries" in notice.error.message
            async with broker.connect(broker_proc.endpoint, "Late") as late:  # its Welcome carries the table
                assert late.gate("Evil.Gate0") is None
                assert await late.get_ipc_subscriber("Prov.Echo").invoke_func("still up") == "still up"
    assert "lost" not in ready_provider.lines


@pytest.fixture
def small_budget_broker() -> Iterator[broker.Broker]:
    config = broker.BrokerConfig(endpoint="tcp://127.0.0.1:0", max_queued_bytes=1024 * 1024, peer_timeout=60.0)
    bus = broker.Broker(config).start_in_thread()
    try:
        yield bus
    finally:
        bus.close()


async def test_s2_a_peer_that_never_reads_is_disconnected_with_a_reason(
    small_budget_broker: broker.Broker, zmq_context: zmq.asyncio.Context
) -> None:
    endpoint = small_budget_broker.endpoint
    async with contextlib.AsyncExitStack() as stack, broker.connect(endpoint, "Pub") as pub:
        news = pub.get_ipc_provider("Pub.News", params=(str,))
        left: list[tuple[str, str]] = []
        pub.on_peer_change(lambda name, joined, reason: None if joined else left.append((name, reason)))
        with anyio.fail_after(WAIT):
            deaf = await stack.enter_async_context(_raw_peer(zmq_context, endpoint, "Deaf"))
            await deaf.send(w.encode(w.Subscribe(gate="Pub.News")))
            await pub.wait_until(lambda: news.subscription_count == 1)
            # Deaf reads nothing from here on; every message waits for it, until the budget runs out.
            while not left:
                news.send_message("n" * 100_000)
                await pub.flush()
        name, reason = left[0]
        assert name == "Deaf" and "Deaf was disconnected by the bus because" in reason
        assert "MiB the bus lets wait" in reason
        with anyio.fail_after(WAIT):  # what Deaf finds at the end of its queue, once it reads
            notice = await _next(deaf, w.Notice)
        assert isinstance(notice, w.Notice) and notice.about == "queued" and notice.error.message == reason


async def test_s2_a_peer_cut_off_for_reading_slowly_joins_again_by_itself() -> None:
    from broker._memory import MemoryBroker

    bus = MemoryBroker(broker.BrokerConfig(max_queued_bytes=10_000))
    async with bus.connect("Pub") as pub, bus.connect("Slow") as slow:
        news = pub.get_ipc_provider("Pub.News", params=(str,))
        heard: list[bool] = []
        slow.on_connection_change(heard.append)
        slow.get_ipc_subscriber("Pub.News").subscribe(lambda text: None)
        with anyio.fail_after(WAIT):
            await pub.wait_until(lambda: news.subscription_count == 1)
            for _ in range(5):  # 15 KB at once, before Slow's loop reads any of it
                news.send_message("n" * 3_000)
            await slow.wait_until(lambda: heard[-2:] == [False, True])
            await pub.wait_until(lambda: news.subscription_count == 1)  # restored with its session


async def test_s2_a_peer_that_keeps_reading_is_never_cut_off_however_much_it_is_sent() -> None:
    from broker._memory import MemoryBroker

    bus = MemoryBroker(broker.BrokerConfig(max_queued_bytes=10_000))
    async with bus.connect("Pub") as pub, bus.connect("Reader") as reader:
        news = pub.get_ipc_provider("Pub.News", params=(str,))
        heard: list[bool] = []
        send, receive = anyio.create_memory_object_stream[str](100)
        reader.on_connection_change(heard.append)
        reader.get_ipc_subscriber("Pub.News").subscribe(send.send_nowait)
        with anyio.fail_after(WAIT), send, receive:
            await pub.wait_until(lambda: news.subscription_count == 1)
            for i in range(40):  # 120 KB in all, twelve times the budget: it says what it read as it goes
                news.send_message(f"{i:03d}" + "n" * 2_997)
                assert (await receive.receive())[:3] == f"{i:03d}"
        assert heard == [] and reader.connected


async def test_s2_a_peer_whose_stats_request_is_dropped_gets_the_error_rather_than_waiting() -> None:
    from broker._memory import MemoryBroker

    bus = MemoryBroker(broker.BrokerConfig(control_burst=2, control_rate=0.001))
    async with bus.connect("Poller") as pi:
        with anyio.fail_after(WAIT):
            await pi.broker_stats()
            await pi.broker_stats()
            with pytest.raises(broker.IpcRefusedError, match="Poller sent more stats messages"):
                await pi.broker_stats()
