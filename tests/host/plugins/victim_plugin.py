"""Victim: a plugin on the kit whose tools say on stdout what they do, for the tests of S1.

    python tests/host/plugins/victim_plugin.py --bus ENDPOINT

`victim_buy {"amount": N}` prints "Victim: bought N" and answers at once; `victim_wait` prints
"Victim: waiting (CALL_ID)", then waits until its call is cancelled and prints
"Victim: cancelled (CALL_ID)". "Victim: registered NAME" is printed for each tool XIV MCP took.
Whatever another process sends to its Invoke or Cancel, none of these lines may come of it.
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio

from gates.plugin import CallCancelledError, McpCall, ToolDefinition, XivMcpClient


def say(text: str) -> None:
    print(text, flush=True)


async def main(bus: str) -> None:
    def buy(args: dict[str, Any]) -> dict[str, Any]:
        say(f"Victim: bought {args.get('amount')}")
        return {"bought": args.get("amount")}

    async def wait(call: McpCall) -> None:
        say(f"Victim: waiting ({call.id})")
        try:
            await call.sleep(24 * 3600)
        except CallCancelledError:
            say(f"Victim: cancelled ({call.id})")
            raise

    async with XivMcpClient("Victim", bus=bus) as mcp:
        mcp.on_registered(lambda name, state: say(f"Victim: registered {name}"))
        mcp.add_tool(ToolDefinition(name="victim_buy", description="Buys.", capabilities=["spend_gil"]), buy)
        mcp.add_long_running_tool(ToolDefinition(name="victim_wait", description="Waits.", read_only=True), wait)
        await anyio.sleep_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", required=True)
    anyio.run(main, parser.parse_args().bus)
