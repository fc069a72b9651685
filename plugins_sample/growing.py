"""GrowingPlugin: registers more after start, to show what re-consent looks like.

    python -m plugins_sample.growing --bus tcp://127.0.0.1:37520 [--grow-after SECONDS]

At start it registers `growing_look` (read-only). It adds `growing_act` (with the `game_ui`
capability) when any of these happens: the `GrowingPlugin.Grow` action is invoked
(`xivmcp gate call GrowingPlugin.Grow --action`), a line "grow" arrives on standard input,
or `--grow-after` seconds have passed. A grown registration pauses the plugin until the
player consents again (`xivmcp consent GrowingPlugin`); this is why real plugins register
every tool at start.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from gates.plugin import ToolDefinition, XivMcpClient

from ._run import parse_args, run, say

NAME = "GrowingPlugin"


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grow-after", type=float, default=None, help="grow after this many seconds")


def main() -> None:
    args = parse_args("growing", _extra)

    async def serve() -> None:
        async with XivMcpClient(NAME, bus=args.bus) as client, anyio.create_task_group() as tg:
            client.on_registered(lambda tool, state: say(f"{NAME}: registered {tool} ({state})"))
            grown = anyio.Event()

            def grow(*_: object) -> None:
                if not grown.is_set():
                    grown.set()
                    client.add_tool(
                        ToolDefinition(
                            name="growing_act",
                            description="Clicks through a game window. Added after start.",
                            capabilities=["game_ui"],
                        ),
                        lambda a: {"clicked": True},
                    )
                    say(f"{NAME}: grew by growing_act")

            def look(a: dict[str, Any]) -> dict[str, Any]:
                return {"grown": grown.is_set()}

            client.add_tool(
                ToolDefinition(name="growing_look", description="Says whether the plugin grew.", read_only=True),
                look,
            )
            client.pi.get_ipc_provider(f"{NAME}.Grow").register_action(grow)

            async def read_stdin() -> None:
                async for line in _lines():
                    if line.strip() == "grow":
                        grow()

            async def grow_later(seconds: float) -> None:
                await anyio.sleep(seconds)
                grow()

            if args.grow_after is not None:
                tg.start_soon(grow_later, args.grow_after)
            if not sys.stdin.isatty():
                tg.start_soon(read_stdin)
            say(f"{NAME}: connected to {client.pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


async def _lines() -> Any:
    while True:
        line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        if not line:
            return
        yield line


if __name__ == "__main__":
    main()
