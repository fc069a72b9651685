"""A plugin with many read-only tools, to page tools/list: `python many_tools_plugin.py COUNT --bus EP`.

Prints "registered" once every tool was sent to XIV MCP.
"""

from __future__ import annotations

import argparse
import asyncio

import anyio

from gates.plugin import ToolDefinition, XivMcpClient


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int)
    parser.add_argument("--bus", required=True)
    args = parser.parse_args()

    async def serve() -> None:
        async with XivMcpClient("ManyTools", bus=args.bus) as client:
            for i in range(args.count):
                definition = ToolDefinition(
                    name=f"manytools_t{i:03}", description=f"Tool number {i}; changes nothing.", read_only=True
                )
                client.add_tool(definition, lambda a, i=i: {"number": i})
            await client.wait_registered()
            print("registered", flush=True)
            await anyio.sleep_forever()

    anyio.run(serve, backend="asyncio", backend_options={"loop_factory": asyncio.SelectorEventLoop})


if __name__ == "__main__":
    main()
