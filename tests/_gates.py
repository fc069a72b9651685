"""Calling a gate from a test's own peer, and the one check of a refusal every room's tests use.

A gate that refuses answers exactly `{"ok": false, "error": "…"}` (G2), whoever provides it:
XIV MCP's gates, a plugin's, the game's (whose errors begin with the gate's name).
"""

from __future__ import annotations

import json
from typing import Any

import anyio

import broker

WAIT = 10.0


def full_name(gate: str) -> str:
    """A bare name ("StartJob") is XIV MCP's gate (`XivMcp.StartJob`); a dotted one is as it is."""
    return gate if "." in gate else f"XivMcp.{gate}"


async def gate_reply(pi: broker.PluginInterface, gate: str, *args: object) -> Any:
    """Call `gate` and decode its JSON reply (a reply that is not a string, as ApiVersion's, as it is)."""
    with anyio.fail_after(WAIT):
        reply = await pi.get_ipc_subscriber(full_name(gate)).invoke_func(*args)
    if isinstance(reply, str):
        decoded = json.loads(reply)
        assert isinstance(decoded, dict), reply
        return decoded
    return reply


async def refused(pi: broker.PluginInterface, gate: str, *args: object) -> str:
    """The error of a gate that must refuse: its reply is `{"ok": false, "error": "…"}` and nothing else."""
    reply = await gate_reply(pi, gate, *args)
    assert isinstance(reply, dict) and reply.get("ok") is False and set(reply) == {"ok", "error"}, reply
    error = reply["error"]
    assert isinstance(error, str) and error, reply
    if full_name(gate).startswith("Game."):
        assert error.startswith(f"{gate}: "), error  # the game names the gate that refused
    return error
