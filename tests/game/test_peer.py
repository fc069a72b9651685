"""The game as a process (W1): `python -m game`, `xivmcp game`, `xivmcp up`, and stopping it."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import anyio
import pytest

from game import GAME_NAME
from gates.testing import XivMcpSystem

from ._system import ROOT, WAIT, game_peer, game_system

pytestmark = pytest.mark.asyncio


async def test_w1_python_m_game_serves_the_gates_on_its_own(tmp_path: Path) -> None:
    with game_system(tmp_path, start_game=False) as system:
        proc = system.spawn([sys.executable, "-m", "game", "--bus", system.endpoint, "--test-clock"], "game")
        assert await proc.expect("xivmcp game: ready", WAIT) == f"xivmcp game: ready on {system.endpoint}"
        async with game_peer(system) as (pi, game):
            assert GAME_NAME in pi.peers
            with anyio.fail_after(WAIT):
                assert (await game.time()).test_clock


async def test_w1_sigterm_stops_the_game_at_once_and_its_name_is_free_for_the_next(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        assert system.game is not None
        assert system.game.terminate(WAIT, signal.SIGTERM) == 0
        system.start_game("--test-clock", "--seed", "2")
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                assert (await game.state()).seed == 2


@pytest.mark.skipif(sys.platform == "win32", reason="the process group is POSIX")
async def test_w1_xivmcp_up_starts_the_game_with_the_test_clock(tmp_path: Path) -> None:
    # `up` runs the broker itself, on the system's port, with CURVE (S4) as by default
    with XivMcpSystem(tmp_path, cwd=ROOT, curve=True) as system:
        argv = [sys.executable, "-m", "xivmcp", "up", *system.common, "--no-mcp", "--test-clock"]
        up = system.spawn(argv, "up", new_session=True)  # killed with its children, by process group
        await up.expect("xivmcp game: ready", WAIT * 2)
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                assert (await game.time()).test_clock
