"""The peer API in one process: `connect()` against an in-thread Broker, or against a scripted
fake broker (a raw ROUTER socket) when the test needs to choose what the broker says."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
import pytest_asyncio
import zmq
import zmq.asyncio

import broker
from broker import _wire as w

WAIT = 5.0


@pytest.fixture
def thread_broker() -> Iterator[broker.Broker]:
    bus = broker.Broker(broker.BrokerConfig(endpoint="tcp://127.0.0.1:0")).start_in_thread()
    try:
        yield bus
    finally:
        bus.close()


@pytest_asyncio.fixture
async def fake_broker() -> AsyncIterator[zmq.asyncio.Socket]:
    ctx = zmq.asyncio.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind("tcp://127.0.0.1:*")  # the port the OS gives it: no other test process can take it first
    try:
        yield sock
    finally:
        sock.close(0)
        ctx.term()


@pytest.mark.asyncio
async def test_connect_with_a_taken_name_raises_refused_error_itself(thread_broker: broker.Broker) -> None:
    async with broker.connect(thread_broker.endpoint, "Twin"):
        with anyio.fail_after(WAIT), pytest.raises(broker.IpcRefusedError, match="'Twin' is already connected"):
            async with broker.connect(thread_broker.endpoint, "Twin"):
                pass


@pytest.mark.asyncio
async def test_connect_with_an_invalid_name_raises_refused_error() -> None:
    with pytest.raises(broker.IpcRefusedError, match="is not a valid InternalName"):
        async with broker.connect("tcp://127.0.0.1:1", "no spaces please"):
            pass


@pytest.mark.asyncio
async def test_connect_with_a_name_ending_in_a_newline_is_refused(thread_broker: broker.Broker) -> None:
    with pytest.raises(broker.IpcRefusedError, match=r"'MyPlugin\\n' is not a valid InternalName"):
        async with broker.connect(thread_broker.endpoint, "MyPlugin\n"):
            pass


@pytest.mark.asyncio
async def test_gate_names_ending_in_a_newline_are_refused(thread_broker: broker.Broker) -> None:
    async with broker.connect(thread_broker.endpoint, "MyPlugin") as pi:
        with pytest.raises(broker.IpcRefusedError, match="has characters the bus does not carry"):
            pi.get_ipc_subscriber("MyPlugin.Echo\n")
        with pytest.raises(broker.IpcRefusedError, match="has characters the bus does not carry"):
            pi.get_ipc_provider("MyPlugin.Echo\n", params=(str,), returns=str)


@pytest.mark.asyncio
async def test_connect_without_a_broker_raises_disconnected_error(free_endpoint: str) -> None:
    with pytest.raises(broker.IpcDisconnectedError, match=r"No broker answered at .* within 0\.2 s"):
        async with broker.connect(free_endpoint, "Lonely", connect_timeout=0.2):
            pass


@pytest.mark.asyncio
async def test_exception_raised_inside_connect_block_propagates_unwrapped(thread_broker: broker.Broker) -> None:
    with pytest.raises(KeyError, match="mine"):
        async with broker.connect(thread_broker.endpoint, "Raiser"):
            raise KeyError("mine")


@pytest.mark.asyncio
async def test_in_process_provider_and_caller_share_one_broker(thread_broker: broker.Broker) -> None:
    async with (
        broker.connect(thread_broker.endpoint, "Prov") as prov_pi,
        broker.connect(thread_broker.endpoint, "Caller") as caller_pi,
    ):

        async def shout(text: str) -> str:
            return f"{text.upper()} from {broker.current_caller()}"

        prov_pi.get_ipc_provider("Prov.Shout", params=(str,), returns=str).register_func(shout)
        shout_gate = caller_pi.get_ipc_subscriber("Prov.Shout")
        with anyio.fail_after(WAIT):
            await shout_gate.wait_ready()
            assert await shout_gate.invoke_func("hi") == "HI from Caller"
        prov_pi.get_ipc_provider("Prov.Shout").unregister_func()
        with anyio.fail_after(WAIT):
            await caller_pi.wait_until(lambda: not shout_gate.has_function())
        with pytest.raises(broker.IpcNotReadyError, match="IPC method Prov.Shout was not registered yet"):
            await shout_gate.invoke_func("hi")


@pytest.mark.asyncio
async def test_duplicate_welcome_neither_fails_calls_nor_restores_twice(fake_broker: zmq.asyncio.Socket) -> None:
    """A slow broker answers two Hellos with two Welcomes; the second must change nothing."""
    endpoint = fake_broker.getsockopt_string(zmq.LAST_ENDPOINT)
    subscribes: list[str] = []

    async def next_message(want: type[w.ToBroker]) -> tuple[bytes, w.ToBroker]:
        while True:
            identity, header = await fake_broker.recv_multipart()
            msg = w.decode_to_broker(header)
            if isinstance(msg, w.Subscribe):
                subscribes.append(msg.gate)
            if isinstance(msg, w.Ping):
                await fake_broker.send_multipart([identity, w.encode(w.Pong(broker="fake"))])
            if isinstance(msg, want):
                return identity, msg

    welcome = w.encode(w.Welcome(name="Dup", broker="fake", heartbeat=0.5, timeout=2.0, max_payload=1 << 20))

    async def script() -> None:
        await next_message(w.Hello)
        identity, _ = await next_message(w.Hello)  # it asked twice: the broker was slow
        await fake_broker.send_multipart([identity, welcome])
        _, call = await next_message(w.Call)
        assert isinstance(call, w.Call)
        await fake_broker.send_multipart([identity, welcome])  # the answer to the second Hello
        await fake_broker.send_multipart([identity, w.encode(w.Result(id=call.id, payload=b'"ok"'))])
        await next_message(w.Snapshot)  # everything the peer sent after the 2nd Welcome came before this
        table = w.GateTable(gates=(), peers=("Dup",), seq=0)
        await fake_broker.send_multipart([identity, w.encode(table)])

    with anyio.fail_after(WAIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(script)
            async with broker.connect(endpoint, "Dup") as pi:
                pi.get_ipc_subscriber("Fake.News").subscribe(print)
                assert await pi.get_ipc_subscriber("Fake.Echo").invoke_func("hi") == "ok"
                await pi.list_gates()
                assert pi.connected
    assert subscribes == ["Fake.News"]
