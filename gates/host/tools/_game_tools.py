"""XIV MCP's core game tools that read the game or set the map flag (W5), over `game.GameClient`.

    GameAccess   the game as the core tools reach it: a failed call becomes a refusal for the
                 assistant, zones resolve by name or territory id, `wait_for` wakes on the game's changes
    GameTools    get_game_status get_character get_position get_inventory search_inventory
                 get_currencies set_map_flag clear_map_flag

Results are the real host's, cut to what the simulated game has. The window tools are in
`_clickers.py` (with the plugins they pause), navigation and waiting in `_navigation.py`. It is
long because `GameAccess`, which every game tool module uses, lives beside the eight tools it first
served; the inventory tools (containers, search, currencies) are the next to move out as they grow.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import anyio

from broker import PluginInterface
from game import (
    GAME_NAME,
    Change,
    GameClient,
    GameError,
    GameUnavailableError,
    PlayerInfo,
    PlayerReply,
    Vec3,
    Zone,
    ground_distance,
)
from gates.contract import RefusedError, quote

from ._args import ToolArgs, ToolHandler
from ._game_definitions import CONTAINER_GROUPS, CONTAINER_HELP, map_point, text_arg

__all__ = ["GAME_NOT_RUNNING", "LOGGED_OUT", "GameAccess", "GameTools", "resolve_zone", "rounded"]

log = logging.getLogger("gates.game_tools")

GAME_NOT_RUNNING: Final = "The game is not running: start it with `xivmcp game` (or `xivmcp up`)."
LOGGED_OUT: Final = "No character is currently logged in."
MAP_AREA: Final = "AreaMap"
"""The game window of the map, which set_map_flag opens at the flag."""
BAG_SLOTS: Final = 140
"""The four main bags of 35 slots."""
BAGS: Final = ("Inventory1", "Inventory2", "Inventory3", "Inventory4")
CRYSTAL_IDS: Final = range(2, 20)
"""Shards, crystals and clusters: the game keeps them in a container of their own."""
CRYSTAL_SLOTS: Final = 18
GIL_ITEM: Final = 1
MGP: Final = 29
WOLF_MARKS: Final = 25

T = TypeVar("T")
R = TypeVar("R")


def rounded(position: Vec3, digits: int = 2) -> dict[str, float]:
    return {"x": round(position.x, digits), "y": round(position.y, digits), "z": round(position.z, digits)}


def _eorzea_time(seconds: float) -> str:
    """'HH:MM' of Eorzea, where a day lasts 70 minutes (the real host's formula, on the game's clock)."""
    eorzea = seconds * 3600 / 175
    return f"{int(eorzea / 3600) % 24:02d}:{int(eorzea / 60) % 60:02d}"


def resolve_zone(zones: Sequence[Zone], wanted: str | None, current: int) -> Zone:
    """A zone by territory id or name (exact, then part of a name), or the current one (the real ResolveZone)."""
    if wanted is None:
        here = next((z for z in zones if z.territory == current), None)
        if here is None:
            raise RefusedError("The current zone isn't known.")
        return here
    folded = wanted.casefold()
    if wanted.isdigit():
        found = [z for z in zones if z.territory == int(wanted)]
    else:
        found = [z for z in zones if z.name.casefold() == folded] or [z for z in zones if folded in z.name.casefold()]
    if len(found) > 1:
        names = ", ".join(z.name for z in found[:8])
        raise RefusedError(f"{quote(wanted)} matches several zones: {names}. Use the full name.")
    if not found:
        names = ", ".join(f"{z.name} ({z.territory})" for z in zones[:20])
        raise RefusedError(f"No zone called {quote(wanted)}. Use one of these names or territory ids: {names}.")
    return found[0]


def _current_world(player: PlayerInfo) -> dict[str, Any]:
    """The world the character is on now (its home world unless it visits another)."""
    if player.current_world_id is None or player.current_world is None:
        return {"id": player.world_id, "name": player.world}
    return {"id": player.current_world_id, "name": player.current_world}


def _distance(here: PlayerReply | None, territory: int, to: Vec3) -> float | None:
    if here is None or here.player.territory != territory:
        return None
    return ground_distance(here.player.position.x, here.player.position.z, to.x, to.z)


class GameAccess:
    """The simulated game as XIV MCP's core tools reach it, and its changes as they happen."""

    def __init__(self, pi: PluginInterface) -> None:
        self.pi = pi
        self.client = GameClient(pi)
        self._changed: anyio.Event | None = None
        self._listeners: list[Callable[[Change], Awaitable[None]]] = []
        self._subscribed = False

    async def call(self, pending: Awaitable[T]) -> T:
        """The game's answer; its refusal, or no game at all, as a refusal for the assistant."""
        try:
            return await pending
        except GameUnavailableError:
            raise RefusedError(GAME_NOT_RUNNING) from None
        except GameError as exc:
            raise RefusedError(exc.message) from None

    async def player(self) -> PlayerReply:
        """The logged-in character (refused while logged out, as the real host's RunLoggedIn)."""
        reply = await self.call(self.client.player())
        if not reply.player.logged_in:
            raise RefusedError(LOGGED_OUT)
        return reply

    async def where(self) -> PlayerReply | None:
        """The character now, or None while it is not in the world (logged out, or the game away): a
        wait goes on through that, as the real host's waits do through loading screens."""
        try:
            reply = await self.client.player()
        except GameUnavailableError:
            return None
        except GameError as exc:
            raise RefusedError(exc.message) from None
        return reply if reply.player.logged_in else None

    async def distance_to(self, territory: int, to: Vec3) -> float | None:
        """Yalms on the ground from the character to `to`, or None while it is elsewhere or away."""
        return _distance(await self.where(), territory, to)

    def near(self, territory: int, to: Vec3, radius: float) -> Callable[[], Awaitable[PlayerReply | None]]:
        """A check for `wait_for`: the character, once it is within `radius` yalms of `to` in `territory`."""

        async def check() -> PlayerReply | None:
            here = await self.where()
            distance = _distance(here, territory, to)
            return here if distance is not None and distance <= radius else None

        return check

    async def zones(self) -> list[Zone]:
        return await self.call(self.client.zones())

    async def zone(self, wanted: str | None, current: int) -> Zone:
        return resolve_zone(await self.zones(), wanted, current)

    def on_change(self, listener: Callable[[Change], Awaitable[None]]) -> Callable[[], None]:
        """Run `listener(change)` for every change of the game from now on; returns what stops it."""
        self._listeners.append(listener)
        self._subscribe()
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def wait_for(self, check: Callable[[], Awaitable[R | None]]) -> R:
        """Run `check` now and again after each change of the game (or the game coming or going)
        until it returns something; never polls. Use under a timeout."""
        while True:
            self._subscribe()
            if self._changed is None:
                self._changed = anyio.Event()
            changed = self._changed  # taken before the check: a change during it wakes the wait at once
            found = await check()
            if found is not None:
                return found
            await changed.wait()

    def _subscribe(self) -> None:
        # Subscribed once, on first need: the broker then holds the subscription before this
        # process's next call to the game, so no change that call causes can be missed.
        if self._subscribed:
            return
        try:
            self.client.on_change(self._game_changed)
        except GameError as exc:
            raise RefusedError(f"XIV MCP could not follow the game's changes: {exc.message}") from None
        self.pi.on_peer_change(self._peer_changed)
        self._subscribed = True

    async def _game_changed(self, change: Change) -> None:
        self._wake()
        for listener in list(self._listeners):
            try:
                await listener(change)
            except RefusedError as exc:  # the game went away meanwhile, most likely
                log.info("a listener of the game's changes could not follow change %d: %s", change.seq, exc)
            except Exception:
                log.exception("a listener of the game's changes failed on change %d", change.seq)

    async def _peer_changed(self, name: str, joined: bool, reason: str) -> None:
        if name == GAME_NAME:
            self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()


def _groups(args: ToolArgs, default: tuple[str, ...]) -> list[str]:
    """Container groups as sent: a list, or a comma-separated string (the real host's `StringList`)."""
    raw = args.values.get("containers")
    if isinstance(raw, str) and not raw.lstrip().startswith("["):
        names = raw.split(",")
    else:
        names = [str(n) for n in args.items("containers")]  # a list, or a list in a JSON string
    chosen = [n.strip().lower() for n in names if n.strip()]
    for name in chosen:
        if name not in CONTAINER_GROUPS:
            raise RefusedError(f"Unknown container {quote(name)}. {CONTAINER_HELP}")
    return list(dict.fromkeys(chosen)) or list(default)


class GameTools:
    """The handlers of the reading and map flag tools."""

    def __init__(self, pi: PluginInterface) -> None:
        self.game = GameAccess(pi)

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "get_game_status": self._status,
            "get_character": self._character,
            "get_position": self._position,
            "get_inventory": self._inventory,
            "search_inventory": self._search,
            "get_currencies": self._currencies,
            "set_map_flag": self._set_flag,
            "clear_map_flag": self._clear_flag,
        }

    async def _status(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        reply = await self.game.call(self.game.client.player())
        clock = await self.game.call(self.game.client.time())
        player, here = reply.player, reply.player.logged_in
        return {
            "loggedIn": here,
            "character": player.name if here else None,
            "world": _current_world(player) if here else None,
            "territory": {"id": player.territory, "name": reply.zone} if here else None,
            "conditions": ["InCombat"] if here and player.in_combat else [],
            "eorzeaTime": _eorzea_time(clock.time),
        }

    async def _character(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        player = (await self.game.player()).player
        return {
            "name": player.name,
            "contentId": player.content_id,
            "homeWorld": {"id": player.world_id, "name": player.world},
            "currentWorld": _current_world(player),
            "classJob": player.job,
            "level": player.level,
            "position": rounded(player.position),
        }

    async def _position(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self.game.player()
        where = await self.game.call(self.game.client.position())
        flag = await self.game.call(self.game.client.flag())
        shown = None
        if flag is not None:
            same = flag.territory == where.territory
            distance = ground_distance(where.position.x, where.position.z, flag.world.x, flag.world.z)
            shown = {
                "zone": flag.zone,
                "territoryId": flag.territory,
                "coordinates": {"x": round(flag.x, 1), "y": round(flag.y, 1)},
                "distance": round(distance, 1) if same else None,
            }
        return {
            "zone": {"id": where.territory, "name": where.zone},
            "map": {"name": where.zone, "coordinates": {"x": round(where.map_x, 1), "y": round(where.map_y, 1)}},
            "world": rounded(where.position),
            "flag": shown,
        }

    async def _containers(self, groups: list[str]) -> list[dict[str, Any]]:
        """Each group as the real host lists its containers: slots, how many are used, and the items
        at their slots (the bags are Inventory1-4 of 35 slots, the names `move_items` takes)."""
        reply = await self.game.call(self.game.client.inventory())
        names = {i.item_id: i.name for i in reply.items}
        listed: list[tuple[str, int, list[tuple[int, int, str, int]]]] = []
        for group in groups:
            if group == "currency":
                money = await self.game.call(self.game.client.currencies())
                held = [(GIL_ITEM, "Gil", money.gil), *((c.id, c.name, c.count) for c in money.currencies)]
                listed.append((group, len(held), [(slot, *stack) for slot, stack in enumerate(held)]))
            elif group == "crystals":
                held = [(i.item_id, i.name, i.count) for i in reply.items if i.item_id in CRYSTAL_IDS]
                listed.append((group, CRYSTAL_SLOTS, [(slot, *stack) for slot, stack in enumerate(held)]))
            else:
                for bag in BAGS:
                    stacks = sorted(
                        (s.slot, s.item_id, names.get(s.item_id, ""), s.count) for s in reply.bags if s.container == bag
                    )
                    listed.append((bag, BAG_SLOTS // len(BAGS), stacks))
        return [
            {
                "container": container,
                "slots": slots,
                "used": len(stacks),
                "items": [
                    {"slot": slot, "itemId": item, "name": name, "quantity": n} for slot, item, name, n in stacks
                ],
            }
            for container, slots, stacks in listed
        ]

    async def _inventory(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        groups = _groups(args, ("bags",))
        args.boolean("include_details", False)  # checked, though there are no details to add
        await self.game.player()
        containers = await self._containers(groups)
        bags = await self._containers(["bags"]) if "bags" not in groups else containers
        used = sum(c["used"] for c in bags if c["container"] in BAGS)
        return {"freeBagSlots": BAG_SLOTS - used, "containers": containers}

    async def _search(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        query = text_arg(args, "query")
        item_id = None if args.values.get("item_id") is None else args.integer("item_id", 0, 1)
        if query is None and item_id is None:
            raise RefusedError("Provide 'query' or 'item_id'.")
        groups = _groups(args, ("bags", "crystals"))
        args.boolean("include_retainers", True)
        await self.game.player()
        found: dict[int, dict[str, Any]] = {}
        for container in await self._containers(groups):
            for item in container["items"]:
                if item["itemId"] != item_id and (query is None or query.casefold() not in item["name"].casefold()):
                    continue
                entry = found.setdefault(
                    item["itemId"],
                    {"itemId": item["itemId"], "name": item["name"], "totalQuantity": 0, "locations": []},
                )
                entry["totalQuantity"] += item["quantity"]
                location = {"container": container["container"], "slot": item["slot"], "quantity": item["quantity"]}
                entry["locations"].append({**location, "hq": False})
        return {"items": list(found.values()), "retainerCaches": None, "storageCaches": None}

    async def _currencies(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self.game.player()
        money = await self.game.call(self.game.client.currencies())
        counts = {c.id: c.count for c in money.currencies}
        return {
            "gil": money.gil,
            "mgp": counts.get(MGP, 0),
            "wolfMarks": counts.get(WOLF_MARKS, 0),
            "tomestones": [
                {"itemId": c.id, "name": c.name, "count": c.count}
                for c in money.currencies
                if c.name.startswith("Allagan Tomestone")
            ],
            "currencyContainer": [{"itemId": c.id, "name": c.name, "quantity": c.count} for c in money.currencies],
        }

    # --- the map flag -------------------------------------------------------------------

    async def _set_flag(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        point = map_point(args)
        if point is None:
            raise RefusedError("'x' (map X coordinate) is required.")
        x, y = point
        open_map = args.boolean("open_map", True)
        name = text_arg(args, "name")
        here = (await self.game.player()).player
        zone = await self.game.zone(text_arg(args, "zone"), here.territory)
        await self.game.call(self.game.client.set_flag(x, y, territory=zone.territory, name=name))
        flag = await self.game.call(self.game.client.flag())
        distance = None
        if flag is not None and zone.territory == here.territory:
            distance = round(ground_distance(here.position.x, here.position.z, flag.world.x, flag.world.z), 1)
        return {
            "flag": {
                "zone": zone.name,
                "territoryId": zone.territory,
                "map": zone.name,
                "x": round(x, 1),
                "y": round(y, 1),
                "name": name,
            },
            "distance": distance,
            "mapOpened": open_map and await self._open_map(),
        }

    async def _open_map(self) -> bool:
        """Open the map window at the flag; a map that can't be opened leaves the flag set all the same."""
        try:
            if any(w.name == MAP_AREA for w in await self.game.client.windows()):
                return True
            await self.game.client.open_window(MAP_AREA)
        except GameError as exc:
            log.info("the flag is set but the map did not open: %s", exc)
            return False
        return True

    async def _clear_flag(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self.game.player()
        had = await self.game.call(self.game.client.flag()) is not None
        if had:
            await self.game.call(self.game.client.clear_flag())
        return {"cleared": had}
