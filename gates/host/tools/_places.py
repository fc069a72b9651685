"""Where navigate_to goes: each destination found in the world, and the places the player goes into (W6).

    flag, object, npc          the map flag; an object of the current zone by name; an NPC anywhere
    summoning_bell             the nearest bell of the zone, else (the preferred bell location, the inn)
                               the player is asked into an inn room and XIV MCP walks to its bell
    company_chest, workshop    the Company Chest / Voyage Control Panel nearby, else into the FC house /
                               workshop first, then to it
    inn, home, fc_house,       the player is asked to go in (no Lifestream here), and XIV MCP waits until
    apartment                  they stand in that kind of place (the real host tells by the territory's
                               intended use: any housing interior counts for a house, as there)
    fishing_spot               by name or FishingSpot id: into its zone, then within its reach of the water

A destination that cannot be reached is the reason of an `arrived: false` answer, as the real host's
(`Trips.go` raises `RefusedError`, `Navigation` answers it). The character's housing is the world's:
a zone of that kind is a property the character has; the real host learns it from Lifestream.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from game import PlayerReply, Vec3, WorldObject, Zone, ground_distance
from gates.contract import RefusedError, quote

from ._game_tools import GameAccess, resolve_zone

__all__ = [
    "ARRIVE_RANGE",
    "FISHER",
    "LIFESTREAM_PURPOSE",
    "LIFESTREAM_WITHOUT",
    "PREFERRED_BELL_LOCATION",
    "SPOT_REACH",
    "Place",
    "Trips",
]

ARRIVE_RANGE: Final = 2.5  # yalms from the destination that count as there (the real host's ArriveRange)
LOCAL_SEARCH_RANGE: Final = 120.0  # how far away a nearby object is looked for (the real LocalSearchRange)
SPOT_REACH: Final = 30.0  # yalms from a fishing spot's centre that count as at its water (the real SpotReach)
FISHER: Final = "Fisher"
PREFERRED_BELL_LOCATION: Final = "inn"
"""Where summoning_bell goes when the zone has none: the real host's /xivmcp setting, here the inn always."""
NAMED: Final = ("object", "npc", "fishing_spot")
LIFESTREAM_PURPOSE: Final = "Teleports you, and enters your house, apartment, inn room or workshop."
LIFESTREAM_WITHOUT: Final = (
    "XIV MCP tells you where to teleport or which place to enter, and waits until you are there."
)

HOUSING: Final = frozenset({"home", "fc_house", "apartment", "workshop"})
_GO_TO: Final = {
    "inn": "Go to your inn room: talk to an innkeeper in any city and enter your room.",
    "fc": "Go into your free company house.",
    "workshop": "Go into your free company workshop.",
    "home": "Go into your house.",
    "apartment": "Go into your apartment.",
}
_ASKED: Final = {"inn": "an inn room", "fc": "your free company house"}
_OWNED: Final = {  # where -> (the zone kind the character must have, what it is called)
    "fc": ("fc_house", "a free company house"),
    "workshop": ("fc_house", "a free company house"),
    "home": ("home", "a private house"),
    "apartment": ("apartment", "an apartment"),
}


@dataclass(frozen=True, slots=True)
class Place:
    """Where a walk goes: what it is called, its zone and its world position."""

    label: str
    zone: Zone
    position: Vec3
    is_flag: bool = False
    """The map flag itself: XIV MCP neither sets nor clears it."""
    reach: float = ARRIVE_RANGE
    """How near counts as there."""
    report: bool = True
    """End with the step "At {label} (d yalms)." (a fishing spot answers with the spot instead)."""


Walk = Callable[[Place], Awaitable[dict[str, Any]]]
"""Gets the character to a place (teleport, then walk) and answers where it stands."""
Ask = Callable[[str], None]


def _named(candidates: list[tuple[Zone, WorldObject]], name: str) -> tuple[Zone, WorldObject] | None:
    """The object of that name (case-insensitive), else the first whose name contains it."""
    folded = name.casefold()
    found = [c for c in candidates if c[1].name.casefold() == folded] or [
        c for c in candidates if folded in c[1].name.casefold()
    ]
    return found[0] if found else None


def reached(where: str, zone: Zone) -> bool:
    """Whether the character stands in the kind of place `where` asked for (the real PlayerGuidance.Reached)."""
    return zone.place == "inn" if where == "inn" else zone.place in HOUSING


class Trips:
    """Finds each destination and takes the character there through `walk` and the player's own steps."""

    def __init__(self, game: GameAccess) -> None:
        self._game = game

    async def go(
        self, destination: str, name: str, walk: Walk, steps: list[str], ask: Ask, phase: Callable[[str], None]
    ) -> dict[str, Any]:
        here = await self._game.player()
        zones = await self._game.zones()
        current = resolve_zone(zones, None, here.player.territory)
        if destination == "flag":
            flag = await self._game.call(self._game.client.flag())
            if flag is None:
                raise RefusedError("There is no flag on the map. Set one with set_map_flag first.")
            return await walk(
                Place(flag.name or "the flag", resolve_zone(zones, str(flag.territory), 0), flag.world, True)
            )
        if destination == "object":
            things = [o for o in current.objects if o.kind != "fishing_spot"]
            found = _named([(current, o) for o in things], name)
            if found is None:
                names = ", ".join(o.name for o in things) or "nothing by name"
                raise RefusedError(f"No object named {quote(name)} in this zone. {current.name} has: {names}.")
            return await walk(Place(found[1].name, current, found[1].position))
        if destination == "npc":
            found = _named([(z, o) for z in zones for o in z.objects if o.kind == "npc"], name)
            if found is None:
                raise RefusedError(
                    f"No NPC named {quote(name)} has a place in the game data. Check the name, or use "
                    "destination=object for something in this zone."
                )
            return await walk(Place(found[1].name, found[0], found[1].position))
        if destination == "fishing_spot":
            return await self._fishing_spot(name, zones, here, walk)
        trip = _OBJECT_TRIPS.get(destination)
        if trip is None:  # inn, home, fc_house, apartment: into the place, and there
            await self._go_into("fc" if destination == "fc_house" else destination, zones, steps, ask, phase)
            return {"zone": (await self._zone_now(zones)).name}
        kind, into, missing = trip
        nearby = self._nearest(current, here, kind)
        if nearby is not None:
            return await walk(Place(nearby.name, current, nearby.position))
        await self._go_into(into, zones, steps, ask, phase)
        inside = await self._game.player()
        there = self._nearest(resolve_zone(zones, None, inside.player.territory), inside, kind)
        if there is None:
            raise RefusedError(missing)
        return await walk(Place(there.name, resolve_zone(zones, None, inside.player.territory), there.position))

    @staticmethod
    def _nearest(zone: Zone, here: PlayerReply, kind: str) -> WorldObject | None:
        """The nearest object of that kind within the local search range, as the real WalkTo finds it."""
        at = here.player.position
        near = [
            (ground_distance(at.x, at.z, o.position.x, o.position.z), index, o)
            for index, o in enumerate(zone.objects)
            if o.kind == kind
        ]
        near = [n for n in near if n[0] <= LOCAL_SEARCH_RANGE]
        return min(near)[2] if near else None

    async def _zone_now(self, zones: list[Zone]) -> Zone:
        return resolve_zone(zones, None, (await self._game.player()).player.territory)

    async def _go_into(
        self, where: str, zones: list[Zone], steps: list[str], ask: Ask, phase: Callable[[str], None]
    ) -> None:
        """No Lifestream: the player is asked to go in, and XIV MCP waits until they stand in such a place."""
        owned = _OWNED.get(where)
        if owned is not None and not any(z.place == owned[0] for z in zones):
            raise RefusedError(f"This character doesn't have {owned[1]}.")
        ask(_GO_TO[where])
        steps.append(f"Asked you to go to {_ASKED.get(where, f'your {where}')}.")
        phase(f"waiting for you to go to {where}")
        kinds = {z.territory: z for z in zones}

        async def inside() -> Zone | None:
            now = await self._game.where()
            zone = None if now is None else kinds.get(now.player.territory)
            return zone if zone is not None and reached(where, zone) else None

        zone = await self._game.wait_for(inside)
        steps.append(f"You arrived in {zone.name}.")

    async def _fishing_spot(self, name: str, zones: list[Zone], here: PlayerReply, walk: Walk) -> dict[str, Any]:
        spots = [(z, o) for z in zones for o in z.objects if o.kind == "fishing_spot"]
        found = next(((z, o) for z, o in spots if name.strip() == str(o.spot)), None) or _named(spots, name)
        if found is None:
            raise RefusedError(f"Fishing spot {quote(name)} has no place in the game data.")
        zone, spot = found
        place = Place(spot.name, zone, spot.position, reach=SPOT_REACH, report=False)
        if await self._game.distance_to(zone.territory, spot.position) is None or not await self._at(place):
            await walk(place)
        can_cast = (await self._game.player()).player.job == FISHER and await self._at(place)
        hint = None
        if not can_cast:
            hint = (
                "Cast cannot be used here yet: step closer to the water and face it."
                if (await self._game.player()).player.job == FISHER
                else "Switch to Fisher (switch_gearset) to fish here."
            )
        return {"spot": {"id": spot.spot, "name": spot.name}, "zone": zone.name, "canCast": can_cast, "hint": hint}

    async def _at(self, place: Place) -> bool:
        distance = await self._game.distance_to(place.zone.territory, place.position)
        return distance is not None and distance <= place.reach


_OBJECT_TRIPS: Final = {  # destination -> (object kind, the place it stands in, the reason when it is missing)
    "summoning_bell": ("summoning_bell", PREFERRED_BELL_LOCATION, "No summoning bell found at the destination."),
    "company_chest": ("company_chest", "fc", "Arrived at the FC house, but no company chest was found."),
    "workshop": ("voyage_panel", "workshop", "Arrived at the workshop, but no voyage control panel was found."),
}
