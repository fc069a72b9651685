"""`xivmcp gate list|call|watch` against a real broker and a real provider process."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import anyio
import pytest

import broker

if TYPE_CHECKING:
    from tests.conftest import BrokerProcess, PeerProcess, Spawn

pytestmark = pytest.mark.asyncio

WAIT = 15.0  # each command is a fresh interpreter


async def xivmcp(broker_proc: BrokerProcess, *args: str) -> tuple[int, str, str]:
    argv = [sys.executable, "-m", "xivmcp", *args, "--bus", broker_proc.endpoint]
    with anyio.fail_after(WAIT):
        done = await anyio.run_process(argv, check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


async def test_gate_list_shows_each_gate_with_its_signature_and_subscribers(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn_peer: Spawn
) -> None:
    sub = await spawn_peer("subscriber", "Sub1", "Prov.News")
    await sub.expect("ready")
    code, out, err = await xivmcp(broker_proc, "gate", "list")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "Prov.Add: func(integer, integer) -> integer by Prov" in lines
    assert "Prov.Maybe: func(string?) -> string by Prov" in lines
    assert "Prov.Log: action(string) by Prov" in lines
    assert "Prov.News: no provider; subscribers: Sub1" in lines

    code, out, _ = await xivmcp(broker_proc, "gate", "list", "--json")
    assert code == 0
    gates = {g["name"]: g for g in json.loads(out)}
    assert gates["Prov.Echo"]["func"] == {"provider": "Prov", "params": ["string"], "returns": "string"}
    assert gates["Prov.News"]["subscribers"] == ["Sub1"]


async def test_gate_list_on_an_empty_bus_says_so(broker_proc: BrokerProcess) -> None:
    code, out, _ = await xivmcp(broker_proc, "gate", "list")
    assert (code, out) == (0, "no gates on the bus\n")


async def test_gate_call_prints_the_reply_and_exits_0(broker_proc: BrokerProcess, ready_provider: PeerProcess) -> None:
    assert await xivmcp(broker_proc, "gate", "call", "Prov.Echo", "hello there") == (0, "hello there\n", "")
    assert await xivmcp(broker_proc, "gate", "call", "Prov.Add", "2", "40") == (0, "42\n", "")
    code, out, _ = await xivmcp(broker_proc, "gate", "call", "Prov.Caller", "--as", "Shell")
    assert (code, out) == (0, "Shell\n")


async def test_s3_gate_call_shows_a_peers_reply_and_error_escaped(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    # SPEC: S3 - the peer chose the text; the terminal must not obey it
    trick = "ok\r\x1b[2K\x9b\u202eall good"
    assert await xivmcp(broker_proc, "gate", "call", "Prov.Echo", trick) == (
        0,
        "ok\\r\\x1b[2K\\x9b\\u202eall good\n",
        "",
    )
    code, _, err = await xivmcp(broker_proc, "gate", "call", "Prov.Boom", trick)
    assert (code, err) == (1, "IpcHandlerError: ValueError: ok\\r\\x1b[2K\\x9b\\u202eall good\n")


async def test_gate_call_of_an_unknown_gate_exits_1_with_the_error(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    code, out, err = await xivmcp(broker_proc, "gate", "call", "Prov.Nope", "x")
    assert (code, out) == (1, "")
    assert err == "IpcNotReadyError: IPC method Prov.Nope was not registered yet.\n"


async def test_gate_call_reports_the_handlers_exception(
    broker_proc: BrokerProcess, ready_provider: PeerProcess
) -> None:
    code, _, err = await xivmcp(broker_proc, "gate", "call", "Prov.Boom", "bad input")
    assert (code, err) == (1, "IpcHandlerError: ValueError: bad input\n")


async def test_gate_call_action_runs_the_action(broker_proc: BrokerProcess, ready_provider: PeerProcess) -> None:
    assert await xivmcp(broker_proc, "gate", "call", "--action", "Prov.Log", "from the shell") == (0, "null\n", "")
    assert await ready_provider.expect("action") == "action from the shell"


async def test_gate_watch_prints_a_message_and_exits_after_count(
    broker_proc: BrokerProcess, ready_provider: PeerProcess, spawn: Spawn
) -> None:
    argv = [sys.executable, "-m", "xivmcp", "gate", "watch", "Prov.News", "--count", "1", "--bus", broker_proc.endpoint]
    watch = await spawn(*argv)
    watcher_name = f"XivMcpCli{watch.pid}"
    async with broker.connect(broker_proc.endpoint, "Tst") as pi:
        with anyio.fail_after(WAIT):
            await pi.wait_until(lambda: (g := pi.gate("Prov.News")) is not None and watcher_name in g.subscribers)
            assert await pi.get_ipc_subscriber("Prov.Announce").invoke_func("watch this") == 1
            assert await watch.readline() == '["watch this"]'
            assert await watch.wait() == 0


async def test_broker_refuses_to_bind_a_non_loopback_address() -> None:
    argv = [sys.executable, "-m", "xivmcp", "broker", "--bus", "tcp://0.0.0.0:5"]
    with anyio.fail_after(WAIT):
        done = await anyio.run_process(argv, check=False)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(
        "Refusing to bind tcp://0.0.0.0:5: a bus without CURVE keys has no authentication"
    )
