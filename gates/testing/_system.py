"""`PrivateSystem`: a broker, the XIV MCP host and the game as real processes, shared by the tests
that ask for the same options, and put back at its start before each of them.

The processes run on free loopback ports with a data dir of their own (`gates.testing.XivMcpSystem`,
the harness); the kit's bus connection, the player key and the game's client live on the kit's
own loop (`KitLoop`). Between two tests of a shared system:

* the test that ends: every plugin process it started is stopped (`plugin_process`), and the kit
  waits until every process that joined the bus during the test has left it, so that the host
  has heard of each departure and the next test may take the same names;
* the test that begins: the host's `reset` (the plugins that are gone forgotten, settings back
  to their defaults, approvals withdrawn, jobs cancelled and forgotten) and the game's
  `Game.Reset` (the world as it started); the test clocks go on, the change log's seq too.

Only a system on the test clock can be reset (the host refuses otherwise), so only such systems
are shared; `SharedSystems` keeps one per options and replaces one whose processes died.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Final

import anyio

import broker
from game import GameClient
from gates.player import PlayerClient

from ._game import Game
from ._harness import XivMcpSystem
from ._link import DIRECT, KitLoop, Link, bounded
from ._options import SystemOptions
from ._player import WAIT, Player

__all__ = ["LEAVE_WAIT", "PrivateSystem", "SharedSystems"]

LEAVE_WAIT: Final = 10.0
"""Seconds the processes a test started may take to leave the bus after the test."""

_peer_numbers = itertools.count(1)


class PrivateSystem:
    """One private XIV MCP system: its processes, the kit's connection to it, and what a test sees."""

    def __init__(self, root: Path, options: SystemOptions) -> None:
        self.options = options
        # On CURVE, as `xivmcp up` runs the bus (S4): a plugin that joins without the data dir's
        # key fails here as it would there.
        self.harness = XivMcpSystem(root, *options.host_args(), "--http", "127.0.0.1:0", curve=True)
        """The processes themselves (the shipped harness): `harness.host`, `harness.logs`, ..."""
        self.tests_begun = 0
        self.game_seq_at_start = 0
        """The seq of the game's newest change when the current test began."""
        self._peers_at_start: frozenset[str] = frozenset()
        self._stack = ExitStack()
        self._loop: KitLoop | None = None
        self._pi: broker.PluginInterface | None = None

    def __enter__(self) -> PrivateSystem:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- what a test reads -----------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        """The bus (``tcp://127.0.0.1:PORT``): what a plugin process gets as ``--bus``."""
        return self.harness.endpoint

    @property
    def data_dir(self) -> Path:
        """The host's data dir (its player key, token, audit log and databases)."""
        return self.harness.data_dir

    @property
    def mcp_url(self) -> str:
        """The host's MCP endpoint (``http://127.0.0.1:PORT/mcp``), what an AI app connects to."""
        return self.harness.mcp_url

    @property
    def token(self) -> str:
        """The bearer token an AI app sends to `mcp_url`."""
        return self.harness.token

    def cli(self, *args: str) -> list[str]:
        """The argv of `xivmcp ARGS` pointed at this system, as the player types it."""
        return self.harness.cli(*args)

    @property
    def alive(self) -> bool:
        """Whether the broker, the host and the game are all still running."""
        processes = (self.harness.broker, self.harness.host, self.harness.game)
        return all(proc is not None and proc.returncode is None for proc in processes)

    @property
    def loop(self) -> KitLoop:
        """The kit's event loop, where its connections live; raises `RuntimeError` before `start()`."""
        if self._loop is None:
            raise RuntimeError("The system is not started: call start() (or use it as a context manager) first.")
        return self._loop

    @property
    def pi(self) -> broker.PluginInterface:
        """The kit's own connection to the bus (it lives on `loop`)."""
        if self._pi is None:
            raise RuntimeError("The system is not started: call start() (or use it as a context manager) first.")
        return self._pi

    # --- life ------------------------------------------------------------------------------

    def start(self) -> PrivateSystem:
        """Start the broker, then the host and the game together; return once all three are ready."""
        with ExitStack() as starting:  # a failure on the way stops what was started
            starting.callback(self.harness.close)
            self.harness.start_broker()
            host = self.harness.launch_host()
            game = self.harness.launch_game(*self.options.game_args())
            self.harness.wait_host_ready(host)
            self.harness.wait_game_ready(game)
            self._loop = starting.enter_context(KitLoop.running())
            name = f"XivMcpTestKit{os.getpid()}_{next(_peer_numbers)}"
            self._pi = starting.enter_context(self._loop.enter(self.harness.connect(name)))
            self._stack = starting.pop_all()
        return self

    def close(self) -> None:
        """Leave the bus, stop the kit's loop, and kill every process of the system by pid."""
        self._stack.close()
        self._pi = self._loop = None

    # --- between tests ---------------------------------------------------------------------

    def begin_test(self) -> None:
        """Before a test: reset the system if a test used it before; note the bus and the game's seq."""
        first = self.tests_begun == 0
        self.tests_begun += 1
        self._peers_at_start, self.game_seq_at_start = self.loop.call(lambda: self._begin(reset=not first))

    async def _begin(self, *, reset: bool) -> tuple[frozenset[str], int]:
        game = GameClient.as_player(self.pi, self.data_dir)  # Game.Reset answers only the player key (F4)
        if reset:
            await self.player().reset()
            await bounded(WAIT, "the game's reset", game.reset())
        snapshot = await bounded(WAIT, "the game's snapshot", game.snapshot())
        return self.pi.peers, snapshot.seq

    def end_test(self) -> None:
        """After a test: wait until every process that joined the bus during it has left it again."""
        self.loop.call(self._wait_for_departures)

    async def _wait_for_departures(self) -> None:
        pi, before = self.pi, self._peers_at_start
        with anyio.move_on_after(LEAVE_WAIT):
            await pi.wait_until(lambda: pi.peers <= before)
        staying = sorted(pi.peers - before)
        if staying:
            raise RuntimeError(
                f"{', '.join(staying)} joined the bus during the test and is still on it {LEAVE_WAIT:g} s after it "
                "ended: start plugins with the plugin_process fixture (it stops them), or stop them yourself "
                "before the test ends, so the next test on this shared system starts clean."
            )

    # --- what a test drives ------------------------------------------------------------------

    def player(self, link: Link = DIRECT) -> Player:
        """The player over the kit's connection (`link`: from which loop the test awaits it)."""
        game = GameClient.as_player(self.pi, self.data_dir)  # moves the game's test clock: the player key's (F4)
        return Player(PlayerClient.for_data_dir(self.pi, self.data_dir), game, link=link)

    def game(self, link: Link = DIRECT) -> Game:
        """The game over the kit's connection, with the player key (its `set` is the harness's, F4); its
        `changes()` are those since the current test began."""
        return Game(GameClient.as_player(self.pi, self.data_dir), since=self.game_seq_at_start, link=link)


class SharedSystems:
    """The shared systems of one test session, one per options, started when a test first asks."""

    def __init__(self, new_root: Callable[[], Path]) -> None:
        """`new_root()` gives an empty folder for a new system (pytest's tmp_path_factory)."""
        self._new_root = new_root
        self._systems: dict[SystemOptions, PrivateSystem] = {}

    def get(self, options: SystemOptions) -> PrivateSystem:
        """The system of `options`: started now if none runs, started again if its processes died."""
        system = self._systems.get(options)
        if system is not None and not system.alive:
            system.close()  # a test killed one of its processes: the next gets a whole system again
            system = None
        if system is None:
            system = self._systems[options] = PrivateSystem(self._new_root(), options).start()
        return system

    def close(self) -> None:
        """Stop every system started so far (the pytest plugin does it at the session's end)."""
        for system in self._systems.values():
            system.close()
        self._systems.clear()
