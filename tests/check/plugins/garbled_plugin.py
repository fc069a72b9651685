"""Garbled: a plugin for the S3 test of `xivmcp check`, whose tool names and errors hold control characters.

    python tests/check/plugins/garbled_plugin.py --bus tcp://127.0.0.1:PORT

* `garbled\\x1b[2K\\x00\\x0c` is no valid name: the host refuses it, and the report names it.
* `garbled_look` (read-only) lets an exception whose message erases the line reach the assistant.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from gates.plugin import ToolDefinition, XivMcpClient
from plugins_sample._run import parse_args, run

NAME = "Garbled"
BAD_NAME = "garbled\x1b[2K\x00\x0c"


def build(client: XivMcpClient) -> None:
    client.add_tool(ToolDefinition(name=BAD_NAME, description="Returns nothing.", read_only=True), dict)

    def look(args: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("all is fine\r\x1b[2K\x9b")

    client.add_tool(ToolDefinition(name="garbled_look", description="Returns a look.", read_only=True), look)


def main() -> None:
    args = parse_args("garbled")

    async def serve() -> None:
        async with XivMcpClient(NAME, bus=args.bus) as client:
            build(client)
            print(json.dumps({"connected": client.pi.endpoint}), flush=True)
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
