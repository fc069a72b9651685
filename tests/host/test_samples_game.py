"""The samples that stand in for other plugins, on the simulated game, as real processes (A5, A8, T2, W6-W8).

One system for the module: `xivmcp broker`, `xivmcp game --test-clock`, `xivmcp host --test-clock`
with its MCP endpoint, and the samples vnavmesh and YesAlready; AutoDuty is started by the tests
that need it and Careless by a fixture, and every process is stopped by pid with the rest. The test's own peer calls the
samples' gates as XIV MCP would, acts as the player, and reads the game. Every wait is for a line,
a reply or a state of the bus, under a timeout; the game's clock moves only when a test moves it.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
import pytest

import broker
from game import Change, GameClient, Vec3
from gates.testing import Player

from ..mcp.xiv_mcp_support import MODERN, TOOLS, XivSystem, connect
from ._system import ROOT, WAIT, Process, player_of, read_audit, run_in_thread

pytestmark = pytest.mark.asyncio

DUTY_TOOLS = {"list_duties", "get_duty_status", "stop_duty", "run_duty"}
AUTODUTY_REPO = "https://puni.sh/api/repository/erdelf"
TULIYOLLAL = 1185


def not_loaded(tool: str) -> str:
    return f"AutoDuty isn't loaded, so {tool} isn't available. The player can install or enable it ({AUTODUTY_REPO})."


@dataclass
class Samples:
    system: XivSystem
    vnavmesh: Process
    yesalready: Process


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Samples]:
    root = tmp_path_factory.mktemp("samples_game")
    with XivSystem(root, "--test-clock", "--http", "127.0.0.1:0", cwd=ROOT) as system:
        system.start()
        system.start_game("--test-clock")
        vnavmesh = system.start_plugin("plugins_sample.vnavmesh")
        yesalready = system.start_plugin("plugins_sample.yesalready")
        vnavmesh.wait_line("vnavmesh: ready")
        yesalready.wait_line("YesAlready: ready")
        yield Samples(system, vnavmesh, yesalready)


@dataclass
class Peer:
    """The test's own peer: XIV MCP's side of the samples' gates, the player, and the game."""

    pi: broker.PluginInterface
    player: Player
    game: GameClient

    async def gate(self, name: str, *args: object) -> Any:
        with anyio.fail_after(WAIT):
            return await self.pi.get_ipc_subscriber(name).invoke_func(*args)

    async def action(self, name: str, *args: object) -> None:
        with anyio.fail_after(WAIT):
            await self.pi.get_ipc_subscriber(name).invoke_action(*args)

    async def found(self, query: str) -> set[str]:
        """The names search_tools finds for `query`: the tools offered now."""
        result = await self.player.result("search_tools", {"query": query, "limit": 100})
        return {item["name"] for item in result["items"]}

    async def changes_since(self, seq: int) -> list[Change]:
        return (await self.game.changes(seq)).changes


@asynccontextmanager
async def own_peer(samples: Samples) -> AsyncIterator[Peer]:
    async with broker.connect(samples.system.endpoint, "Tester") as pi:
        game = GameClient.as_player(pi, samples.system.data_dir)  # the harness's: it moves the test clock (F4)
        if not (await game.player()).player.logged_in:
            await game.login()
        await game.set_position(x=-20.0, z=12.0, territory=TULIYOLLAL)  # a known start, whatever ran before
        yield Peer(pi, player_of(pi, samples.system.data_dir), game)


def ground_distance(a: Vec3, x: float, z: float) -> float:
    return math.hypot(a.x - x, a.z - z)


# --------------------------------------------------------------------------- vnavmesh (W6)


async def test_w6_vnavmesh_walks_the_character_close_to_a_target_as_itself(samples: Samples) -> None:
    vnavmesh = samples.vnavmesh
    async with own_peer(samples) as t:
        assert await t.gate("vnavmesh.Nav.IsReady") is True
        assert await t.gate("vnavmesh.Nav.BuildProgress") == 1.0
        assert await t.gate("vnavmesh.SimpleMove.PathfindInProgress") is False
        assert await t.gate("vnavmesh.Path.IsRunning") is False
        seq = (await t.game.snapshot()).seq
        vnavmesh.skip_to_end()

        assert await t.gate("vnavmesh.SimpleMove.PathfindAndMoveCloseTo", [10.0, 0.5, 52.0], False, 2.5) is True
        assert await vnavmesh.expect("vnavmesh: ") == "vnavmesh: walking to (8.5, 50.0), 47.5 yalms, 7.9 s"
        walking = await t.game.position()
        assert walking.moving and walking.destination is not None
        assert ground_distance(walking.destination, 10.0, 52.0) == pytest.approx(2.5)
        assert await t.gate("vnavmesh.Path.IsRunning") is True
        [started] = await t.changes_since(seq)
        assert (started.by, started.capability, started.kind) == ("vnavmesh", "move_character", "position")

        arrived = await t.game.advance_clock(10)
        assert [(c.by, c.summary.startswith("arrived")) for c in arrived.changes] == [("vnavmesh", True)]
        there = await t.game.position()
        assert not there.moving and ground_distance(there.position, 10.0, 52.0) == pytest.approx(2.5)
        assert await t.gate("vnavmesh.Path.IsRunning") is False


async def test_w6_vnavmesh_stops_its_own_walk_and_leaves_anyone_elses_alone(samples: Samples) -> None:
    vnavmesh = samples.vnavmesh
    async with own_peer(samples) as t:
        vnavmesh.skip_to_end()
        assert await t.gate("vnavmesh.SimpleMove.PathfindAndMoveTo", [40.0, 0.5, 12.0], False) is True
        assert await vnavmesh.expect("vnavmesh: ") == "vnavmesh: walking to (40.0, 12.0), 60.0 yalms, 10.0 s"
        await t.game.advance_clock(5)
        await t.action("vnavmesh.Path.Stop")
        assert await vnavmesh.expect("vnavmesh: ") == "vnavmesh: stopped at (10.0, 12.0)"
        stopped = await t.game.position()
        assert not stopped.moving and (stopped.position.x, stopped.position.z) == (10.0, 12.0)
        await t.action("vnavmesh.Nav.PathfindCancelAll")
        assert await vnavmesh.expect("vnavmesh: ") == "vnavmesh: no pathfinding to cancel"

        await t.game.move_to(-20.0, 12.0)  # the player's own walk (the tester's), not vnavmesh's
        assert await t.gate("vnavmesh.Path.IsRunning") is False
        await t.action("vnavmesh.Path.Stop")
        assert await vnavmesh.expect("vnavmesh: ") == "vnavmesh: nothing to stop"
        assert (await t.game.position()).moving


async def test_w6_vnavmesh_answers_false_when_the_game_refuses_and_raises_on_a_malformed_vector(
    samples: Samples,
) -> None:
    vnavmesh = samples.vnavmesh
    async with own_peer(samples) as t:
        vnavmesh.skip_to_end()
        assert await t.gate("vnavmesh.SimpleMove.PathfindAndMoveTo", [5000.0, 0.0, 5000.0], False) is False
        line = await vnavmesh.expect("vnavmesh: ")
        assert line.startswith("vnavmesh: could not walk to (5000.0, 5000.0): Game.MoveTo: ") and "off the map" in line
        assert not (await t.game.position()).moving  # a walk that could not start changed nothing
        with pytest.raises(broker.IpcHandlerError) as caught:
            await t.gate("vnavmesh.SimpleMove.PathfindAndMoveCloseTo", [1.0, True], False, 2.5)
        assert caught.value.detail == (
            "vnavmesh.SimpleMove.PathfindAndMoveCloseTo: the target must be a Vector3 as [x, y, z], three numbers "
            "in yalms, such as [12.5, 0.0, -40.0]; got [1.0, True]."
        )


# --------------------------------------------------------------------------- YesAlready (A8, W8)

ADD, REMOVE, LIST = "YesAlready.StopRequests.Add", "YesAlready.StopRequests.Remove", "YesAlready.StopRequests.List"


async def test_w8_yesalready_answers_a_dialog_is_paused_by_add_and_answers_what_it_left_after_remove(
    samples: Samples,
) -> None:
    yes = samples.yesalready
    async with own_peer(samples) as t:
        yes.skip_to_end()
        seq = (await t.game.snapshot()).seq
        await t.game.open_window("Retire the retainer?", kind="yesno")
        assert await yes.expect("YesAlready: ") == "YesAlready: answered Yes to Retire the retainer?"
        assert "Retire the retainer?" not in {w.name for w in await t.game.windows()}
        answered = [c for c in await t.changes_since(seq) if c.by == "YesAlready"]
        assert [(c.capability, c.summary) for c in answered] == [("game_ui", "answered Yes to 'Retire the retainer?'")]

        assert await t.gate(ADD, "XivMcp") is True
        assert await yes.expect("YesAlready: ") == "YesAlready: paused by XivMcp"
        assert await t.gate(ADD, "XivMcp") is False  # a set: once is enough
        assert json.loads(await t.gate(LIST)) == ["XivMcp"]
        await t.game.open_window("Sell the Wolf Collar?", kind="yesno")
        assert await yes.expect("YesAlready: ") == "YesAlready: left Sell the Wolf Collar? (paused)"
        assert "Sell the Wolf Collar?" in {w.name for w in await t.game.windows()}

        assert await t.gate(REMOVE, "XivMcp") is True
        assert await yes.expect("YesAlready: ") == "YesAlready: released by XivMcp"
        assert await yes.expect("YesAlready: ") == "YesAlready: answered Yes to Sell the Wolf Collar?"
        assert "Sell the Wolf Collar?" not in {w.name for w in await t.game.windows()}
        assert await t.gate(REMOVE, "XivMcp") is False
        assert json.loads(await t.gate(LIST)) == []
        with pytest.raises(broker.IpcHandlerError) as caught:
            await t.gate(ADD, "   ")
        assert caught.value.detail == (
            "YesAlready.StopRequests.Add: pass your plugin's InternalName (1 to 64 characters); got '   '."
        )


# --------------------------------------------------------------------------- AutoDuty (A5, W7)


async def test_a5_w7_the_autoduty_tools_are_offered_only_while_autoduty_runs_and_refuse_cleanly_without_it(
    samples: Samples,
) -> None:
    system = samples.system
    async with own_peer(samples) as t, connect(system, MODERN) as s:
        assert DUTY_TOOLS.isdisjoint(await s.tool_names())
        assert DUTY_TOOLS.isdisjoint(await t.found("duty"))
        assert await t.player.error("list_duties") == not_loaded("list_duties")

        autoduty = system.start_plugin("plugins_sample.autoduty")
        await autoduty.expect("AutoDuty: ready")
        with anyio.fail_after(WAIT):
            await t.pi.wait_until(lambda: "AutoDuty" in t.pi.peers)
        # The bus keeps the order: the host heard AutoDuty join before the call that follows.
        assert DUTY_TOOLS <= await t.found("duty")
        assert DUTY_TOOLS <= set(await s.tool_names())
        listing = await t.player.result("list_duties")
        assert (listing["total"], listing["showing"]) == (7, 7)  # the three without a path are left out
        assert [d["name"] for d in listing["items"]][-3:] == ["Worqor Zormor", "The Skydeep Cenote", "Origenics"]
        towers = await s.client.call_tool("list_duties", {"query": "tower"})
        assert not towers.is_error and isinstance(towers.content[0], types.TextContent)
        found = json.loads(towers.content[0].text)  # SPEC: F3 - JSON text, as the real host sends results
        assert [(d["name"], d["territoryType"]) for d in found["items"]] == [
            ("The Tower of Zot", 952),
            ("The Tower of Babil", 969),
        ]
        assert await t.player.result("get_duty_status") == {"running": False, "looping": False, "duty": None}
        assert await t.player.error("run_duty", {"duty": "Origenics"}) == (
            "AutoDuty is set to Deny for changes, so run_duty can't run. The player can change it in "
            "/xivmcp → Modules."
        )

        await t.player.module("autoduty", "changes", "allow")
        try:
            await run_and_stop_a_duty(t, autoduty)
        finally:
            await t.player.module("autoduty", "changes", "default")

        await anyio.to_thread.run_sync(autoduty.stop)
        with anyio.fail_after(WAIT):
            await t.pi.wait_peer_gone("AutoDuty")
        assert DUTY_TOOLS.isdisjoint(await t.found("duty"))
        assert DUTY_TOOLS.isdisjoint(await s.tool_names())
        assert await t.player.error("get_duty_status") == not_loaded("get_duty_status")
        gone = await s.client.call_tool("list_duties", {})
        assert gone.is_error and isinstance(gone.content[0], types.TextContent)
        assert gone.content[0].text == (  # SPEC: F3 - the real host's words to the assistant
            "'list_duties' is not available right now: the plugin it needs is not installed or not loaded."
        )


async def run_and_stop_a_duty(t: Peer, autoduty: Process) -> None:
    assert await t.player.error("run_duty", {"duty": "Vanguard"}) == (
        "AutoDuty has no path for Vanguard (1198), so it can't run it. list_duties shows the dungeons it can run."
    )
    seq = (await t.game.snapshot()).seq
    started = await t.player.result("run_duty", {"duty": "origenics", "loops": 2})
    assert started == {
        "started": True,
        "duty": "Origenics",
        "territoryType": 1208,
        "loops": 2,
        "bareMode": False,
        "poll": "get_duty_status",
    }
    assert await autoduty.expect("AutoDuty: ") == "AutoDuty: running Origenics (1208), 2 loops"
    assert (await t.game.player()).player.in_combat
    assert [(c.by, c.capability) for c in await t.changes_since(seq)] == [("AutoDuty", "combat")]
    assert await t.player.result("get_duty_status") == {
        "running": True,
        "looping": True,
        "duty": {"name": "Origenics", "territoryType": 1208},
    }
    assert "AutoDuty is already running a dungeon" in await t.player.error("run_duty", {"duty": "Vanaspati"})
    assert await t.player.result("stop_duty") == {"stopped": True, "wasRunning": True}
    assert await autoduty.expect("AutoDuty: ") == "AutoDuty: stopped Origenics"
    assert not (await t.game.player()).player.in_combat
    assert await t.player.result("stop_duty") == {"stopped": True, "wasRunning": False}


async def test_a2_a5_tools_list_changed_goes_out_when_autoduty_joins_and_when_it_leaves(samples: Samples) -> None:
    system = samples.system
    async with connect(system, MODERN) as s:
        await s.watch()
        autoduty = system.start_plugin("plugins_sample.autoduty", name="autoduty-notified")
        try:
            async with s.events.expect(TOOLS):
                await autoduty.expect("AutoDuty: ready")
            assert DUTY_TOOLS <= set(await s.tool_names())
            async with s.events.expect(TOOLS):
                await anyio.to_thread.run_sync(autoduty.stop)
            assert DUTY_TOOLS.isdisjoint(await s.tool_names())
        finally:
            autoduty.kill()  # by pid, whatever happened (nothing to do once it stopped)


# --------------------------------------------------------------------------- Careless (T2, T3, G8)


@pytest.fixture(scope="module")
def careless(samples: Samples) -> Process:
    """Careless, enabled, every capability it declares allowed; a "minute" of grinding lasts a second."""
    system = samples.system
    plugin = system.start_plugin("plugins_sample.careless", "--seconds-per-kill", "0.1", "--seconds-per-minute", "1")
    plugin.wait_line("Careless: registered careless_grind")

    async def enable() -> None:
        async with broker.connect(system.endpoint, "TestSetup") as pi:
            player = player_of(pi, system.data_dir)
            await player.enable("Careless")
            modes = {"game_ui": "allow", "move_items": "allow", "combat": "allow", "move_character": "allow"}
            await player.set_modes("Careless", **modes)

    run_in_thread(enable)
    return plugin


async def test_t2_t3_careless_is_suspended_for_spending_gil_undeclared_and_flagged_for_changing_on_error(
    samples: Samples, careless: Process
) -> None:
    async with own_peer(samples) as t:
        gil = (await t.game.player()).player.gil
        assert await t.player.result("careless_buy_potions", {"count": 2}) == {"bought": 2, "item": "Hi-Potion"}
        assert (await t.game.player()).player.gil == gil - 2 * 320
        card = await t.player.plugin("Careless")
        assert card.state == "suspended" and card.suspend_reason is not None
        assert card.suspend_reason.startswith("careless_buy_potions: ")
        assert card.suspend_reason.endswith("(not declared)")

        await t.player.lift("Careless")
        shards = {i.item_id: i.count for i in (await t.game.inventory()).items}[2]
        assert await t.player.error("careless_sell_junk", {"count": 4}) == (
            "The vendor closed before the sale went through; nothing was sold. Try again."
        )
        assert {i.item_id: i.count for i in (await t.game.inventory()).items}[2] == shards - 4  # it did sell
    [sold] = [
        e for e in read_audit(samples.system.data_dir) if e["kind"] == "call" and e["tool"] == "careless_sell_junk"
    ]
    assert sold["details"]["ok"] is False and sold["details"]["changedOnError"] is True


async def test_g8_careless_grind_ignores_the_cancel_and_fights_on_until_its_minutes_are_up(
    samples: Samples, careless: Process
) -> None:
    careless.skip_to_end()
    async with own_peer(samples) as t:
        async with broker.connect(samples.system.endpoint, "TestApp") as app, anyio.create_task_group() as tg:
            tg.start_soon(player_of(app, samples.system.data_dir).call, "careless_grind", {"minutes": 1})
            call_id = (await careless.expect("Careless: grinding for 1 minutes (")).split("(")[1].rstrip(")")
            tg.cancel_scope.cancel()  # the app gives up: XIV MCP sends Cancel
        assert await careless.expect("Careless: ") == f"Careless: ignoring the cancel of {call_id}"
        assert (await t.game.player()).player.in_combat  # still fighting after the cancel
        done = await careless.expect("Careless: ")
        assert done.startswith("Careless: ground ") and done.endswith(f" kills ({call_id})")
        assert not (await t.game.player()).player.in_combat
