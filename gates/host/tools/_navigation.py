"""Getting the character somewhere, and waiting until it is there (W6).

    navigate_to          the destination (`_places.Trips`: the inn or a house the player is asked into,
                         an object, NPC or fishing spot) ─► in another zone: the player is asked to teleport to the
                         aetheryte nearest it, and XIV MCP waits for the zone ─► farther than 3 yalms:
                         vnavmesh walks when it is on the bus, else XIV MCP flags the map and the
                         player walks ─► within 4.5 yalms: there (else "the path may be blocked")
    get_navigation_status, stop_navigation
    wait_until_arrived   waits for the player at map coordinates or at the flag (a waiting step, J8)

Every wait checks the character again on each of the game's changes (`GameAccess.wait_for`),
never polls, and races a deadline on the HOST's clock (`sleep`: the manual one under --test-clock).
navigate_to's outcome is a result, as the real host's: arrived, or not and why. Cancelled (the
caller gave up, its job was paused), it stops vnavmesh and lets the cancellation go on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import anyio

from game import PlayerReply, Vec3, ground_distance, to_map, to_world
from gates.contract import RefusedError, quote

from ._args import ToolArgs, ToolHandler
from ._game_definitions import DESTINATIONS, clamped, map_point, text_arg
from ._game_tools import GameAccess, rounded
from ._places import (
    ARRIVE_RANGE,
    LIFESTREAM_PURPOSE,
    LIFESTREAM_WITHOUT,
    NAMED,
    PREFERRED_BELL_LOCATION,
    Place,
    Trips,
)

__all__ = ["ARRIVE_RANGE", "NAVMESH", "Navigation", "before_deadline"]

log = logging.getLogger("gates.navigation")

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
Say = Callable[[str], None]

WALK_SLACK: Final = 0.5  # nearer than reach + this, nothing walks (3 yalms from an object)
BLOCKED_SLACK: Final = 2.0  # farther than reach + this once walking ended: the path was blocked (4.5 yalms)
LIFESTREAM: Final = "Lifestream"
NAVMESH: Final = "vnavmesh"
MOVE_GATE: Final = "vnavmesh.SimpleMove.PathfindAndMoveCloseTo"
RUNNING_GATES: Final = ("vnavmesh.Path.IsRunning", "vnavmesh.SimpleMove.PathfindInProgress")
STOP_GATES: Final = ("vnavmesh.Path.Stop", "vnavmesh.Nav.PathfindCancelAll")
READY_GATE: Final = "vnavmesh.Nav.IsReady"
PLUGIN_SECONDS: Final = 10.0  # how long vnavmesh may take to answer one gate
WALK_PURPOSE: Final = "Walks there for you."
WALK_WITHOUT: Final = "XIV MCP puts a flag on your map and waits while you walk there."
NO_TARGET: Final = "No coordinates given and no flag on the map. Pass x and y, or set a flag first."


async def before_deadline(sleep: Sleep, seconds: float, work: Callable[[], Awaitable[T]]) -> T | None:
    """`work()`'s result, or None when `seconds` pass first on the clock `sleep` sleeps on.

    The deadline's task starts first, so once the work runs (and says so in a progress line)
    the deadline is set: a test that moves the clock after that line cannot move it too early."""
    done: list[T] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as tg:

        async def expire() -> None:
            await sleep(seconds)
            tg.cancel_scope.cancel()

        async def run() -> None:
            try:
                done.append(await work())
            except Exception as exc:  # raised below as itself, not inside an exception group
                failed.append(exc)
            tg.cancel_scope.cancel()

        tg.start_soon(expire)
        tg.start_soon(run)
    if failed:
        raise failed[0]
    return done[0] if done else None


def _yalms(distance: float) -> str:
    """A distance as the real host writes it ({d:0.#}): one decimal at most."""
    return f"{round(distance, 1):g}"


@dataclass(slots=True)
class _Trip:
    """The navigate_to under way: stop_navigation cancels its scope."""

    destination: str
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    phase: str = "starting"


class Navigation:
    """The handlers of navigate_to, get_navigation_status, stop_navigation and wait_until_arrived."""

    def __init__(self, game: GameAccess, sleep: Sleep, now: Callable[[], float]) -> None:
        self._game = game
        self._pi = game.pi
        self._sleep = sleep
        self._now = now
        self._run: _Trip | None = None
        self._trips = Trips(game)

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "navigate_to": self._navigate_to,
            "get_navigation_status": self._status,
            "stop_navigation": self._stop,
            "wait_until_arrived": self._wait_until_arrived,
        }

    def navmesh_loaded(self) -> bool:
        return NAVMESH in self._pi.peers and self._pi.get_ipc_subscriber(MOVE_GATE).has_function()

    # --- navigate_to --------------------------------------------------------------------

    async def _navigate_to(self, args: ToolArgs, on_progress: Say | None) -> dict[str, Any]:
        destination = (text_arg(args, "destination") or "").lower()
        if not destination:
            raise RefusedError("'destination' is required.")
        if destination not in DESTINATIONS:
            raise RefusedError(f"Unknown destination {quote(destination)}. Use one of: {', '.join(DESTINATIONS)}.")
        name = text_arg(args, "name")
        if destination in NAMED and name is None:
            raise RefusedError(f"destination={destination} needs 'name'.")
        timeout = int(clamped(args, "timeout_seconds", 600, 10, 1800))
        if self._run is not None:
            raise RefusedError("A navigation is already running; use stop_navigation first.")
        run = self._run = _Trip(destination)
        try:
            here = await self._game.player()
            if here.player.in_combat:
                raise RefusedError(
                    "Can't navigate right now (character state: InCombat). Call navigate_to again once the fight "
                    "is over."
                )
            return await self._go(run, name or "", timeout, on_progress or (lambda _: None))
        finally:
            self._run = None

    async def _go(self, run: _Trip, name: str, seconds: float, say: Say) -> dict[str, Any]:
        """The trip, found and made before the deadline: what stops it is the answer's reason, as the real host's."""
        steps: list[str] = []
        reason: str | None = None
        at: dict[str, Any] | None = None

        def walk(place: Place) -> Awaitable[dict[str, Any]]:
            return self._travel(run, place, steps, say)

        def phase(now: str) -> None:
            run.phase = now

        try:
            with run.scope:
                at = await before_deadline(
                    self._sleep, seconds, lambda: self._trips.go(run.destination, name, walk, steps, say, phase)
                )
            if run.scope.cancelled_caught:
                reason = "stopped"
            elif at is None:
                reason = "timed out"
        except RefusedError as exc:
            reason = str(exc)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._stop_navmesh()
            raise
        if reason is not None or at is None:
            await self._stop_navmesh()
            return {"arrived": False, "destination": run.destination, "reason": reason or "stopped", "steps": steps}
        return {"arrived": True, "destination": run.destination, "at": at, "steps": steps}

    async def _travel(self, run: _Trip, place: Place, steps: list[str], say: Say) -> dict[str, Any]:
        here = await self._game.player()
        if here.player.territory != place.zone.territory:
            await self._teleport(run, place, steps, say)
        distance = await self._game.distance_to(place.zone.territory, place.position)
        if distance is not None and distance > place.reach + WALK_SLACK:
            if self.navmesh_loaded():
                await self._walk_with_navmesh(run, place, distance, steps)
            else:
                await self._walk_to_flag(run, place, steps, say)
        distance = await self._game.distance_to(place.zone.territory, place.position)
        if distance is None:
            raise RefusedError(f"The character left {place.zone.name} before reaching {place.label}.")
        if distance > place.reach + BLOCKED_SLACK:
            raise RefusedError(f"Stopped {_yalms(distance)} yalms from {place.label}; the path may be blocked.")
        if place.report:
            steps.append(f"At {place.label} ({_yalms(distance)} yalms).")
        return {"name": place.label, "distance": round(distance, 1), "zone": place.zone.name}

    async def _teleport(self, run: _Trip, place: Place, steps: list[str], say: Say) -> None:
        """No teleport plugin here: the player is asked, and XIV MCP waits until they are in the zone."""
        zone, to = place.zone, place.position
        if not zone.aetherytes:
            raise RefusedError(
                f"{zone.name} has no aetheryte to teleport to. Travel there, then call navigate_to again."
            )
        aetheryte = min(zone.aetherytes, key=lambda a: ground_distance(a.position.x, a.position.z, to.x, to.z))
        say(f"Teleport to {aetheryte.name} (in {zone.name}).")
        steps.append(f"Asked you to teleport to {aetheryte.name} (in {zone.name}).")
        run.phase = f"waiting for you to teleport to {aetheryte.name}"

        async def in_zone() -> bool | None:
            here = await self._game.where()
            return True if here is not None and here.player.territory == zone.territory else None

        await self._game.wait_for(in_zone)
        steps.append(f"You are in {zone.name}.")

    async def _walk_to_flag(self, run: _Trip, place: Place, steps: list[str], say: Say) -> None:
        """No vnavmesh: the flag goes on the map, and XIV MCP waits while the player walks there."""
        zone, label = place.zone, place.label
        x, y = to_map(zone.map, place.position.x, place.position.z)
        if place.is_flag:
            say(f"Walk to {label}: the flag is on your map in {zone.name} at ({x:.1f}, {y:.1f}).")
        else:
            await self._game.call(self._game.client.set_flag(x, y, territory=zone.territory, name=label))
            say(f"Walk to {label}: XIV MCP put the flag on your map in {zone.name} at ({x:.1f}, {y:.1f}).")
        steps.append(f"Asked you to walk to {label} (flag on the map).")
        run.phase = f"waiting for you to walk to {label}"
        await self._game.wait_for(self._game.near(zone.territory, place.position, place.reach))
        steps.append(f"You reached {label}.")
        if not place.is_flag:
            await self._game.call(self._game.client.clear_flag())

    async def _walk_with_navmesh(self, run: _Trip, place: Place, distance: float, steps: list[str]) -> None:
        """vnavmesh walks; XIV MCP waits until the character is there or stands still with no path running."""
        to = place.position
        run.phase = f"walking to {place.label}"
        started = await self._navmesh(MOVE_GATE, [to.x, to.y, to.z], False, ARRIVE_RANGE)
        if started is not True:
            raise RefusedError(f"vnavmesh could not start a path to {place.label}.")
        steps.append(f"vnavmesh: walking to {place.label} ({_yalms(distance)} yalms).")
        near = self._game.near(place.zone.territory, to, place.reach)

        async def walked() -> bool | None:
            here = await self._game.where()
            if here is None:
                return None
            if await near() is not None or not (here.moving or await self._navmesh_running()):
                return True
            return None

        await self._game.wait_for(walked)

    # --- vnavmesh -------------------------------------------------------------------------

    async def _navmesh(self, gate: str, *args: object) -> object:
        try:
            with anyio.fail_after(PLUGIN_SECONDS):
                result: object = await self._pi.get_ipc_subscriber(gate).invoke_func(*args)
        except Exception as exc:  # the bus's errors and the time limit alike: vnavmesh did not answer
            raise RefusedError(
                f"vnavmesh did not answer ({type(exc).__name__}). Is it enabled and up to date?"
            ) from None
        return result

    async def _navmesh_running(self) -> bool:
        for gate in RUNNING_GATES:
            if self._pi.get_ipc_subscriber(gate).has_function() and await self._navmesh(gate) is True:
                return True
        return False

    async def _stop_navmesh(self) -> None:
        """Path.Stop, then Nav.PathfindCancelAll (the real StopAll); vnavmesh's trouble is logged, not raised."""
        for gate in STOP_GATES:
            subscriber = self._pi.get_ipc_subscriber(gate)
            try:
                with anyio.fail_after(PLUGIN_SECONDS):
                    if subscriber.has_action():
                        await subscriber.invoke_action()
                    elif subscriber.has_function():
                        await subscriber.invoke_func()
            except Exception as exc:
                log.warning("%s failed: %s: %s", gate, type(exc).__name__, exc)

    # --- get_navigation_status, stop_navigation ---------------------------------------------

    async def _status(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        loaded = self.navmesh_loaded()
        plugins: dict[str, Any] = {}
        if loaded:
            ready = self._pi.get_ipc_subscriber(READY_GATE)
            try:
                mesh_ready = await self._navmesh(READY_GATE) is True if ready.has_function() else None
                moving: bool | None = await self._navmesh_running()
            except RefusedError:
                mesh_ready = moving = None
            plugins[NAVMESH] = {"meshReady": mesh_ready, "moving": moving}
        walk = {"plugin": NAVMESH, "needed": False, "loaded": loaded, "purpose": WALK_PURPOSE, "without": WALK_WITHOUT}
        travel = {"plugin": LIFESTREAM, "needed": False, "loaded": False, "purpose": LIFESTREAM_PURPOSE}
        return {
            "walking": "automatic" if loaded else "the player walks to the map flag",
            "travel": "the player teleports or enters the place",
            "plugins": plugins,
            "navigation": "idle" if self._run is None else self._run.phase,
            "preferredBellLocation": PREFERRED_BELL_LOCATION,
            "requirements": [walk, {**travel, "without": LIFESTREAM_WITHOUT}],
        }

    async def _stop(self, args: ToolArgs, _: Any) -> dict[str, bool]:
        if self._run is not None:
            self._run.scope.cancel()
        await self._stop_navmesh()
        return {"stopped": True}

    # --- wait_until_arrived ---------------------------------------------------------------

    async def _wait_until_arrived(self, args: ToolArgs, on_progress: Say | None) -> dict[str, Any]:
        point = map_point(args)
        radius = clamped(args, "radius", 10, 1, 500)
        minutes = int(clamped(args, "timeout_minutes", 60, 1, 1440))
        if point is None:
            flag = await self._game.call(self._game.client.flag())
            if flag is None:
                raise RefusedError(NO_TARGET)
            territory, target, described = flag.territory, flag.world, f"the flag in {flag.zone}"
        else:
            wanted = text_arg(args, "zone")
            current = (await self._game.player()).player.territory if wanted is None else 0
            zone = await self._game.zone(wanted, current)
            world_x, world_z = to_world(zone.map, *point)
            territory, target = zone.territory, Vec3(x=world_x, z=world_z)
            described = f"{zone.name} ({point[0]:.1f}, {point[1]:.1f})"
        started = self._now()

        async def arrival() -> PlayerReply:
            if on_progress is not None:
                on_progress(f"Waiting until you reach {described} (at most {minutes} minutes).")
            return await self._game.wait_for(self._game.near(territory, target, radius))

        here = await before_deadline(self._sleep, minutes * 60, arrival)
        if here is None:
            raise RefusedError(
                f"Didn't reach {described} within {minutes} minutes. The flag is still set; retry the step to keep "
                "waiting."
            )
        seconds, world = round(self._now() - started), rounded(here.player.position)
        return {"arrived": True, "at": described, "seconds": seconds, "world": world}
