"""Stand-ins for the plugins XIV MCP's game tools work with, as peers of the test's own event loop.

    async with navmesh_peer(endpoint, pi) as navmesh:     # "vnavmesh": walks with the game's MoveTo
        target, fly, arrive_range = await navmesh.next_path()
    async with clicker_peer(endpoint, pi, "YesAlready") as clicker:   # serves YesAlready.StopRequests.*
        assert await clicker.next_request() == ("Add", "XivMcp")

Each waits for what the host asks of it on a stream, under a timeout: never for time to pass. On
the way out each waits until `pi` (the test's own peer) saw it leave the bus: the broker told the
host first, so the test's next call finds the host without it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

import broker
from game import GameClient

__all__ = ["ClickerPeer", "NavmeshPeer", "clicker_peer", "navmesh_peer"]

WAIT = 10.0


class NavmeshPeer:
    """vnavmesh's gates as XIV MCP calls them: a path walks the character there with Game.MoveTo."""

    def __init__(self, pi: broker.PluginInterface) -> None:
        self.pi = pi
        self.game = GameClient(pi)
        self._paths, self._path_stream = anyio.create_memory_object_stream[tuple[list[float], bool, float]](100)
        self._stops, self._stop_stream = anyio.create_memory_object_stream[str](100)
        self.start_paths = True
        """False: PathfindAndMoveCloseTo answers false (no path) and nothing moves."""
        pi.get_ipc_provider(
            "vnavmesh.SimpleMove.PathfindAndMoveCloseTo", params=(list, bool, float), returns=bool
        ).register_func(self._move)
        pi.get_ipc_provider("vnavmesh.Path.IsRunning", returns=bool).register_func(self._running)
        pi.get_ipc_provider("vnavmesh.Nav.IsReady", returns=bool).register_func(lambda: True)
        pi.get_ipc_provider("vnavmesh.Path.Stop").register_action(self._stop)
        pi.get_ipc_provider("vnavmesh.Nav.PathfindCancelAll").register_action(lambda: self._stops.send_nowait("all"))

    async def _move(self, target: list[float], fly: bool, arrive_range: float) -> bool:
        if self.start_paths:
            x, y, z = target
            await self.game.move_to(x, z, y)
        self._paths.send_nowait((target, fly, arrive_range))  # once walking: the test may look at once
        return self.start_paths

    async def _running(self) -> bool:
        return (await self.game.player()).moving

    async def _stop(self) -> None:
        await self.game.stop()
        self._stops.send_nowait("stop")

    async def next_path(self) -> tuple[list[float], bool, float]:
        with anyio.fail_after(WAIT):
            return await self._path_stream.receive()

    async def next_stop(self) -> str:
        with anyio.fail_after(WAIT):
            return await self._stop_stream.receive()

    def close(self) -> None:
        for stream in (self._paths, self._path_stream, self._stops, self._stop_stream):
            stream.close()


class ClickerPeer:
    """An auto-accept plugin's StopRequests set, served as `<name>.StopRequests.Add/Remove/List`."""

    def __init__(self, pi: broker.PluginInterface) -> None:
        self.stop_requests: set[str] = set()
        self._requests, self._request_stream = anyio.create_memory_object_stream[tuple[str, str]](100)
        for what in ("Add", "Remove"):
            gate = pi.get_ipc_provider(f"{pi.name}.StopRequests.{what}", params=(str,), returns=bool)
            gate.register_func(lambda name, what=what: self._change(what, name))
        pi.get_ipc_provider(f"{pi.name}.StopRequests.List", returns=str).register_func(
            lambda: json.dumps(sorted(self.stop_requests))
        )

    def _change(self, what: str, name: str) -> bool:
        had = name in self.stop_requests
        if what == "Add":
            self.stop_requests.add(name)
        else:
            self.stop_requests.discard(name)
        self._requests.send_nowait((what, name))
        return had != (what == "Add")

    async def next_request(self) -> tuple[str, str]:
        with anyio.fail_after(WAIT):
            return await self._request_stream.receive()

    def close(self) -> None:
        self._requests.close()
        self._request_stream.close()


@asynccontextmanager
async def navmesh_peer(endpoint: str, watcher: broker.PluginInterface) -> AsyncIterator[NavmeshPeer]:
    """A "vnavmesh" peer whose gates the broker holds (so the host sees it) before this yields."""
    async with broker.connect(endpoint, "vnavmesh") as pi:
        peer = NavmeshPeer(pi)
        try:
            with anyio.fail_after(WAIT):
                await pi.flush()
            yield peer
        finally:
            peer.close()
    with anyio.fail_after(WAIT):
        await watcher.wait_peer_gone("vnavmesh")


@asynccontextmanager
async def clicker_peer(endpoint: str, watcher: broker.PluginInterface, name: str) -> AsyncIterator[ClickerPeer]:
    """A clicker plugin `name` whose StopRequests gates the broker holds before this yields."""
    async with broker.connect(endpoint, name) as pi:
        peer = ClickerPeer(pi)
        try:
            with anyio.fail_after(WAIT):
                await pi.flush()
            yield peer
        finally:
            peer.close()
    with anyio.fail_after(WAIT):
        await watcher.wait_peer_gone(name)
