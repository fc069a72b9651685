"""XIV MCP's reading tools of what is around the character (W5): get_party get_targets
get_nearby_objects get_weather_forecast, over the game's party, object table and weather.

Objects are described as the real host's `Game.Describe` does (`XivMcp/Util/Game.cs`): name, kind,
ids, distance (in three dimensions, rounded to 0.01 yalm), position, and for characters their
level, class or job and HP, with more when `detailed`. The party, the targets and the objects
refuse while no character is logged in; the forecast answers for any zone even then (the real
host's runs without `RunLoggedIn`). They only read.
"""

from __future__ import annotations

import datetime
import math
from typing import Any, Final

from game import (
    CHARACTER_KINDS,
    OBJECT_KINDS,
    GameObject,
    PartyMember,
    PlayerReply,
    Vec3,
    WeatherPeriod,
    Zone,
    eorzea_clock,
    eorzea_hour,
    player_entity_id,
    weather_at,
    weather_periods,
)
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._character_tools import class_job_ref
from ._game_definitions import optional_number, text_arg
from ._game_tools import GameAccess, rounded
from ._reading_definitions import string_list, whole_number

__all__ = ["Surroundings", "describe"]

BATTLE_KINDS: Final = frozenset({"Pc", "BattleNpc"})
"""Kinds that fight (the game's BattleChara): they have status effects and a cast bar."""
LOOK_AHEAD: Final = 300
"""Weather periods searched for the next of a weather (about five real days)."""
_KIND_BY_NAME: Final = {kind.casefold(): kind for kind in OBJECT_KINDS}


def _distance(a: Vec3, b: Vec3) -> float:
    return math.dist((a.x, a.y, a.z), (b.x, b.y, b.z))


def describe(thing: GameObject, detailed: bool, here: Vec3) -> dict[str, Any]:
    """One object as the real host describes it to the assistant."""
    shown: dict[str, Any] = {
        "name": thing.name,
        "kind": thing.kind,
        "gameObjectId": thing.game_object_id,
        "entityId": thing.entity_id,
        "baseId": thing.base_id,
        "distance": round(_distance(here, thing.position), 2),
        "position": rounded(thing.position),
        "targetable": thing.targetable,
        "dead": thing.dead,
    }
    if thing.kind in CHARACTER_KINDS:
        shown["level"] = thing.level
        shown["classJob"] = class_job_ref(thing.class_job)
        shown["hp"] = {"current": thing.hp, "max": thing.max_hp}
        if detailed:
            shown["mp"] = {"current": thing.mp, "max": thing.max_mp}
            shown.update(companyTag=None, onlineStatus=None, mount=None, minion=None)
    if thing.kind == "Pc":
        world = {"id": thing.home_world_id, "name": thing.home_world}
        shown["homeWorld"], shown["currentWorld"] = world, dict(world)
    if thing.kind in BATTLE_KINDS and detailed:
        shown["statuses"] = []
    return shown


def _kinds(args: ToolArgs) -> set[str]:
    """The kinds asked for, by name (any case) or by the game's number, as the real host parses them."""
    kinds: set[str] = set()
    for text in string_list(args, "kinds"):
        if text.isdigit():
            kinds.add(OBJECT_KINDS[int(text)] if int(text) < len(OBJECT_KINDS) else text)
        elif text.casefold() in _KIND_BY_NAME:
            kinds.add(_KIND_BY_NAME[text.casefold()])
        else:
            raise RefusedError(f"Unknown kind '{text}'.")
    return kinds


def _period(period: WeatherPeriod, now: float) -> dict[str, Any]:
    start = datetime.datetime.fromtimestamp(period.start, tz=datetime.UTC)
    return {
        "starts": start.strftime("%Y-%m-%d %H:%M"),
        "inMinutes": max(0, round((period.start - now) / 60)),
        "eorzeaTime": eorzea_clock(eorzea_hour(period.start)),
        "weather": period.weather,
        "after": period.previous,
    }


class Surroundings:
    """The handlers of the tools that read around the character, over the host's one `GameAccess`."""

    def __init__(self, game: GameAccess) -> None:
        self.game = game

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "get_party": self._party,
            "get_targets": self._targets,
            "get_nearby_objects": self._nearby,
            "get_weather_forecast": self._weather,
        }

    async def _party(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        me = (await self.game.player()).player
        others = await self.game.call(self.game.client.party())
        if not others:
            return {"size": 0, "isAlliance": False, "leaderIndex": None, "members": []}
        sheet = (await self.game.call(self.game.client.character_sheet())).sheet
        zones = {zone.territory: zone.name for zone in await self.game.zones()}
        myself = PartyMember(
            name=me.name,
            world=me.world,
            world_id=me.world_id,
            content_id=me.content_id,
            job=me.job,
            level=me.level,
            territory=me.territory,
            position=me.position,
            max_hp=sheet.max_hp,
            max_mp=sheet.max_mp,
        )
        members = [myself, *others]
        leader = next((index for index, m in enumerate(members) if m.leader), 0)
        listed = [
            {
                "index": index,
                "name": m.name,
                "contentId": m.content_id,
                "entityId": player_entity_id(m.content_id),
                "world": {"id": m.world_id, "name": m.world},
                "classJob": class_job_ref(m.job),
                "level": m.level,
                "hp": {"current": m.max_hp, "max": m.max_hp},
                "mp": {"current": m.max_mp, "max": m.max_mp},
                "territory": {"id": m.territory, "name": zones.get(m.territory)},
                "position": rounded(m.position),
                "distance": round(_distance(me.position, m.position), 2),
                "statuses": [],
            }
            for index, m in enumerate(members)
        ]
        return {"size": len(members), "isAlliance": False, "leaderIndex": leader, "members": listed}

    async def _targets(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self.game.player()
        table = await self.game.call(self.game.client.objects())
        target = None
        if table.target is not None:
            named = [o for o in table.objects if o.name.casefold() == table.target.casefold()]
            named.sort(key=lambda o: _distance(table.position, o.position))
            # A name Game.SetTarget took that stands nowhere in the zone: described by its name alone.
            target = describe(named[0], True, table.position) if named else {"name": table.target, "kind": "None"}
        nothing = dict.fromkeys(("focusTarget", "softTarget", "mouseOverTarget", "previousTarget"))
        return {"target": target, **nothing}

    async def _nearby(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self.game.player()
        kinds = _kinds(args)
        query = text_arg(args, "query")
        max_distance = optional_number(args, "max_distance", "30")
        limit = whole_number(args, "limit", 50, 1, 500)
        detailed = args.boolean("detailed", False)
        table = await self.game.call(self.game.client.objects())
        found = [
            (_distance(table.position, o.position), o)
            for o in table.objects
            if (not kinds or o.kind in kinds) and (query is None or query.casefold() in o.name.casefold())
        ]
        found = sorted((pair for pair in found if max_distance is None or pair[0] <= max_distance), key=lambda p: p[0])
        return {"total": len(found), "objects": [describe(o, detailed, table.position) for _, o in found[:limit]]}

    async def _weather(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        me: PlayerReply = await self.game.call(self.game.client.player())
        here = me.player.territory if me.player.logged_in else 0
        zone: Zone = await self.game.zone(text_arg(args, "zone"), here)
        rates = [rate for rate in zone.weather if rate.rate > 0]
        if not rates:
            raise RefusedError(f"{zone.name} has no weather of its own.")
        count = whole_number(args, "count", 6, 1, 24)
        now = (await self.game.call(self.game.client.time())).time
        coming = None
        wanted = text_arg(args, "weather")
        if wanted is not None:
            weathers = list(dict.fromkeys(rate.weather for rate in rates))
            match = next((w for w in weathers if wanted.casefold() in w.casefold()), None)
            if match is None:
                raise RefusedError(f"{zone.name} never has '{wanted}'. Its weathers: {', '.join(weathers)}.")
            ahead = weather_periods(rates, now, LOOK_AHEAD)
            coming = [_period(p, now) for p in ahead if p.weather == match][:3]
        return {
            "zone": {"id": zone.territory, "name": zone.name},
            "eorzeaTime": eorzea_clock(eorzea_hour(now)),
            "chances": [{"weather": rate.weather, "percent": rate.rate} for rate in rates],
            "onScreen": weather_at(rates, now) if zone.territory == here else None,
            "periods": [_period(p, now) for p in weather_periods(rates, now, count)],
            "source": "the game's own forecast" if here else "worked out from the game's data",
            "next": coming,
        }
