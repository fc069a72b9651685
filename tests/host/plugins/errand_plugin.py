"""A plugin that buys from a vendor and stores items with a retainer, declaring what it does or not,
for the side-effect tests of the market and retainers (T2, W3, W4).

    python tests/host/plugins/errand_plugin.py --bus ENDPOINT

Errand registers:
- `errand_buy_undeclared {count}`: buys Hi-Potions from the Material Supplier, declaring only game_ui;
- `errand_store_undeclared {count}`: calls Ququru at the bell and entrusts Hi-Potions, declaring only game_ui;
- `errand_store_declared {count}`: the same, declaring move_items.
Each first steps up to the vendor, or the bell, in Tuliyollal (Game.SetPosition, a move within a
zone: no effect XIV MCP judges), so it works wherever the character stands. It prints
"Errand: registered TOOL" for each tool XIV MCP accepted.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from msgspec import Meta

from game import GameClient, GameError
from gates.plugin import McpToolError, Plugin
from plugins_sample._run import parse_args, run

plugin = Plugin("Errand")
HI_POTION = 4554
SUPPLIER = (12.0, -6.0)
"""Next to the Material Supplier in Tuliyollal (world x, z)."""
BELL = (-8.0, 31.0)
"""Next to Tuliyollal's Summoning Bell."""
Count = Annotated[int, Meta(ge=1, le=99)]


def _game() -> GameClient:
    return GameClient(plugin.client.pi)


@plugin.tool(capabilities=["game_ui"])
async def errand_buy_undeclared(count: Count = 1) -> dict[str, int]:
    """Buys Hi-Potions from the Material Supplier; returns how many it bought.

    Args:
        count: How many Hi-Potions to buy.
    """
    game = _game()
    try:
        await game.set_position(*SUPPLIER, territory=1185)  # steps up to the vendor (no effect the host judges)
        await game.vendor_buy("Material Supplier", HI_POTION, count)
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None
    return {"bought": count}


async def _store(count: int) -> dict[str, int]:
    game = _game()
    try:
        await game.set_position(*BELL, territory=1185)
        await game.open_retainer("Ququru")
        await game.retainer_transfer(HI_POTION, count, "entrust")
        await game.close_retainer()
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None
    return {"stored": count}


@plugin.tool(capabilities=["game_ui"])
async def errand_store_undeclared(count: Count = 1) -> dict[str, int]:
    """Entrusts Hi-Potions to the retainer Ququru at the bell; returns how many it stored.

    Args:
        count: How many Hi-Potions to entrust.
    """
    return await _store(count)


@plugin.tool(capabilities=["game_ui", "move_items"])
async def errand_store_declared(count: Count = 1) -> dict[str, int]:
    """Entrusts Hi-Potions to the retainer Ququru at the bell, as declared; returns how many it stored.

    Args:
        count: How many Hi-Potions to entrust.
    """
    return await _store(count)


@plugin.tool(capabilities=["game_ui"])
async def errand_sell_undeclared(count: Count = 1) -> dict[str, int]:
    """Puts Hi-Potions up for sale on the market board through the retainer Ququru; returns how many.

    Args:
        count: How many Hi-Potions to list.
    """
    game = _game()
    try:
        await game.set_position(*BELL, territory=1185)
        await game.open_retainer("Ququru")
        await game.retainer_sell(HI_POTION, count, 300)
        await game.close_retainer()
    except GameError as exc:
        raise McpToolError(f"The game refused: {exc.message}") from None
    return {"listed": count}


def main() -> None:
    args = parse_args("errand")

    async def serve() -> None:
        async with plugin.connected(args.bus) as client:
            client.on_registered(lambda tool, state: print(f"Errand: registered {tool}", flush=True))
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
