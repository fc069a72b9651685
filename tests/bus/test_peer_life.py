"""A peer's life on the bus in one process: against an in-thread Broker, a raw DEALER playing
another process, or a scripted fake broker (a raw ROUTER) when the test chooses what the broker
says. The multi-process versions are in test_life_on_the_bus.py."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator

import anyio
import pytest
import zmq
import zmq.asyncio

import broker
from broker import _wire as w

pytestmark = pytest.mark.asyncio

WAIT = 5.0


@pytest.fixture
def make_broker() -> Iterator[Callable[..., broker.Broker]]:
    started: list[broker.Broker] = []

    def _make(**config: object) -> broker.Broker:
        bus = broker.Broker(broker.BrokerConfig(endpoint="tcp://127.0.0.1:0", **config))  # type: ignore[arg-type]
        started.append(bus.start_in_thread())
        return bus

    try:
        yield _make
    finally:
        for bus in started:
            bus.close()


@pytest.fixture
def thread_broker(make_broker: Callable[..., broker.Broker]) -> broker.Broker:
    return make_broker()


@contextlib.asynccontextmanager
async def raw_holder(ctx: zmq.asyncio.Context, endpoint: str, name: str) -> AsyncIterator[zmq.asyncio.Socket]:
    """A DEALER that takes `name` and then says nothing: a frozen process whose connection is open.
    Closed on leaving: a socket left to the garbage collector warns from `__del__` at a moment no
    test chooses (seen under load, as an unraisable-exception failure of a later test)."""
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    try:
        sock.connect(endpoint)
        await sock.send(w.encode(w.Hello(name=name, protocol=w.PROTOCOL_VERSION, incarnation="frozen")))
        with anyio.fail_after(WAIT):
            assert isinstance(w.decode_to_peer(await sock.recv()), w.Welcome)
        yield sock
    finally:
        sock.close()


async def test_b1_a_loop_blocked_past_the_timeout_keeps_its_connection_on_waking(
    thread_broker: broker.Broker,
) -> None:
    async with broker.connect(thread_broker.endpoint, "Sleeper") as pi:
        changes: list[bool] = []
        pi.on_connection_change(changes.append)

        def block(seconds: float) -> str:
            time.sleep(seconds)  # blocks this process's event loop; only the beacon thread runs
            return "woke"

        pi.get_ipc_provider("Sleeper.Block", params=(float,), returns=str).register_func(block)
        gate = pi.get_ipc_subscriber("Sleeper.Block")
        with anyio.fail_after(WAIT):
            await gate.wait_ready()
        beats = pi._keepalive.heartbeats
        with anyio.fail_after(10.0):
            assert await gate.invoke_func(3.0) == "woke"  # longer than the 2 s timeout
            await pi.wait_until(lambda: pi._keepalive.heartbeats > beats + 1)  # a heartbeat judged after waking
        assert pi.connected and changes == []
        assert pi.peers == {"Sleeper"} and gate.has_function()


async def test_b1_the_beacon_thread_ends_when_the_connection_closes(thread_broker: broker.Broker) -> None:
    def beacons() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "xivmcp-bus-alive-Beaconed"]

    async with broker.connect(thread_broker.endpoint, "Beaconed"):
        assert len(beacons()) == 1
    assert beacons() == []


async def test_b1_a_beacon_answer_that_the_broker_forgot_this_process_makes_it_say_hello_again(
    zmq_context: zmq.asyncio.Context,
) -> None:
    fake = zmq_context.socket(zmq.ROUTER)
    fake.setsockopt(zmq.LINGER, 0)
    fake.bind("tcp://127.0.0.1:*")  # the port the OS gives it: no other test process takes it first
    endpoint = fake.getsockopt_string(zmq.LAST_ENDPOINT)
    welcome = w.encode(w.Welcome(name="Forgot", broker="fake", heartbeat=0.2, timeout=2.0, max_payload=1 << 20))
    hellos: list[bytes] = []  # identities of the Hellos that came after the "not known"
    main: list[bytes] = []
    told = False

    async def script() -> None:
        nonlocal told
        while not hellos:
            identity, frame = await fake.recv_multipart()
            msg = w.decode_to_broker(frame)
            if isinstance(msg, w.Hello):
                main.append(identity)
                incarnations.append(msg.incarnation)
                if told:
                    hellos.append(identity)
                await fake.send_multipart([identity, welcome])
            elif isinstance(msg, w.Alive) and not told:
                assert identity not in main  # the beacon's socket is its own
                assert msg.name == "Forgot" and msg.incarnation == incarnations[0]
                await fake.send_multipart([identity, w.encode(w.AliveAck(broker="fake", known=False, stamp=msg.stamp))])
                told = True
            elif isinstance(msg, w.Ping):
                await fake.send_multipart([identity, w.encode(w.Pong(broker="fake"))])

    changes: list[bool] = []
    incarnations: list[str] = []
    with anyio.fail_after(WAIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(script)
            async with broker.connect(endpoint, "Forgot") as pi:
                pi.on_connection_change(changes.append)
                await pi.wait_until(lambda: changes == [False, True])
    assert hellos == main[:1]  # Hello again, on its main socket
    assert set(incarnations) == {pi.incarnation}


async def test_b4_a_newcomer_waits_for_a_silent_holder_warns_once_and_gets_the_name(
    thread_broker: broker.Broker, zmq_context: zmq.asyncio.Context, caplog: pytest.LogCaptureFixture
) -> None:
    async with raw_holder(zmq_context, thread_broker.endpoint, "Held"):
        with caplog.at_level(logging.WARNING, logger="xivmcp.bus"), anyio.fail_after(WAIT):
            async with broker.connect(thread_broker.endpoint, "Held") as pi:
                assert pi.connected and pi.peers == {"Held"}
    warnings = [r.getMessage() for r in caplog.records if "waiting for the InternalName" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].startswith("Held: waiting for the InternalName 'Held': a process that held it was last heard ")
    assert warnings[0].endswith(" s if that process is gone")
    assert "the bus frees the name within " in warnings[0]


async def test_b4_a_connect_timeout_shorter_than_the_window_raises_refused_saying_the_name_was_held(
    thread_broker: broker.Broker, zmq_context: zmq.asyncio.Context
) -> None:
    async with raw_holder(zmq_context, thread_broker.endpoint, "Held"):
        with anyio.fail_after(WAIT), pytest.raises(broker.IpcRefusedError) as err:
            async with broker.connect(thread_broker.endpoint, "Held", connect_timeout=0.5):
                pass
    assert str(err.value).startswith(
        "The InternalName 'Held' was still held by another process when the connect_timeout of 0.5 s ran out"
    )
    assert str(err.value).endswith("if it died, try again, or pass a longer connect_timeout.")


async def test_b4_a_second_live_process_with_the_name_is_refused_within_a_few_seconds(
    thread_broker: broker.Broker,
) -> None:
    async with broker.connect(thread_broker.endpoint, "Twin"):
        with anyio.fail_after(3.0), pytest.raises(broker.IpcRefusedError, match="'Twin' is already connected"):
            async with broker.connect(thread_broker.endpoint, "Twin"):
                pass


async def test_b6_a_cancelled_call_is_freed_at_the_broker(thread_broker: broker.Broker) -> None:
    async with (
        broker.connect(thread_broker.endpoint, "Prov") as prov,
        broker.connect(thread_broker.endpoint, "Tst") as pi,
    ):
        started = anyio.Event()

        async def hang() -> str:
            started.set()
            await anyio.sleep_forever()
            return "never"

        prov.get_ipc_provider("Prov.Hang", returns=str).register_func(hang)
        gate = pi.get_ipc_subscriber("Prov.Hang")
        with anyio.fail_after(WAIT):
            await gate.wait_ready()
            with anyio.move_on_after(WAIT) as scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(gate.invoke_func)
                    await started.wait()
                    assert (await pi.broker_stats()).in_flight == {"Tst": 1}
                    tg.cancel_scope.cancel()
            assert not scope.cancelled_caught
            stats = await pi.broker_stats()
        assert stats.pending_calls == 0 and stats.in_flight == {}


async def test_broker_stats_reports_the_tables(thread_broker: broker.Broker) -> None:
    async with broker.connect(thread_broker.endpoint, "Tst") as pi:
        pi.get_ipc_provider("Tst.Echo", params=(str,), returns=str).register_func(str)
        pi.get_ipc_subscriber("Other.News").subscribe(print)
        with anyio.fail_after(WAIT):
            stats = await pi.broker_stats()
    assert isinstance(stats, broker.BrokerStats)
    assert (stats.peers, stats.gates, stats.pending_calls, stats.subscriptions) == (1, 2, 0, 1)
    assert stats.broker == pi._link.broker


async def test_b7_register_func_past_the_gate_limit_raises_refused_in_the_process(
    make_broker: Callable[..., broker.Broker],
) -> None:
    bus = make_broker(max_gates_per_peer=2)
    async with broker.connect(bus.endpoint, "Many") as pi:
        for name in ("Many.One", "Many.Two"):
            pi.get_ipc_provider(name, returns=str).register_func(str)
        pi.get_ipc_provider("Many.Two").register_action(print)  # the same gate: not one more
        with pytest.raises(broker.IpcRefusedError) as err:
            pi.get_ipc_provider("Many.Three", returns=str).register_func(str)
        pi.get_ipc_provider("Many.One").unregister_func()
        pi.get_ipc_provider("Many.Three", returns=str).register_func(str)
        with anyio.fail_after(WAIT):
            await pi.get_ipc_subscriber("Many.Three").wait_ready()
    assert str(err.value) == (
        "Many already provides 2 gates, the most the bus allows per process; 'Many.Three' was not "
        "registered. Unregister the gates it no longer needs (unregister_func, unregister_action), "
        "or start the broker with a higher BrokerConfig.max_gates_per_peer."
    )


async def test_b7_subscribe_past_the_subscription_limit_raises_refused_in_the_process(
    make_broker: Callable[..., broker.Broker],
) -> None:
    bus = make_broker(max_subscriptions_per_peer=2)
    async with broker.connect(bus.endpoint, "Subs") as pi:
        news = pi.get_ipc_subscriber("Other.News")
        news.subscribe(print)
        news.subscribe(repr)
        with pytest.raises(broker.IpcRefusedError) as err:
            pi.get_ipc_subscriber("Other.More").subscribe(print)
        news.unsubscribe(repr)
        pi.get_ipc_subscriber("Other.More").subscribe(print)
        with anyio.fail_after(WAIT):
            assert (await pi.broker_stats()).subscriptions == 2
    assert str(err.value).startswith(
        "Subs already holds 2 subscriptions, the most the bus allows per process; the subscription "
        "to 'Other.More' was not made. Unsubscribe the callbacks it no longer needs"
    )
