"""A plugin whose every text is HTML, to show the console escapes it: `python html_plugin.py --bus EP`.

Its display name, version, tool descriptions and the summary of the approval it asks mid-call
are `<script>` and `<img onerror>` markup; the console must show them as text (S3). Prints
"registered" once XIV MCP took its tools.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Final

import anyio
import msgspec

from gates.plugin import McpCall, McpToolError, Plugin

SCRIPT: Final = "<script>alert(1)</script>"
IMAGE: Final = "<img src=x onerror=alert(1)>"

plugin = Plugin("HtmlPlugin", display_name=f"Html {SCRIPT} {IMAGE}", version="1.0.0")


class Done(msgspec.Struct):
    approved: bool


@plugin.long_running_tool(capabilities=["spend_gil"])
async def htmlplugin_buy(call: McpCall) -> Done:
    """Buys <script>alert(1)</script> with gil <img src=x onerror=alert(1)> after asking the player.

    Args:
        call: The running call (not an argument the assistant sends).

    Returns:
        Whether the player approved (approved).
    """
    approved = await call.request_approval("spend_gil", f"Buy {SCRIPT} for {IMAGE} gil")
    if not approved:
        raise McpToolError("The player declined; nothing was bought.")
    return Done(approved=True)


@plugin.tool(capabilities=["game_ui"])
async def htmlplugin_touch() -> Done:
    """Opens nothing <img src=x onerror=alert(1)>; asks first (its capability is game_ui).

    Returns:
        Always approved (approved), once the call was let through.
    """
    return Done(approved=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", required=True)
    args = parser.parse_args()

    async def serve() -> None:
        async with plugin.connected(args.bus) as client:
            await client.wait_registered()
            print("registered", flush=True)
            await anyio.sleep_forever()

    anyio.run(serve, backend="asyncio", backend_options={"loop_factory": asyncio.SelectorEventLoop})


if __name__ == "__main__":
    main()
