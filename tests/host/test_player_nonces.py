"""The player's nonces are per caller (B7, B8): a plugin that asks for many never spends the
player's, and a nonce serves only the process that asked for it. Broker and host are processes."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

import broker
from gates.contract import encode_json
from gates.player import PLAYER_GATE, PLAYER_HELLO_GATE, ListPlugins, PlayerAuth, new_nonce, player_mac
from gates.testing import XivMcpSystem

from ._system import WAIT
from .test_gates_contract import ONLY_THE_PLAYER

pytestmark = pytest.mark.asyncio

COMMAND = encode_json(ListPlugins())


async def hello(pi: broker.PluginInterface) -> str:
    """A nonce `pi` asked XivMcp.PlayerHello for."""
    reply = json.loads(await pi.get_ipc_subscriber(PLAYER_HELLO_GATE).invoke_func(new_nonce()))
    assert reply["ok"] is True, reply
    nonce: str = reply["nonce"]
    return nonce


async def command(pi: broker.PluginInterface, key: str, nonce: str, *, mac_for: str | None = None) -> dict[str, Any]:
    """`ListPlugins` sent by `pi` with `nonce`, its MAC made for `mac_for` (default: `pi` itself)."""
    mac = player_mac(key, nonce, mac_for or pi.name, COMMAND)
    auth = encode_json(PlayerAuth(nonce=nonce, mac=mac))
    reply: dict[str, Any] = json.loads(await pi.get_ipc_subscriber(PLAYER_GATE).invoke_func(auth, COMMAND))
    return reply


async def test_b7_300_player_hellos_from_a_plugin_leave_the_players_nonce_good(system: XivMcpSystem) -> None:
    # SPEC: B7, B8
    key = system.player_key()
    async with (
        broker.connect(system.endpoint, "XivMcpCliPlayer") as player,
        broker.connect(system.endpoint, "Flooder") as plugin,
    ):
        with anyio.fail_after(WAIT * 4):
            mine = await hello(player)
            for _ in range(300):  # between the player's hello and its command: the race, made certain
                await hello(plugin)
            reply = await command(player, key, mine)
    assert reply["ok"] is True, reply


async def test_b8_a_nonce_serves_only_the_process_that_asked_for_it(system: XivMcpSystem) -> None:
    # SPEC: B8
    key = system.player_key()
    async with broker.connect(system.endpoint, "Asker") as asker, broker.connect(system.endpoint, "Taker") as taker:
        with anyio.fail_after(WAIT):
            nonce = await hello(asker)
            for mac_for in (taker.name, asker.name):  # a MAC for the sender, or for the asker
                reply = await command(taker, key, nonce, mac_for=mac_for)
                assert reply["ok"] is False and reply["error"].startswith(ONLY_THE_PLAYER), reply
            assert (await command(asker, key, nonce))["ok"] is True  # still the asker's, and good
