"""Walking on the test clock and on the real one (W1, W2): a walk is computed from the clock, never
ticked; the arrival is a change of its own, made by whoever started the walk, at the time it happened."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from game import Change, GameGate, SnapshotDelta, to_world

from ._system import TESTER, WAIT, game_peer, game_system, proven, refused

pytestmark = pytest.mark.asyncio

START = (-20.0, 12.0)
"""Where the default world's character stands in Tuliyollal (x, z)."""


async def test_w1_w2_a_walk_is_part_way_at_half_time_and_arrives_past_it(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            arrivals: list[Change] = []
            heard = anyio.Event()

            def hear(change: Change) -> None:
                if change.summary.startswith("arrived"):
                    arrivals.append(change)
                    heard.set()

            game.on_change(hear)
            with anyio.fail_after(WAIT):
                await pi.flush()
                walk = await game.move_to(40.0, 92.0)  # 100 yalms away (60, 80) at 6 yalms/s
                assert walk.distance == pytest.approx(100.0) and walk.eta == pytest.approx(100 / 6)
                [started] = walk.changes
                assert (started.kind, started.capability, started.by, started.delta) == (
                    "position",
                    "move_character",
                    TESTER,
                    SnapshotDelta(),
                )
                half = await game.advance_clock(walk.eta / 2)
                assert half.changes == []
                where = await game.position()
                assert where.moving and (where.position.x, where.position.z) == pytest.approx((10.0, 52.0))
                assert where.destination is not None and where.destination.x == 40.0
                assert (await game.player()).moving
                past = await game.advance_clock(walk.eta)
                [arrived] = past.changes
                assert (arrived.kind, arrived.capability, arrived.by) == ("position", "move_character", TESTER)
                assert arrived.at == pytest.approx(walk.arrives_at) and arrived.summary.startswith(
                    "arrived at (40.0, 92.0)"
                )
                where = await game.position()
                assert not where.moving and (where.position.x, where.position.z) == (40.0, 92.0)
                await heard.wait()
            assert arrivals == [arrived]
            assert (await game.state()).movement is None


async def test_w1_move_to_map_walks_to_the_formulas_point_and_stop_ends_the_walk_where_it_is(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                zone = (await game.zones())[0]
                walk = await game.move_to_map(12.5, 12.0)
                assert (walk.destination.x, walk.destination.z) == pytest.approx(to_world(zone.map, 12.5, 12.0))
                await game.advance_clock(1.0)
                stopped = await game.stop()
                assert stopped.stopped and [c.summary.split(" ")[0] for c in stopped.changes] == ["stopped"]
                assert stopped.changes[0].capability == "move_character"
                where = await game.position()
                assert not where.moving and where.position == stopped.position
                assert (where.position.x, where.position.z) != START
                again = await game.stop()
                assert not again.stopped and again.changes == []
                await game.advance_clock(600.0)  # the stopped walk never arrives
                assert (await game.position()).position == stopped.position


async def test_w1_walking_again_starts_from_where_the_character_is_and_a_teleport_ends_the_walk(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.move_to(40.0, 92.0)
                await game.advance_clock(100 / 6 / 2)
                second = await game.move_to(10.0, 92.0)
                assert second.distance == pytest.approx(40.0)  # from (10, 52), half way along the first walk
                await game.teleport("Tuliyollal")
                assert not (await game.position()).moving
                assert (await game.advance_clock(60.0)).changes == []


async def test_w1_the_walk_speed_set_mid_walk_carries_on_from_there(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.move_to(40.0, 92.0)  # 100 yalms at 6
                await game.advance_clock(5.0)  # 30 yalms done, 70 to go
                await game.set("walk_speed", 14.0)  # 70 yalms in 5 s
                assert (await game.advance_clock(4.9)).changes == []
                [arrived] = (await game.advance_clock(0.2)).changes
                assert arrived.at == pytest.approx(10.0)


async def test_w1_the_real_clock_refuses_advance_clock_and_records_the_arrival_on_time(tmp_path: Path) -> None:
    with game_system(tmp_path, start_game=False) as system:
        system.start_game()  # the real clock
        async with game_peer(system) as (pi, game):
            arrived = anyio.Event()
            heard: list[Change] = []

            def hear(change: Change) -> None:
                heard.append(change)
                if change.summary.startswith("arrived"):
                    arrived.set()

            game.on_change(hear)
            with anyio.fail_after(WAIT):
                await pi.flush()
                argument = await proven(pi, system.data_dir, GameGate.ADVANCE_CLOCK, '{"seconds": 1}')
                error = await refused(pi, GameGate.ADVANCE_CLOCK, argument)
                assert error == "Game.AdvanceClock: the game runs on a real clock; start it with --test-clock"
                assert not (await game.time()).test_clock
                walk = await game.move_to(START[0] + 1.5, START[1])  # 1.5 yalms: a quarter of a second
                await arrived.wait()  # sent by the game's own timer: nobody called in between
            assert [c.summary.split(" ")[0] for c in heard] == ["walking", "arrived"]
            assert heard[1].at == pytest.approx(walk.arrives_at) and heard[1].by == TESTER
            assert not (await game.position()).moving
