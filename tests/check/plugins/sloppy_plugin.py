"""Sloppy: a plugin for the tests of `xivmcp check`, one fault a tool, each of a kind careless.py does not make.

    python tests/check/plugins/sloppy_plugin.py --bus tcp://127.0.0.1:PORT

* `get_position` is the name of one of XIV MCP's own tools (T6); `sloppy_fly` declares a
  capability the catalog does not have (G4): the host refuses both.
* `sloppy_slow_status` is a quick tool that blocks its loop for 0.8 s (run the check with
  ``--quick-limit 0.3``).
* `sloppy_lookup` lets a KeyError reach the assistant, even with valid arguments (T4).
* `sloppy_count` takes a count from 1 to 10 and never checks it (T3).
* `sloppy_chatter` is long-running and sends a progress line of 400 characters (J5); it stops
  on Cancel, as it should.
* `sloppy_wake` registers `sloppy_woken` while it answers: the registration grows after the
  plugin was enabled (T7).
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio

from gates.contract import Gate, encode_json
from gates.plugin import McpCall, ToolDefinition, XivMcpClient
from plugins_sample._run import parse_args, run

NAME = "Sloppy"
WORDS = {"one": 1, "two": 2}


def build(client: XivMcpClient) -> None:
    client.add_tool(ToolDefinition(name="get_position", description="Returns where we are.", read_only=True), dict)
    client.add_tool(
        ToolDefinition(name="sloppy_fly", description="Returns nothing; flies.", capabilities=["fly"]), dict
    )

    def slow_status(args: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.8)  # the fault: the plugin's loop (the game's framework thread) waits meanwhile
        return {"ok": True}

    client.add_tool(
        ToolDefinition(name="sloppy_slow_status", description="Returns Sloppy's status, slowly.", read_only=True),
        slow_status,
    )
    client.add_tool(
        ToolDefinition(
            name="sloppy_lookup",
            description="Returns the number a word stands for.",
            read_only=True,
            input_schema={
                "type": "object",
                "properties": {"word": {"type": "string", "description": "A number in words."}},
                "required": ["word"],
            },
        ),
        lambda args: WORDS[args["word"]],  # the fault: any other word is a KeyError
    )
    client.add_tool(
        ToolDefinition(
            name="sloppy_count",
            description="Returns the count it was given.",
            read_only=True,
            input_schema={
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10, "description": "1 to 10."}},
            },
        ),
        lambda args: {"n": args.get("n", 1)},  # the fault: 0, 11 or "not a number" are taken as well
    )

    async def chatter(call: McpCall) -> dict[str, Any]:
        call.progress("x" * 400)  # the fault: XIV MCP keeps the first 300 characters
        await call.sleep(60)
        return {"done": True}

    client.add_long_running_tool(
        ToolDefinition(
            name="sloppy_chatter", description="Returns after a minute of chatter.", capabilities=["game_ui"]
        ),
        chatter,
    )

    async def wake(args: dict[str, Any]) -> dict[str, Any]:
        woken = ToolDefinition(name="sloppy_woken", description="Returns that it woke.", capabilities=["game_ui"])
        client.add_tool(woken, lambda a: {"woken": True})  # the fault: a tool registered after start
        # Registered before the answer too, so that the check finds the grown registration at once.
        await client.host_call(Gate.REGISTER_TOOL, NAME, encode_json(woken))
        return {"awake": True}

    client.add_tool(ToolDefinition(name="sloppy_wake", description="Returns once awake.", read_only=True), wake)


def main() -> None:
    args = parse_args("sloppy")

    async def serve() -> None:
        async with XivMcpClient(NAME, bus=args.bus) as client:
            build(client)
            print(json.dumps({"connected": client.pi.endpoint}), flush=True)
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
