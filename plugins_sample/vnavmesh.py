"""vnavmesh: the navigation plugin, simulated: its IPC gates walk the character in the game.

    python -m plugins_sample.vnavmesh --bus tcp://127.0.0.1:37520

The gates have the real vnavmesh's names and signatures, with plain JSON values (a Vector3 is
`[x, y, z]`), so XIV MCP's `navigate_to` drives this process as it drives the real plugin:

    vnavmesh.Nav.IsReady -> bool                       the zone's navmesh is built (always, here)
    vnavmesh.Nav.BuildProgress -> float                1.0: built
    vnavmesh.Path.IsRunning -> bool                    a walk this plugin started is under way
    vnavmesh.SimpleMove.PathfindInProgress -> bool     false: a path is found at once
    vnavmesh.SimpleMove.PathfindAndMoveCloseTo(target, fly, range) -> bool
    vnavmesh.SimpleMove.PathfindAndMoveTo(target, fly) -> bool
    vnavmesh.Path.Stop                                 (action) stop the walk
    vnavmesh.Nav.PathfindCancelAll                     (action) cancel pathfinding: nothing is pending

The navmesh here has no walls: a path is the straight line on the ground. The walk itself is the
game's `Game.MoveTo`, called by this process, so the game records the movement as vnavmesh's and
XIV MCP holds it against nobody else. Like the real plugin, a walk that cannot start answers
false (and this process prints why) rather than raising; only a malformed argument raises.
It prints a line per walk, stop and refusal, for people and for tests that wait on them.
"""

from __future__ import annotations

import math
from typing import Final

import anyio

from broker import PluginInterface, connect
from game import GameClient, GameError

from ._run import parse_args, run, say

NAME: Final = "vnavmesh"


class Gate:
    """The gate names, as the real vnavmesh registers them."""

    IS_READY: Final = "vnavmesh.Nav.IsReady"
    BUILD_PROGRESS: Final = "vnavmesh.Nav.BuildProgress"
    IS_RUNNING: Final = "vnavmesh.Path.IsRunning"
    PATHFIND_IN_PROGRESS: Final = "vnavmesh.SimpleMove.PathfindInProgress"
    MOVE_CLOSE_TO: Final = "vnavmesh.SimpleMove.PathfindAndMoveCloseTo"
    MOVE_TO: Final = "vnavmesh.SimpleMove.PathfindAndMoveTo"
    STOP: Final = "vnavmesh.Path.Stop"
    CANCEL_ALL: Final = "vnavmesh.Nav.PathfindCancelAll"


def vector3(gate: str, value: list[object]) -> tuple[float, float, float]:
    """A Vector3 argument as (x, y, z); a malformed one raises, naming the gate and the shape it takes."""
    numbers = [float(c) for c in value if isinstance(c, int | float) and not isinstance(c, bool)]
    if len(value) != 3 or len(numbers) != 3:
        raise ValueError(
            f"{gate}: the target must be a Vector3 as [x, y, z], three numbers in yalms, "
            f"such as [12.5, 0.0, -40.0]; got {value!r:.80}."
        )
    x, y, z = numbers
    if not all(math.isfinite(c) for c in (x, y, z)):
        raise ValueError(f"{gate}: the target's coordinates must be finite numbers; got {value!r:.80}.")
    return x, y, z


class Navigation:
    """vnavmesh's gates over the game: walks are the game's, started as this process."""

    def __init__(self, pi: PluginInterface) -> None:
        self.game = GameClient(pi)

    def is_ready(self) -> bool:
        return True

    def build_progress(self) -> float:
        return 1.0

    def pathfind_in_progress(self) -> bool:
        return False

    async def is_running(self) -> bool:
        """Whether the character is walking on a path this plugin started (another's walk is not ours)."""
        try:
            movement = (await self.game.state()).movement
        except GameError:
            return False  # no game, no walk
        return movement is not None and movement.by == NAME

    async def move_close_to(self, target: list[object], fly: bool, range_: float) -> bool:
        return await self._walk(Gate.MOVE_CLOSE_TO, target, fly, range_)

    async def move_to(self, target: list[object], fly: bool) -> bool:
        return await self._walk(Gate.MOVE_TO, target, fly, 0.0)

    async def _walk(self, gate: str, target: list[object], fly: bool, range_: float) -> bool:
        x, y, z = vector3(gate, target)
        if not math.isfinite(range_) or range_ < 0:
            raise ValueError(f"{gate}: range is how close to get, in yalms: 0 or more; got {range_!r}.")
        try:
            here = (await self.game.position()).position
        except GameError as exc:
            say(f"{NAME}: could not walk to ({x:.1f}, {z:.1f}): {exc}")
            return False
        # On the ground (X and Z), as vnavmesh measures "close to": height is the mesh's business.
        dx, dz = x - here.x, z - here.z
        distance = math.hypot(dx, dz)
        if distance <= range_:
            say(f"{NAME}: already within {range_:g} yalms of ({x:.1f}, {z:.1f})")
            return True
        share = (distance - range_) / distance
        goal_x, goal_z = here.x + dx * share, here.z + dz * share
        try:
            reply = await self.game.move_to(goal_x, goal_z, y)
        except GameError as exc:
            say(f"{NAME}: could not walk to ({x:.1f}, {z:.1f}): {exc}")
            return False
        how = "flying" if fly else "walking"
        say(f"{NAME}: {how} to ({goal_x:.1f}, {goal_z:.1f}), {reply.distance:.1f} yalms, {reply.eta:.1f} s")
        return True

    async def stop(self) -> None:
        """Stop the walk this plugin started; someone else's walk, or none, is left alone."""
        if not await self.is_running():
            say(f"{NAME}: nothing to stop")
            return
        try:
            reply = await self.game.stop()
        except GameError as exc:  # the real Stop swallows its errors too: there is nobody to tell
            say(f"{NAME}: could not stop: {exc}")
            return
        where = reply.position
        say(f"{NAME}: stopped at ({where.x:.1f}, {where.z:.1f})")

    def cancel_all(self) -> None:
        say(f"{NAME}: no pathfinding to cancel")


def provide(pi: PluginInterface, nav: Navigation) -> None:
    pi.get_ipc_provider(Gate.IS_READY, returns=bool).register_func(nav.is_ready)
    pi.get_ipc_provider(Gate.BUILD_PROGRESS, returns=float).register_func(nav.build_progress)
    pi.get_ipc_provider(Gate.IS_RUNNING, returns=bool).register_func(nav.is_running)
    pi.get_ipc_provider(Gate.PATHFIND_IN_PROGRESS, returns=bool).register_func(nav.pathfind_in_progress)
    pi.get_ipc_provider(Gate.MOVE_CLOSE_TO, params=(list, bool, float), returns=bool).register_func(nav.move_close_to)
    pi.get_ipc_provider(Gate.MOVE_TO, params=(list, bool), returns=bool).register_func(nav.move_to)
    pi.get_ipc_provider(Gate.STOP).register_action(nav.stop)
    pi.get_ipc_provider(Gate.CANCEL_ALL).register_action(nav.cancel_all)


def main() -> None:
    args = parse_args("vnavmesh")

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi:
            provide(pi, Navigation(pi))
            await pi.flush()  # the broker holds the gates: XIV MCP sees vnavmesh as loaded
            say(f"{NAME}: ready on {pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
