"""The bus across real processes: a broker subprocess, plugin subprocesses, and the test's own peer.

The provider process "Prov" (tests/bus/_peer_proc.py) serves Prov.Echo, Prov.Add, Prov.Maybe,
Prov.Caller, Prov.Boom, Prov.Slow, Prov.Announce, Prov.SubCount and the action Prov.Log; the
test's own peer connects as "Tst".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest

import broker

if TYPE_CHECKING:
    from tests.conftest import BrokerProcess, PeerProcess, Spawn

pytestmark = pytest.mark.asyncio

WAIT = 5.0


async def test_call_reaches_provider_process_and_returns_its_reply(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("hello") == "hello"
            assert await pi.get_ipc_subscriber("Prov.Add").invoke_func(2, 40) == 42


async def test_action_runs_in_provider_process(broker_proc: BrokerProcess, ready_provider: PeerProcess) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        log = pi.get_ipc_subscriber("Prov.Log")
        assert log.has_action() and not log.has_function()
        with anyio.fail_after(WAIT):
            await log.invoke_action("written")
        assert await ready_provider.expect("action ", WAIT) == "action written"


async def test_message_fans_out_to_three_subscriber_processes_and_no_other(
    broker_proc: BrokerProcess, spawn_peer: Spawn
) -> None:
    subs = [await spawn_peer("subscriber", f"Sub{i}", "Tst.News") for i in (1, 2, 3)]
    bystander = await spawn_peer("subscriber", "Bystander", "Tst.Other")
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        for proc in [*subs, bystander]:
            await proc.expect("ready")
        news = pi.get_ipc_provider("Tst.News", params=(str, int))
        other = pi.get_ipc_provider("Tst.Other", params=(str,))
        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: news.subscription_count == 3 and other.subscription_count == 1)
        news.send_message("hello", 1)
        other.send_message("barrier")  # sent after News: reaches the bystander after News would have
        for proc in subs:
            assert await proc.expect("msg", WAIT) == 'msg Tst.News Tst ["hello", 1]'
        assert await bystander.expect("msg", WAIT) == 'msg Tst.Other Tst ["barrier"]'


async def test_subscribe_before_provide_gets_messages_and_calls_once_provider_starts(
    broker_proc: BrokerProcess, spawn_peer: Spawn
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        got: list[tuple[str, tuple[object, ...]]] = []
        arrived = anyio.Event()

        def on_news(*args: object) -> None:
            got.append((broker.current_caller(), args))
            arrived.set()

        pi.get_ipc_subscriber("Late.News").subscribe(on_news)
        echo = pi.get_ipc_subscriber("Late.Echo")
        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: (g := pi.gate("Late.News")) is not None and "Tst" in g.subscribers)
        assert not echo.has_function()
        with pytest.raises(broker.IpcNotReadyError):
            await echo.invoke_func("early")

        late = await spawn_peer("provider", "Late", "--announce", "first news")
        with anyio.fail_after(WAIT):
            await echo.wait_ready()
            assert await echo.invoke_func("now") == "now"
            await arrived.wait()
        await late.expect("announced")
        assert got == [("Late", ("first news",))]


async def test_invoke_of_unregistered_gate_raises_not_ready(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            with pytest.raises(broker.IpcNotReadyError) as func_err:
                await pi.get_ipc_subscriber("Prov.Nope").invoke_func()
            with pytest.raises(broker.IpcNotReadyError) as action_err:
                await pi.get_ipc_subscriber("Prov.Echo").invoke_action("x")
    assert str(func_err.value) == "IPC method Prov.Nope was not registered yet."
    assert str(action_err.value) == "IPC action Prov.Echo was not registered yet."


async def test_wrong_argument_count_raises_length_mismatch(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT), pytest.raises(broker.IpcLengthMismatchError) as err:
            await pi.get_ipc_subscriber("Prov.Add").invoke_func(1)
    assert str(err.value) == "Prov.Add takes 2 arguments (integer, integer), but was called with 1."


async def test_wrong_argument_type_raises_type_mismatch(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT), pytest.raises(broker.IpcTypeMismatchError) as err:
            await pi.get_ipc_subscriber("Prov.Add").invoke_func(1, "two")
    assert str(err.value) == "Argument 1 of Prov.Add must be a integer, got string 'two'."


async def test_null_argument_raises_value_null_naming_gate_and_index(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            with pytest.raises(broker.IpcValueNullError) as err:
                await pi.get_ipc_subscriber("Prov.Echo").invoke_func(None)
            # A parameter declared `str | None` takes null.
            assert await pi.get_ipc_subscriber("Prov.Maybe").invoke_func(None) == "null"
    assert str(err.value) == "Argument 0 of Prov.Echo is null, but it must be a string."


async def test_handler_exception_reaches_caller_and_provider_keeps_serving(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            with pytest.raises(broker.IpcHandlerError) as err:
                await pi.get_ipc_subscriber("Prov.Boom").invoke_func("the flux is low")
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("still here") == "still here"
    assert err.value.type_name == "ValueError"
    assert err.value.detail == "the flux is low"
    assert str(err.value) == "ValueError: the flux is low"
    assert ready_provider.returncode is None


async def test_current_caller_in_provider_handler_is_callers_internal_name(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Caller").invoke_func() == "Tst"
    other = await spawn_peer("caller", "OtherPlugin", "Prov.Caller")
    assert await other.expect("result") == 'result "OtherPlugin"'


async def test_provider_knows_its_subscription_count(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    sub = await spawn_peer("subscriber", "Sub1", "Prov.News")
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        got: list[tuple[str, object]] = []
        news = pi.get_ipc_subscriber("Prov.News")
        news.subscribe(lambda text: got.append(("first", text)))
        news.subscribe(lambda text: got.append(("second", text)))
        await sub.expect("ready")
        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: (g := pi.gate("Prov.News")) is not None and g.subscriptions == 3)
            assert await pi.get_ipc_subscriber("Prov.SubCount").invoke_func() == 3
            assert await pi.get_ipc_subscriber("Prov.Announce").invoke_func("counted") == 3
            await pi.wait_until(lambda: len(got) == 2)
        assert sorted(got) == [("first", "counted"), ("second", "counted")]
        assert await sub.expect("msg", WAIT) == 'msg Prov.News Prov ["counted"]'
    # Tst's connection closed: its two subscriptions are gone.
    with anyio.fail_after(WAIT):
        async with broker.connect(broker_proc.endpoint, "Tst2") as pi:
            await pi.wait_until(lambda: (g := pi.gate("Prov.News")) is not None and g.subscriptions == 1)
            assert await pi.get_ipc_subscriber("Prov.SubCount").invoke_func() == 1


async def test_get_ipc_provider_of_foreign_prefix_raises_refused(broker_proc: BrokerProcess) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with pytest.raises(broker.IpcRefusedError) as err:
            pi.get_ipc_provider("XivMcp.RegisterTool", params=(str,), returns=str)
        with pytest.raises(broker.IpcRefusedError, match="has characters the bus does not carry"):
            pi.get_ipc_subscriber("Bad Gate")
    assert "Tst may not provide 'XivMcp.RegisterTool'" in str(err.value)
    assert "'Tst.XivMcp.Invoke'" in str(err.value)


async def test_second_live_peer_with_same_internal_name_is_refused(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    with anyio.fail_after(WAIT), pytest.raises(broker.IpcRefusedError) as err:
        async with broker.connect(broker_proc.endpoint, "Prov"):
            pass
    assert str(err.value).startswith(
        "The InternalName 'Prov' is already connected from another process, which is alive (last heard "
    )
    assert "Each process needs its own name" in str(err.value)
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            assert await pi.get_ipc_subscriber("Prov.Echo").invoke_func("unharmed") == "unharmed"


async def test_list_gates_shows_signatures_and_peers(broker_proc: BrokerProcess, ready_provider: PeerProcess) -> None:
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            gates = {g.name: g for g in await pi.list_gates()}
        assert pi.peers == {"Prov", "Tst"}
    assert gates["Prov.Add"].func == broker.SlotInfo(provider="Prov", params=("integer", "integer"), returns="integer")
    assert gates["Prov.Maybe"].func == broker.SlotInfo(provider="Prov", params=("string?",), returns="string")
    assert gates["Prov.Log"].action == broker.SlotInfo(provider="Prov", params=("string",), returns=None)
    assert gates["Prov.Log"].func is None
