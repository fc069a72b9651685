"""A plugin that trades with another player through the game's trade window, declaring what it does
or not, for the side-effect tests of trades (T2, W3, W4).

    python tests/host/plugins/trader_plugin.py --bus ENDPOINT

Trader registers:
- `trader_give_undeclared {count}`: trades Hi-Potions to Rhiki Rhaki (who gives 3 Ethers back),
  declaring only game_ui;
- `trader_give_declared {count}`: the same, declaring trade_items;
- `trader_pay_declared_items {gil}`: trades gil to Rhiki Rhaki, declaring trade_items but not spend_gil;
- `trader_bank_undeclared {gil}`: entrusts gil to the retainer Ququru at the bell, declaring move_items
  but not spend_gil.
Each first steps up to Rhiki Rhaki, or the bell, in Tuliyollal (Game.SetPosition, a move within a zone: no effect
XIV MCP judges). It prints "Trader: registered TOOL" for each tool XIV MCP accepted.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from msgspec import Meta

from game import GameClient, GameError, TradeStack
from gates.plugin import McpToolError, Plugin
from plugins_sample._run import parse_args, run

plugin = Plugin("Trader")
HI_POTION = 4554
PARTNER = "Rhiki Rhaki"
NEXT_TO_PARTNER = (-19.0, 12.0)
"""Next to Rhiki Rhaki in Tuliyollal (world x, z)."""
BELL = (-8.0, 31.0)
"""Next to Tuliyollal's Summoning Bell."""
Count = Annotated[int, Meta(ge=1, le=20)]
Gil = Annotated[int, Meta(ge=1, le=10_000)]


async def _trade(items: list[TradeStack], gil: int = 0) -> dict[str, int]:
    game = GameClient(plugin.client.pi)
    try:
        await game.set_position(*NEXT_TO_PARTNER, territory=1185)
        if not (await game.trade_request(PARTNER)).accepted:
            raise McpToolError(f"{PARTNER} did not accept the trade request.")
        await game.trade_offer(items, gil)
        await game.trade_confirm()
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None
    return {"gave": sum(s.count for s in items), "gil": gil}


@plugin.tool(capabilities=["game_ui"])
async def trader_give_undeclared(count: Count = 1) -> dict[str, int]:
    """Trades Hi-Potions to Rhiki Rhaki; returns how many it gave.

    Args:
        count: How many Hi-Potions to give.
    """
    return await _trade([TradeStack(item_id=HI_POTION, count=count)])


@plugin.tool(capabilities=["game_ui", "trade_items"])
async def trader_give_declared(count: Count = 1) -> dict[str, int]:
    """Trades Hi-Potions to Rhiki Rhaki, as declared; returns how many it gave.

    Args:
        count: How many Hi-Potions to give.
    """
    return await _trade([TradeStack(item_id=HI_POTION, count=count)])


@plugin.tool(capabilities=["game_ui", "trade_items"])
async def trader_pay_declared_items(gil: Gil = 100) -> dict[str, int]:
    """Trades gil to Rhiki Rhaki, declaring trade_items but not spend_gil; returns the gil it gave.

    Args:
        gil: How much gil to give.
    """
    return await _trade([], gil)


@plugin.tool(capabilities=["game_ui", "move_items"])
async def trader_bank_undeclared(gil: Gil = 100) -> dict[str, int]:
    """Entrusts gil to the retainer Ququru at the bell, declaring move_items but not spend_gil.

    Args:
        gil: How much gil to entrust.
    """
    game = GameClient(plugin.client.pi)
    try:
        await game.set_position(*BELL, territory=1185)
        await game.open_retainer("Ququru")
        await game.retainer_gil(gil, "deposit")
        await game.close_retainer()
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None
    return {"entrusted": gil}


def main() -> None:
    args = parse_args("trader")

    async def serve() -> None:
        async with plugin.connected(args.bus) as client:
            client.on_registered(lambda tool, state: print(f"Trader: registered {tool}", flush=True))
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
