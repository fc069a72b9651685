"""A plugin whose quick tool blocks its event loop, as a blocking HTTP request or `time.sleep` would.

    python tests/host/plugins/slow_plugin.py --bus ENDPOINT

Slowpoke registers `slowpoke_nap {"seconds": N}` (a sync handler that sleeps N seconds on the
loop) and `slowpoke_hello` (read-only, answers at once), and prints "Slowpoke: registered"
each time its tools were sent to XIV MCP.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import anyio

from gates.plugin import ToolDefinition, XivMcpClient


async def main(bus: str) -> None:
    def nap(args: dict[str, Any]) -> dict[str, Any]:
        seconds = float(args.get("seconds", 1))
        time.sleep(seconds)  # blocks the whole event loop, as a careless plugin would
        return {"slept": seconds}

    async with XivMcpClient("Slowpoke", bus=bus) as mcp:
        mcp.on_registered(lambda name, state: print(f"Slowpoke: registered {name}", flush=True))
        mcp.add_tool(ToolDefinition(name="slowpoke_nap", description="Sleeps, blocking.", read_only=True), nap)
        mcp.add_tool(
            ToolDefinition(name="slowpoke_hello", description="Says hello.", read_only=True), lambda _: "hello"
        )
        await anyio.sleep_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", required=True)
    anyio.run(main, parser.parse_args().bus)
