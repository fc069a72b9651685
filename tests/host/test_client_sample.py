"""The C#-shaped sample, `plugins_sample.client_sample`, as a real process on a real host and game: a smoke test.

ClientSample is MyPlugin's tools on `XivMcpClient` (a `ToolDefinition` and an `args` handler per
tool); test_samples.py covers those tools through MyPlugin, which declares them with the decorator
API. Here the port only has to start, register its six tools, and act on the game as itself.
"""

from __future__ import annotations

import pytest

import broker
from game import GameClient

from ._system import XivMcpSystem, player_of

pytestmark = pytest.mark.asyncio

TOOLS = ["status", "set_flag", "follow", "stop", "farm", "restock"]


async def test_client_sample_registers_its_tools_and_acts_on_the_game_as_itself(system: XivMcpSystem) -> None:
    system.start_game("--test-clock")
    plugin = system.start_plugin("plugins_sample.client_sample")
    assert await plugin.expect("ClientSample: registered clientsample_restock") == (
        "ClientSample: registered clientsample_restock (undecided)"
    )
    async with broker.connect(system.endpoint, "TestPeer") as pi:
        player, game = player_of(pi, system.data_dir), GameClient.as_player(pi, system.data_dir)
        assert (await player.enable("ClientSample")).state == "enabled"
        card = await player.plugin("ClientSample")
        assert [t.name for t in card.tools] == [f"clientsample_{tool}" for tool in TOOLS]
        await player.set_modes("ClientSample", game_ui="allow")
        seq = (await game.snapshot()).seq
        placed = await player.result("clientsample_set_flag", {"x": 21.4, "y": 9.8, "name": "Summit"})
        assert placed == {"zone": "Tuliyollal", "x": 21.4, "y": 9.8, "mapOpened": True}
        assert {(c.by, c.capability) for c in (await game.changes(seq)).changes} == {("ClientSample", "game_ui")}
        status = await player.result("clientsample_status")
        assert (status["game"], status["flag"]["name"], status["following"]) == ("running", "Summit", None)
        assert await player.error("clientsample_set_flag", {"x": 50, "y": 2}) == (
            "(50, 2) is off the map: map coordinates run from 1 to 42."
        )
