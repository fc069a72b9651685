"""Restock: a plugin author's plugin, written with the decorator API, acting on the simulated game.

    python examples/my_plugin.py --bus tcp://127.0.0.1:37520

Its tools, each a plain function (the name, description and schema come from it):
- `restock_status`: the gil and the Hi-Potions the character holds (read-only);
- `restock_buy {count}`: buys Hi-Potions from a vendor with gil; declares spend_gil, which is
  what XIV MCP sees it do (the potions gained never count as an effect);
- `restock_prices`: what a Hi-Potion costs and sells for (read-only).

The tools act on the game through `game.GameClient` over the plugin's own bus connection
(`plugin.client`, there while `serve` runs), so this plugin runs as a script or a module; it
prints "Restock: registered N tools" once XIV MCP has every tool. `examples/test_my_plugin.py`
tests it.
"""

from __future__ import annotations

import argparse
from typing import Annotated

import anyio
import msgspec
from msgspec import Meta

from game import GameClient, GameError
from gates.plugin import McpToolError, Plugin

NAME = "Restock"
HI_POTION = 4554

plugin = Plugin(NAME)


def _game() -> GameClient:
    """The simulated game, over the plugin's own bus connection."""
    return GameClient(plugin.client.pi)


class Status(msgspec.Struct, rename="camel"):
    """The character's gil and Hi-Potions."""

    gil: int
    hi_potions: int


class Bought(msgspec.Struct, rename="camel"):
    """What a purchase did."""

    bought: int
    gil_spent: int
    gil_left: int


class Prices(msgspec.Struct, rename="camel"):
    buy: int
    sell: int


async def _status(game: GameClient) -> Status:
    inventory = await game.inventory()
    held = sum(item.count for item in inventory.items if item.item_id == HI_POTION)
    return Status(gil=(await game.currencies()).gil, hi_potions=held)


@plugin.tool(read_only=True)
async def restock_status() -> Status:
    """The character's gil and how many Hi-Potions it holds."""
    return await _status(_game())


@plugin.tool(read_only=True)
async def restock_prices() -> Prices:
    """What one Hi-Potion costs at a vendor, and what a vendor pays for one."""
    items = await _game().items()
    potion = next(item for item in items if item.item_id == HI_POTION)
    return Prices(buy=potion.price, sell=potion.sell_price)


@plugin.tool(capabilities=["spend_gil"])
async def restock_buy(count: Annotated[int, Meta(ge=1, le=99)] = 3) -> Bought:
    """Buys Hi-Potions from a vendor with gil.

    Args:
        count: How many Hi-Potions to buy (1 to 99). Default 3.
    """
    game = _game()
    before = await _status(game)
    try:
        await game.buy(HI_POTION, count)
    except GameError as exc:  # logged out, too little gil: the game says what, the assistant reads it
        raise McpToolError(f"Nothing was bought: {exc}") from None
    after = await _status(game)
    return Bought(bought=count, gil_spent=before.gil - after.gil, gil_left=after.gil)


async def serve(bus: str) -> None:
    """Serve the tools on `bus` until stopped, with the game reachable by them."""
    async with plugin.connected(bus) as client:
        await client.wait_registered()
        print(f"{NAME}: registered {len(plugin.definitions)} tools", flush=True)
        await anyio.sleep_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=f"{NAME}: restocks Hi-Potions with gil, through XIV MCP.")
    parser.add_argument("--bus", required=True, help="the bus endpoint of XIV MCP's system")
    bus = parser.parse_args().bus
    try:
        anyio.run(serve, bus)
    except KeyboardInterrupt:  # Ctrl-C (and the test kit's stop): leave quietly
        pass


if __name__ == "__main__":
    main()
