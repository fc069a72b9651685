"""A peer against the router in memory: `PluginInterface` on `_memory.MemoryBroker`, no socket.

The same peer code as over ZeroMQ (only its `Connector` differs), so these pin the peer's parts
working together: a call and its answer, the mirror following the table, messages fanning out.
A fixture makes every ZeroMQ transport fail, so a test that opened a socket would say so."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import anyio
import anyio.lowlevel
import pytest

import broker
from broker import _transport
from broker._memory import MemoryBroker

pytestmark = pytest.mark.asyncio

WAIT = 5.0


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryBroker]:
    def no_socket(*args: object) -> None:
        raise AssertionError("an in-memory test opened a ZeroMQ socket")

    monkeypatch.setattr(_transport, "DealerTransport", no_socket)
    monkeypatch.setattr(_transport, "LivenessBeacon", no_socket)
    yield MemoryBroker()


async def test_a_call_goes_to_the_provider_and_its_answer_comes_back(bus: MemoryBroker) -> None:
    async with bus.connect("Prov") as prov, bus.connect("Caller") as caller:

        def shout(text: str) -> str:
            return f"{text.upper()} for {broker.current_caller()}"

        async def whisper(text: str) -> str:
            await anyio.lowlevel.checkpoint()
            return text.lower()

        prov.get_ipc_provider("Prov.Shout", params=(str,), returns=str).register_func(shout)
        prov.get_ipc_provider("Prov.Whisper", params=(str,), returns=str).register_func(whisper)
        shout_gate, whisper_gate = caller.get_ipc_subscriber("Prov.Shout"), caller.get_ipc_subscriber("Prov.Whisper")
        with anyio.fail_after(WAIT):
            await whisper_gate.wait_ready()
            assert await shout_gate.invoke_func("hi") == "HI for Caller"
            assert await whisper_gate.invoke_func("HUSH") == "hush"
            with pytest.raises(broker.IpcTypeMismatchError, match="Argument 0 of Prov.Shout must be a string"):
                await shout_gate.invoke_func(7)
            with pytest.raises(broker.IpcNotReadyError, match="IPC method Prov.Nothing was not registered yet"):
                await caller.get_ipc_subscriber("Prov.Nothing").invoke_func()
            stats = await caller.broker_stats()
    assert stats.broker == bus.router.incarnation and stats.pending_calls == 0 and stats.peers == 2


async def test_a_handler_error_reaches_the_caller_with_its_type_name(bus: MemoryBroker) -> None:
    async with bus.connect("Prov") as prov, bus.connect("Caller") as caller:

        def broken() -> str:
            raise ValueError("no such zone")

        prov.get_ipc_provider("Prov.Broken", returns=str).register_func(broken)
        gate = caller.get_ipc_subscriber("Prov.Broken")
        with anyio.fail_after(WAIT):
            await gate.wait_ready()
            with pytest.raises(broker.IpcHandlerError, match="ValueError: no such zone") as caught:
                await gate.invoke_func()
    assert caught.value.type_name == "ValueError"


async def test_provide_and_withdraw_reach_every_mirror(bus: MemoryBroker) -> None:
    async with bus.connect("Prov") as prov, bus.connect("Watcher") as watcher:
        provider = prov.get_ipc_provider("Prov.Echo", params=(str, int), returns=str)
        gate = watcher.get_ipc_subscriber("Prov.Echo")
        assert not gate.has_function()
        with anyio.fail_after(WAIT):
            provider.register_func(lambda text, times: text * times)
            await gate.wait_ready()
            info = watcher.gate("Prov.Echo")
            assert info is not None and info.func == broker.SlotInfo("Prov", ("string", "integer"), "string")
            assert info.action is None and not gate.has_action()
            provider.register_action(lambda text, times: None)
            await watcher.wait_until(gate.has_action)
            provider.unregister_func()
            await watcher.wait_until(lambda: not gate.has_function())
            assert gate.has_action()
            provider.unregister_action()
            await watcher.wait_until(lambda: watcher.gate("Prov.Echo") is None)
            assert [g.name for g in await prov.list_gates()] == []


async def test_a_message_reaches_every_subscriber_and_no_one_else(bus: MemoryBroker) -> None:
    async with bus.connect("Host") as host, bus.connect("A") as a, bus.connect("B") as b, bus.connect("C") as c:
        heard: list[tuple[object, ...]] = []
        everyone_heard = anyio.Event()

        def callback(who: str) -> Callable[..., None]:
            def on_ready(*args: object) -> None:
                heard.append((who, *args, broker.current_caller()))
                if len(heard) == 3:
                    everyone_heard.set()

            return on_ready

        a.get_ipc_subscriber("Host.Ready").subscribe(callback("A"))
        b.get_ipc_subscriber("Host.Ready").subscribe(callback("B1"))
        b.get_ipc_subscriber("Host.Ready").subscribe(callback("B2"))  # two callbacks in one process
        on_c = callback("C")
        c.get_ipc_subscriber("Host.Ready").subscribe(on_c)
        c.get_ipc_subscriber("Host.Ready").unsubscribe(on_c)  # C has none left
        ready = host.get_ipc_provider("Host.Ready")
        with anyio.fail_after(WAIT):
            for peer in (a, b, c, host):
                await peer.flush()  # the broker has every subscription, and the host's mirror too
            assert ready.subscription_count == 3
            ready.send_message(2, "up")
            await everyone_heard.wait()
            await c.flush()  # anything for C would have come before this answer
            await a.flush()
    assert sorted(heard) == [("A", 2, "up", "Host"), ("B1", 2, "up", "Host"), ("B2", 2, "up", "Host")]


async def test_a_provider_that_leaves_fails_the_call_it_was_serving(bus: MemoryBroker) -> None:
    failures: list[broker.IpcError] = []
    started = anyio.Event()

    async def slow() -> str:
        started.set()
        await anyio.sleep_forever()
        return "never"

    async with bus.connect("Caller") as caller:
        changes: list[tuple[str, bool]] = []
        caller.on_peer_change(lambda name, joined, reason: changes.append((name, joined)))
        gate = caller.get_ipc_subscriber("Prov.Slow")

        async def call() -> None:
            try:
                await gate.invoke_func()
            except broker.IpcPeerLeftError as exc:
                failures.append(exc)

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                async with bus.connect("Prov") as prov:
                    prov.get_ipc_provider("Prov.Slow", returns=str).register_func(slow)
                    await gate.wait_ready()
                    tg.start_soon(call)
                    await started.wait()
                # Prov has closed its connection, its handler still running: the call fails.
            await caller.wait_peer_gone("Prov")
            assert (await caller.broker_stats()).pending_calls == 0
    assert [str(e) for e in failures] == ["Prov left the bus during the call to Prov.Slow (Prov disconnected)."]
    assert changes == [("Prov", True), ("Prov", False)] and not gate.has_function()


async def test_s1_a_gate_kept_for_its_callers_refuses_any_other_and_runs_nothing(bus: MemoryBroker) -> None:
    # SPEC: S1 - the refusal comes from the provider's side, before a single argument is decoded
    ran: list[str] = []
    async with bus.connect("Prov") as prov, bus.connect("Host") as host, bus.connect("Evil") as evil:
        prov.get_ipc_provider("Prov.Invoke", params=(str,), returns=str).register_func(
            lambda text: ran.append(f"invoke {text}") or "done", callers=("Host",)
        )
        prov.get_ipc_provider("Prov.Cancel", params=(str,)).register_action(
            lambda text: ran.append(f"cancel {text}"), callers=("Host",)
        )
        with anyio.fail_after(WAIT):
            await evil.get_ipc_subscriber("Prov.Cancel").wait_ready("action")
            with pytest.raises(broker.IpcRefusedError) as refused:
                await evil.get_ipc_subscriber("Prov.Invoke").invoke_func("buy 99")
            assert str(refused.value) == (
                "IPC method Prov.Invoke answers only Host; Evil called it and nothing ran. Its provider keeps "
                "it for Host: call a gate it opens to every process instead."
            )
            with pytest.raises(broker.IpcRefusedError, match="^IPC action Prov.Cancel answers only Host; Evil"):
                await evil.get_ipc_subscriber("Prov.Cancel").invoke_action("c1")
            with pytest.raises(broker.IpcRefusedError, match="answers only Host; Evil called it"):
                await evil.get_ipc_subscriber("Prov.Invoke").invoke_func(7)  # refused before its arguments
            assert ran == []
            assert await host.get_ipc_subscriber("Prov.Invoke").invoke_func("buy 1") == "done"
            await host.get_ipc_subscriber("Prov.Cancel").invoke_action("c1")
    assert ran == ["invoke buy 1", "cancel c1"]


async def test_s1_callers_takes_names_not_one_string(bus: MemoryBroker) -> None:
    # SPEC: S1 - callers="Host" would let "H", "o", "s" and "t" call the gate
    async with bus.connect("Prov") as prov:
        with pytest.raises(TypeError, match=r"callers=\('Host',\), not a str"):
            prov.get_ipc_provider("Prov.Invoke").register_func(lambda: None, callers="Host")
