"""The game as a process on the bus: `python -m game` and `xivmcp game` (W1).

    python -m game --bus tcp://127.0.0.1:37520 [--data-dir DIR] [--world FILE.json] [--seed N] [--test-clock]
                   [--save FILE.json]

`serve_game` connects as `Game`, serves every gate, says it is ready once the broker holds them,
and (on the real clock) runs the arrival timer, which records a walk's arrival when it happens so
that `Game.Changed` says "arrived" on time. On the test clock nothing happens between calls:
`Game.AdvanceClock` moves time and records the arrivals.

The admin gates (`Game.Set`, `Game.AdvanceClock`, `Game.Save`, `Game.Reset`) answer only a caller
that proves the player key of the data dir (`DATA_DIR/player.key`, F4): without `--data-dir` the
game has no key to check, and refuses them all. `xivmcp game` and `xivmcp up` always give one.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.abc

from broker import CurveClient, connect, run_main
from gates.contract import PLAYER_KEY_FILE, EscapedLogFormatter

from ._admin import AdminDoor
from ._clock import Clock, RealClock, TestClock
from ._default_world import default_world
from ._documents import World
from ._engine import GameEngine
from ._errors import WorldFileError
from ._gates import provide_game_gates
from ._names import GAME_NAME
from ._world_file import WORLDS_DIR, load_world

__all__ = ["CONNECT_TIMEOUT", "GameConfig", "add_game_options", "build_world", "main", "run_game", "serve_game"]

log = logging.getLogger("game")

CONNECT_TIMEOUT: Final = 15.0
"""Seconds the game waits for a broker (`xivmcp up` starts both at once)."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """How to run the game: which bus, which world, which clock, where `Game.Save` writes."""

    bus: str | None = None
    """The bus endpoint (None: $XIVMCP_BUS, then the default)."""
    world_file: Path | None = None
    """A world file to start from (None: the default world)."""
    seed: int | None = None
    """Recorded in the world (`World.seed`); None keeps the world file's (0 for the default world)."""
    test_clock: bool = False
    save_file: Path | None = None
    """Where `Game.Save` writes when it is given no path."""
    bus_curve: CurveClient | None = None
    """The CURVE pair to join the bus with (S4); None: a bus without CURVE."""
    data_dir: Path | None = None
    """XIV MCP's data dir: the admin gates check the player key in it (None: no key, they refuse), and
    `Game.Save` writes a named world into its world folder (`DATA_DIR/worlds`)."""

    @property
    def player_key_file(self) -> Path | None:
        """The player key the admin gates check (read when they check: the host may make it later)."""
        return None if self.data_dir is None else self.data_dir / PLAYER_KEY_FILE


def build_world(config: GameConfig) -> World:
    """The world the game starts with; `WorldFileError` for a world file it cannot use."""
    if config.world_file is not None:
        world = load_world(config.world_file)
        if config.seed is not None:
            world.seed = config.seed
        return world
    return default_world(config.seed or 0)


async def _arrivals(engine: GameEngine) -> None:
    """Record each walk's arrival at its time (real clock only)."""
    woken = anyio.Event()

    def wake() -> None:
        woken.set()

    engine.walk_listeners.append(wake)
    while True:
        woken = anyio.Event()
        eta = engine.arrival_time()
        if eta is None:
            await woken.wait()
            continue
        with anyio.move_on_after(max(0.0, eta - engine.now())):
            await woken.wait()
        engine.resolve()


async def serve_game(
    config: GameConfig,
    *,
    world: World | None = None,
    on_ready: Callable[[str], Any] | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> None:
    """Run the game on the bus until cancelled; `on_ready(endpoint)` once the broker holds its gates."""
    world = build_world(config) if world is None else world
    clock: Clock = TestClock(world.time) if config.test_clock else RealClock(world.time)
    worlds = None if config.data_dir is None else config.data_dir / WORLDS_DIR
    engine = GameEngine(world, clock, save_path=config.save_file, worlds=worlds)
    async with (
        connect(config.bus, GAME_NAME, connect_timeout=connect_timeout, curve=config.bus_curve) as pi,
        anyio.create_task_group() as tg,
    ):
        provide_game_gates(pi, engine, AdminDoor(config.player_key_file))
        if not clock.manual:
            tg.start_soon(_arrivals, engine, name="game arrivals")
        await pi.flush()  # "ready" means the broker holds the gates: a caller can use them at once
        if on_ready is not None:
            on_ready(pi.endpoint)
        await anyio.sleep_forever()


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """The game's own options (`python -m game` and `xivmcp game`; the bus option is the caller's)."""
    parser.add_argument("--world", type=Path, default=None, metavar="FILE.json", help="start from this world file")
    parser.add_argument("--seed", type=int, default=None, help="the seed recorded in the world (default 0)")
    parser.add_argument(
        "--test-clock", action="store_true", help="a manual clock moved by `xivmcp game advance` (tests only)"
    )
    parser.add_argument(
        "--save", type=Path, default=None, metavar="FILE.json", help="where Game.Save writes when given no path"
    )


def run_game(config: GameConfig) -> int:
    """Run the game process: prints `xivmcp game: ready on BUS`; exit 2 with one line when it cannot start."""
    try:
        world = build_world(config)
    except WorldFileError as exc:
        print(f"xivmcp game: {exc}", file=sys.stderr, flush=True)
        return 2

    def ready(endpoint: str) -> None:
        print(f"xivmcp game: ready on {endpoint}", flush=True)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_stop_on_signal, tg.cancel_scope)
            await serve_game(config, world=world, on_ready=ready)

    # No broker, or the name Game held by a live process: "xivmcp game: why" and status 2.
    return run_main(main, name="xivmcp game")


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    if sys.platform == "win32":
        return  # Ctrl-C arrives as KeyboardInterrupt there
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m game`: the game on the bus, without the rest of `xivmcp`."""
    parser = argparse.ArgumentParser(prog="python -m game", description="The simulated game, a peer on the bus.")
    parser.add_argument("--bus", default=None, help="bus endpoint (default: $XIVMCP_BUS, else tcp://127.0.0.1:37520)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="XIV MCP's data dir, whose player key the admin gates check (without it they refuse)",
    )
    add_game_options(parser)
    args = parser.parse_args(argv)
    handler = logging.StreamHandler()  # a log line may quote a plugin's words: shown escaped (S3)
    handler.setFormatter(EscapedLogFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    return run_game(
        GameConfig(
            bus=args.bus,
            world_file=args.world,
            seed=args.seed,
            test_clock=args.test_clock,
            save_file=args.save,
            data_dir=args.data_dir,
        )
    )
