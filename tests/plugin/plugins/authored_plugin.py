"""A plugin declared from functions, for the end-to-end test:
``python -m tests.plugin.plugins.authored_plugin --bus EP``.

Its tools cover what crosses the processes: an inputSchema and an outputSchema (`authored_set_flag`),
no arguments (`authored_status`, T5), a tool error and another exception (`authored_fail`), and a
long-running tool with a structured result (`authored_count`).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from gates.plugin import McpCall, McpToolError, Plugin

plugin = Plugin("Authored")


class FlagPlaced(msgspec.Struct, rename="camel"):
    zone: str
    x: float
    y: float
    map_opened: bool


class Counted(msgspec.Struct):
    counted: int


@plugin.tool(capabilities=["game_ui"])
def authored_set_flag(
    x: Annotated[float, Meta(ge=1, le=42)], y: float, zone: str = "Kozama'uka", open_map: bool = True
) -> FlagPlaced:
    """Places the flag on the player's map. Only marks the spot: nothing moves.

    Args:
        x: Map X coordinate, as the in-game map shows it (about 1 to 42).
        y: Map Y coordinate.
        zone: Zone name. Default: the zone you are in.
        open_map: Open the map at the flag.
    """
    return FlagPlaced(zone=zone, x=x, y=y, map_opened=open_map)


@plugin.tool(read_only=True)
def authored_status() -> dict[str, str]:
    """Says that Authored is up."""
    return {"status": "up"}


@plugin.tool(read_only=True)
def authored_fail(how: str) -> None:
    """Fails: with a tool error when `how` is "tool", with a ZeroDivisionError otherwise.

    Args:
        how: "tool" or anything else.
    """
    if how == "tool":
        raise McpToolError("Not at a summoning bell. Use navigate_to with destination summoning_bell first.")
    print(1 / 0)


@plugin.long_running_tool(read_only=True)
async def authored_count(call: McpCall, to: Annotated[int, Meta(ge=1, le=10)] = 3) -> Counted:
    """Counts to `to`, reporting each number as progress.

    Args:
        to: Where to stop.
    """
    for number in range(1, to + 1):
        call.progress(str(number))
    return Counted(counted=to)


if __name__ == "__main__":
    plugin.run()
