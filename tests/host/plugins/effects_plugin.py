"""A plugin whose tools change the simulated game, declared or not, for the side-effect tests (T2, W3, W4).

    python tests/host/plugins/effects_plugin.py --bus ENDPOINT --data-dir DATA_DIR

Effects registers:
- `effects_buy_undeclared {count}`: buys Hi-Potions with gil, declaring only game_ui;
- `effects_buy_declared {count}`: the same, declaring spend_gil and move_items;
- `effects_gain {gil}`: adds gil (a gain: never an effect), declaring game_ui. A plugin has no way
  to gain gil alone (Game.Sell gives items away for it), and Game.Set answers only the player key
  (F4): this test plugin is given the key (--data-dir) to stand in for a reward the game hands out;
- `effects_chat_then_refuse`: sends a chat line, then refuses with McpToolError (declares chat_send);
- `effects_refuse`: refuses at once, changing nothing (declares spend_gil);
- `effects_log_in`: logs the character in, declaring game_ui;
- `effects_wait_then_buy {buy}`: long-running; waits until the test calls `Effects.Go`, then buys
  one Hi-Potion undeclared if `buy` is true, else does nothing.
It prints "Effects: registered" each time its tools were sent, and "Effects: waiting" once a
`effects_wait_then_buy` call waits for its Go.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import anyio

from game import GameClient
from gates.plugin import McpCall, McpToolError, ToolDefinition, XivMcpClient

HI_POTION = 4554
_COUNT = {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}}


async def main(bus: str, data_dir: Path) -> None:
    async with XivMcpClient("Effects", bus=bus) as mcp:
        game = GameClient(mcp.pi)
        rewards = GameClient.as_player(mcp.pi, data_dir)  # the game's rewards, which no plugin can give itself
        go = anyio.Event()
        holder = [go]

        async def buy(args: dict[str, Any]) -> dict[str, Any]:
            count = int(args.get("count", 1))
            await game.buy(HI_POTION, count)
            return {"bought": count}

        async def gain(args: dict[str, Any]) -> dict[str, Any]:
            currencies = await game.currencies()
            await rewards.set("gil", currencies.gil + int(args.get("gil", 1000)))
            return {"gained": True}

        async def chat_then_refuse(args: dict[str, Any]) -> Any:
            await game.send_chat("Hello from Effects", "say")
            raise McpToolError("Changed my mind.")

        def refuse(args: dict[str, Any]) -> Any:
            raise McpToolError("Not today.")

        async def log_in(args: dict[str, Any]) -> dict[str, Any]:
            await game.login()
            return {"loggedIn": True}

        async def wait_then_buy(call: McpCall) -> dict[str, Any]:
            print("Effects: waiting", flush=True)
            await holder[0].wait()
            holder[0] = anyio.Event()
            if call.args.get("buy", True):
                await game.buy(HI_POTION, 1)
            return {"done": True}

        mcp.pi.get_ipc_provider("Effects.Go").register_action(lambda: holder[0].set())
        mcp.on_registered(lambda name, state: print(f"Effects: registered {name}", flush=True))
        tool = ToolDefinition
        mcp.add_tool(
            tool(name="effects_buy_undeclared", description="Buys.", input_schema=_COUNT, capabilities=["game_ui"]), buy
        )
        mcp.add_tool(
            tool(
                name="effects_buy_declared",
                description="Buys.",
                input_schema=_COUNT,
                capabilities=["spend_gil", "move_items"],
            ),
            buy,
        )
        mcp.add_tool(tool(name="effects_gain", description="Gains gil.", capabilities=["game_ui"]), gain)
        mcp.add_tool(
            tool(name="effects_chat_then_refuse", description="Chats, then refuses.", capabilities=["chat_send"]),
            chat_then_refuse,
        )
        mcp.add_tool(tool(name="effects_refuse", description="Refuses.", capabilities=["spend_gil"]), refuse)
        mcp.add_tool(tool(name="effects_log_in", description="Logs in.", capabilities=["game_ui"]), log_in)
        mcp.add_long_running_tool(
            tool(name="effects_wait_then_buy", description="Waits, then buys.", capabilities=["game_ui"]),
            wait_then_buy,
        )
        await anyio.sleep_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", required=True)
    parser.add_argument("--data-dir", type=Path, required=True, help="the system's data dir: its player key")
    args = parser.parse_args()
    anyio.run(main, args.bus, args.data_dir)
