"""The simulated world's state, and the one way it changes: `GameEngine.record` (W2).

The engine holds the `World`, the clock and the change log, and knows no bus: the gates
(`_gates`) call it with the caller's name. Every change goes through `record`, which takes the
snapshot before and after it, so a change's delta is exactly what it did, and tells the
listeners (the gates broadcast `Game.Changed`). A gate validates everything first and records
after, so a refused call changes nothing.

Walking does not tick: the character's position is computed from the walk (`Movement`: where
from, where to, how fast, since when) and the clock. The arrival is recorded by `resolve`, which
the gates run before every call and the real clock's timer runs at the time of arrival.

Inventory and currencies belong to the account here (every character sees the same bags); gil,
zone and position to each character. The snapshot reads the current character even while
logged out: the host checks nothing then (W3).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Final

from gates.contract import CapabilityId

from ._bag_layout import reconcile
from ._changes import ChangeLog, delta_between
from ._clock import Clock
from ._documents import (
    Aetheryte,
    Change,
    Currency,
    GameSnapshot,
    InventoryItem,
    ItemInfo,
    Movement,
    PositionInfo,
    Vec3,
    World,
    Zone,
)
from ._errors import Refusal
from ._maps import ground_distance, to_map

__all__ = ["GIL_CAP", "MAX_HELD", "GameEngine", "yalms"]

GIL_CAP: Final = 999_999_999
"""The most gil a character can hold, as in the game."""
MAX_HELD: Final = 999_999
"""The most of one item the bags hold here."""
_THERE: Final = 1e-6
"""Yalms under which a walk has nowhere to go."""


def yalms(value: float) -> str:
    return f"{value:.1f}"


class GameEngine:
    """The world, its clock and its change log; `record` is the only way the world changes."""

    def __init__(
        self, world: World, clock: Clock, *, save_path: Path | None = None, worlds: Path | None = None
    ) -> None:
        self.world = world
        reconcile(world)  # a world file without a slot layout gets one from its counts
        self._start = copy.deepcopy(world)
        """The world as the game started with it, for `restore_start` (`Game.Reset`)."""
        self.clock = clock
        self.log = ChangeLog()
        self.save_path = save_path
        self.worlds = worlds
        """The world folder `Game.Save` writes named worlds into (None: the game has no data dir)."""
        self.change_listeners: list[Callable[[Change], None]] = []
        """Called with each change once it is recorded (the gates broadcast it)."""
        self.reset_listeners: list[Callable[[int], None]] = []
        """Called with the newest change's seq when `restore_start` put the world back."""
        self.walk_listeners: list[Callable[[], None]] = []
        """Called when a walk starts or ends (the real clock's arrival timer waits on it)."""
        self._index()

    def _index(self) -> None:
        """Look-ups by territory and item id into the world as it is now."""
        self._zones = {zone.territory: zone for zone in self.world.zones}
        self._catalog = {item.item_id: item for item in self.world.items}

    def restore_start(self) -> None:
        """Put the world back as the game started with it (`Game.Reset`, tests only).

        Not a change of the world that a process made, so nothing is recorded: the change log
        and its seq go on as they were, and the clock is not moved back.
        """
        self.world = copy.deepcopy(self._start)
        self._index()
        self._walk_changed()  # a walk under way has ended (the real clock's arrival timer looks again)
        for listener in list(self.reset_listeners):
            listener(self.log.seq)

    # --- looking things up -------------------------------------------------------------

    def now(self) -> float:
        return self.clock.now()

    def zone(self, territory: int) -> Zone:
        zone = self._zones.get(territory)
        if zone is None:
            known = ", ".join(f"{z.territory} ({z.name})" for z in self.world.zones)
            raise Refusal(f"there is no zone with territory {territory}; this world has {known} (Game.GetZones)")
        return zone

    def zone_named(self, name: str) -> Zone:
        wanted = name.strip().casefold()
        for zone in self.world.zones:
            if zone.name.casefold() == wanted:
                return zone
        known = ", ".join(repr(z.name) for z in self.world.zones)
        raise Refusal(f"there is no zone named {name!r}; this world has {known} (Game.GetZones)")

    @property
    def current_zone(self) -> Zone:
        return self.zone(self.world.player.territory)

    def item(self, item_id: int) -> ItemInfo:
        item = self._catalog.get(item_id)
        if item is None:
            raise Refusal(f"no item has itemId {item_id} in this game's catalog; Game.GetItems lists the items")
        return item

    def held(self, item_id: int) -> int:
        return next((i.count for i in self.world.inventory if i.item_id == item_id), 0)

    def item_name(self, item_id: int) -> str:
        item = self._catalog.get(item_id)
        if item is not None:
            return item.name
        return next((i.name for i in self.world.inventory if i.item_id == item_id), f"item {item_id}")

    def currency(self, currency_id: int) -> Currency | None:
        return next((c for c in self.world.currencies if c.id == currency_id), None)

    def find_aetheryte(self, wanted: str | int) -> tuple[Zone, Aetheryte]:
        text = str(wanted).strip().casefold()
        for zone in self.world.zones:
            for aetheryte in zone.aetherytes:
                if aetheryte.name.casefold() == text or str(aetheryte.id) == text:
                    return zone, aetheryte
        known = [f"{a.name} ({a.id})" for z in self.world.zones for a in z.aetherytes]
        shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
        raise Refusal(f"there is no aetheryte {wanted!r}; give a name or id of one of: {shown or 'none'}")

    # --- what the host reads -----------------------------------------------------------

    def snapshot(self) -> GameSnapshot:
        player = self.world.player
        return GameSnapshot(
            logged_in=player.logged_in,
            content_id=player.content_id,
            territory=player.territory,
            world=player.world_id if player.current_world_id is None else player.current_world_id,
            gil=player.gil,
            currencies={c.id: c.count for c in self.world.currencies},
            item_total=sum(i.count for i in self.world.inventory),
            chat_sent=self.world.chat_sent,
        )

    def record(
        self,
        by: str,
        capability: CapabilityId,
        kind: str,
        summary: str,
        apply: Callable[[], None],
        at: float | None = None,
    ) -> Change:
        """Apply one change (`apply`), log it with its delta, and tell the listeners."""
        before = self.snapshot()
        apply()
        reconcile(self.world)  # the bags' stacks follow the counts, however they changed
        delta = delta_between(before, self.snapshot())
        change = self.log.append(
            at=self.now() if at is None else at,
            by=by,
            capability=capability.value,
            kind=kind,
            summary=summary,
            delta=delta,
        )
        for listener in list(self.change_listeners):
            listener(change)
        return change

    # --- checks every gate shares ------------------------------------------------------

    def require_logged_in(self, doing: str) -> None:
        if not self.world.player.logged_in:
            raise Refusal(
                f"the character is logged out and cannot {doing}; log in first "
                "(Game.Login, or `xivmcp game set logged_in true`)"
            )

    def place(self, position: Vec3, territory: int | None = None) -> str:
        """'(x, z) in Zone (map X, Y)', as summaries and messages say where."""
        zone = self.zone(self.world.player.territory if territory is None else territory)
        map_x, map_y = to_map(zone.map, position.x, position.z)
        return f"({yalms(position.x)}, {yalms(position.z)}) in {zone.name} (map {map_x:.1f}, {map_y:.1f})"

    # --- walking -----------------------------------------------------------------------

    @property
    def moving(self) -> bool:
        return self.world.movement is not None

    def position_now(self) -> Vec3:
        """Where the character is at this moment (part way along a walk while walking)."""
        walk = self.world.movement
        if walk is None:
            return self.world.player.position
        distance = ground_distance(walk.origin.x, walk.origin.z, walk.destination.x, walk.destination.z)
        if distance < _THERE:
            return walk.destination
        done = min(1.0, max(0.0, self.now() - walk.started_at) * walk.speed / distance)
        o, d = walk.origin, walk.destination
        return Vec3(x=o.x + (d.x - o.x) * done, y=o.y + (d.y - o.y) * done, z=o.z + (d.z - o.z) * done)

    def arrival_time(self) -> float | None:
        walk = self.world.movement
        if walk is None:
            return None
        distance = ground_distance(walk.origin.x, walk.origin.z, walk.destination.x, walk.destination.z)
        return walk.started_at + distance / walk.speed

    def position_info(self) -> PositionInfo:
        zone = self.current_zone
        here = self.position_now()
        map_x, map_y = to_map(zone.map, here.x, here.z)
        walk = self.world.movement
        return PositionInfo(
            territory=zone.territory,
            zone=zone.name,
            position=here,
            map_x=map_x,
            map_y=map_y,
            moving=walk is not None,
            destination=None if walk is None else walk.destination,
        )

    def resolve(self) -> list[Change]:
        """Record the arrival if the walk is over by now (at the time it ended)."""
        eta = self.arrival_time()
        walk = self.world.movement
        if eta is None or walk is None or self.now() < eta:
            return []

        def arrive() -> None:
            self.world.player.position = walk.destination
            self.world.movement = None

        change = self.record(
            walk.by, CapabilityId.MOVE_CHARACTER, "position", f"arrived at {self.place(walk.destination)}", arrive, eta
        )
        self._walk_changed()
        return [change]

    def walk_to(self, by: str, destination: Vec3) -> tuple[Change | None, float, float]:
        """Start walking to `destination` from where the character is: (the change, yalms, seconds)."""
        start = self.position_now()
        distance = ground_distance(start.x, start.z, destination.x, destination.z)
        if distance < _THERE:  # already there: a walk elsewhere ends here
            if not self.moving:
                return None, 0.0, 0.0
            summary = f"stopped at {self.place(start)}"
            return self.record(by, CapabilityId.MOVE_CHARACTER, "position", summary, self.halt), 0.0, 0.0
        speed = self.world.walk_speed
        walk = Movement(origin=start, destination=destination, speed=speed, started_at=self.now(), by=by)

        def start_walking() -> None:
            self.world.player.position = start
            self.world.movement = walk

        seconds = distance / speed
        summary = f"walking to {self.place(destination)}: {yalms(distance)} yalms, {seconds:.1f} s"
        change = self.record(by, CapabilityId.MOVE_CHARACTER, "position", summary, start_walking)
        self._walk_changed()
        return change, distance, seconds

    def halt(self) -> None:
        """End a walk where the character is now (inside a change that moves it some other way)."""
        if self.world.movement is None:
            return
        self.world.player.position = self.position_now()
        self.world.movement = None
        self._walk_changed()

    def retime_walk(self, speed: float) -> None:
        """Carry on walking from here at a new speed (the walk speed changed)."""
        walk = self.world.movement
        if walk is None:
            return
        here = self.position_now()
        self.world.player.position = here
        self.world.movement = Movement(
            origin=here, destination=walk.destination, speed=speed, started_at=self.now(), by=walk.by
        )
        self._walk_changed()

    def _walk_changed(self) -> None:
        for listener in list(self.walk_listeners):
            listener()

    # --- bags ----------------------------------------------------------------------------

    def add_items(self, item_id: int, count: int) -> None:
        for held in self.world.inventory:
            if held.item_id == item_id:
                held.count += count
                return
        self.world.inventory.append(InventoryItem(item_id=item_id, name=self.item_name(item_id), count=count))

    def remove_items(self, item_id: int, count: int) -> None:
        for held in self.world.inventory:
            if held.item_id == item_id:
                held.count -= count
                if held.count <= 0:
                    self.world.inventory.remove(held)
                return
