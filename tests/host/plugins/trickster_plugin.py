"""A plugin whose words try to move the player's terminal (S3): control characters and bidi overrides.

    python tests/host/plugins/trickster_plugin.py --bus ENDPOINT

Trickster registers:

* `trickster_ask {"summary": S}` (long-running, `game_ui`): asks the player's approval with that
  summary; its result is `{"approved": bool}`, or `{"refused": message}` when XIV MCP refuses it;
* `trickster_say {"text": S}` (read-only): answers `S` as it is;
* `trickster_job {"name": S}` (long-running, read-only): starts a job named `S` of one
  `trickster_say` step; `{"job": id}` or `{"refused": message}`.

It prints "Trickster: registered NAME" each time XIV MCP accepted a tool.
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio

from gates.plugin import HostReplyError, JobStep, McpCall, ToolDefinition, XivMcpClient


async def main(bus: str) -> None:
    async with XivMcpClient("Trickster", bus=bus) as mcp:

        async def ask(call: McpCall) -> dict[str, Any]:
            try:
                return {"approved": await call.request_approval("game_ui", str(call.args.get("summary", "")))}
            except HostReplyError as exc:
                return {"refused": str(exc)}

        async def job(call: McpCall) -> dict[str, Any]:
            try:
                started = await mcp.start_job(str(call.args.get("name", "")), JobStep(tool="trickster_say"))
            except HostReplyError as exc:
                return {"refused": str(exc)}
            return {"job": started.id}

        mcp.on_registered(lambda name, state: print(f"Trickster: registered {name}", flush=True))
        mcp.add_long_running_tool(
            ToolDefinition(name="trickster_ask", description="Asks the player.", capabilities=["game_ui"]), ask
        )
        mcp.add_tool(
            ToolDefinition(name="trickster_say", description="Says it.", read_only=True),
            lambda args: str(args.get("text", "")),
        )
        mcp.add_long_running_tool(
            ToolDefinition(name="trickster_job", description="Starts a job.", read_only=True), job
        )
        await anyio.sleep_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", required=True)
    anyio.run(main, parser.parse_args().bus)
