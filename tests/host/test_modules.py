"""The modules of XIV MCP's own tools: reading and changes modes, modules turned off, per-tool
settings, their refusals as the real host words them, and their persistence (A3, A5, W5).

An in-process host without a game: the gate decides before a game tool would run, so a refusal
needs no game, and an allowed call gets the tool's own "the game is not running" message.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import broker
from gates.contract import REAL_HOST
from gates.player import CallReply, PlayerError

from ._system import inprocess_host, player_of, read_audit

pytestmark = pytest.mark.asyncio

NOT_RUNNING = "The game is not running"


async def test_w5_a_module_mode_decides_and_each_refusal_says_what_to_change(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "Tester") as pi:
        player = player_of(pi, tmp_path)
        assert await player.error("set_map_flag", {"x": 10, "y": 10}) == (
            "Game & navigation is set to Deny for changes, so set_map_flag can't run. The player can change it in "
            "/xivmcp → Modules."
        )
        assert (await player.error("get_position")).startswith(NOT_RUNNING)  # game_data reading: allowed

        said = await player.module("game_navigation", "changes", "allow")
        assert said == "Game & navigation (game_navigation): changes is now allow."
        assert (await player.error("set_map_flag", {"x": 10, "y": 10})).startswith(NOT_RUNNING)

        await player.tool("set_map_flag", "deny")
        assert await player.error("set_map_flag", {"x": 10, "y": 10}) == (
            "set_map_flag is set to Deny in /xivmcp → Modules (Game & navigation), so it can't run. The player can "
            "change it there."
        )
        said = await player.tool("set_map_flag", "group")
        assert said == "set_map_flag follows Game & navigation (game_navigation) again."

        await player.module("game_data", "off")
        assert await player.error("get_position") == (
            "Game data is turned off in /xivmcp → Modules, so get_position isn't available. The player can turn it "
            "on there."
        )
        offered = {t["name"] for t in (await player.result("search_tools", {"limit": 100}))["items"]}
        assert "get_position" not in offered and "set_map_flag" in offered  # an off module is not offered
        await player.module("game_data", "on")

        settings = [e for e in read_audit(tmp_path) if e["kind"] == "setting" and e["plugin"] == "XivMcp"]
        assert len(settings) == 5


async def test_w5_ask_opens_an_approval_window_for_a_core_tool(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "Tester") as pi:
        player = player_of(pi, tmp_path)
        await player.module("game_data", "reading", "ask")
        async with anyio.create_task_group() as tg:
            replies: list[CallReply] = []

            async def call() -> None:
                replies.append(await player.call("get_currencies"))

            tg.start_soon(call)
            approval = await player.wait_approval("get_currencies")
            assert (approval.plugin, approval.summary) == (
                "XivMcp",
                "XIV MCP wants to run get_currencies (Game data, reading)",
            )
            await player.approve(approval.approval_id, session=True)
        assert str(replies[0].error).startswith(NOT_RUNNING)  # approved: it ran
        assert (await player.error("get_currencies")).startswith(NOT_RUNNING)  # for the session: not asked again


async def test_w5_bad_settings_are_refused_with_the_valid_ones(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "Tester") as pi:
        player = player_of(pi, tmp_path)
        with pytest.raises(PlayerError) as unknown:
            await player.module("nope", "on")
        every = ", ".join(module.id for module in REAL_HOST.modules)
        assert unknown.value.message.endswith(f"There is no module 'nope'; the modules are: {every}.")
        with pytest.raises(PlayerError) as no_changes:
            await player.module("game_data", "changes", "allow")
        assert no_changes.value.message == "Game data (game_data) has no changes: only reading."
        with pytest.raises(PlayerError) as not_core:
            await player.tool("myplugin_farm", "deny")
        assert "is not one of XIV MCP's tools in a module" in not_core.value.message


async def test_w5_module_settings_survive_a_host_restart(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "Tester") as pi:
        player = player_of(pi, tmp_path)
        await player.module("game_navigation", "reading", "deny")
        await player.module("jobs", "off")
        await player.tool("get_inventory", "ask")
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "Tester") as pi:
        modules = {m.id: m for m in await player_of(pi, tmp_path).modules()}
        assert modules["game_navigation"].reading == "deny" and modules["jobs"].on is False
        inventory = next(t for t in modules["game_data"].tools if t.name == "get_inventory")
        assert (inventory.setting, inventory.mode) == ("ask", "ask")
        autoduty = modules["autoduty"]
        assert autoduty.plugin == "AutoDuty" and not any(t.available for t in autoduty.tools)


async def test_a_module_setting_set_to_what_it_is_already_writes_nothing() -> None:
    from gates.host.policy._modules import Modules, ModuleSettings

    class Store:
        writes = 0

        def load_module_settings(self) -> ModuleSettings:
            return ModuleSettings()

        def save_module_settings(self, settings: ModuleSettings) -> None:
            self.writes += 1

    store = Store()
    modules = Modules(store)
    modules.set_mode("game_navigation", "changes", "allow")
    modules.set_mode("game_navigation", "changes", "allow")
    modules.set_on("game_data", True)  # on already
    modules.set_tool("get_position", "group")  # follows its module already
    assert store.writes == 1
