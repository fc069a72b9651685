"""Using what stands near the character, and the menus that opens (W5, W8; the real InteractionTools).

    interact_with_object  the nearest object by name (or its gameObjectId) within 8 yalms ─► Game.Interact
                          ─► the windows that opened; none: "The game did not react ..."
    get_menu              the open menu's entries (SelectString), whether a line of dialogue waits (Talk),
                          and the open windows
    select_menu_option    an entry by index, exact text or start of its text ─► Game.SelectMenu; or
                          advance_dialogue: the waiting Talk clicked away (Game.CloseWindow)

At a summoning bell XIV MCP holds the bell first (`Bell.acquire`: AutoRetainer suppressed, refused
while it works) and pauses YesAlready and TextAdvance until the RetainerList it opened is closed, as
the real `AcquireBell`. An NPC's menu pauses nothing, as in the real host: a Yes/No dialog an entry
opens is YesAlready's to answer when it is on the bus, else the player's.
"""

from __future__ import annotations

import math
from typing import Any, Final

from game import Window, Zone
from gates.contract import RefusedError, quote

from ._args import ToolArgs, ToolHandler
from ._bell import Bell
from ._clickers import WindowTools
from ._game_definitions import text_arg
from ._game_tools import GameAccess, resolve_zone
from ._interaction_definitions import MAX_INTERACT_DISTANCE

__all__ = ["MENU", "RETAINER_LIST", "TALK", "Interaction"]

MENU: Final = "SelectString"
TALK: Final = "Talk"
RETAINER_LIST: Final = "RetainerList"
AUTORETAINER_AT_BELL: Final = "paused while XIV MCP uses the bell; resumes when the bell is closed"
BELL_NEXT: Final = (
    "Use open_retainer / get_retainers / transfer_retainer_items; close_retainer with close_list=true closes the bell."
)


def _yalms(distance: float) -> str:
    return f"{round(distance, 1):g}"


def _menu(windows: list[Window]) -> list[str] | None:
    return next((w.menu for w in windows if w.name == MENU), None)


class Interaction:
    """The handlers of interact_with_object, get_menu and select_menu_option."""

    def __init__(self, game: GameAccess, windows: WindowTools, bell: Bell) -> None:
        self._game = game
        self._windows = windows
        self._bell = bell

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "interact_with_object": self._interact,
            "get_menu": self._get_menu,
            "select_menu_option": self._select,
        }

    async def _open(self) -> list[Window]:
        return await self._game.call(self._game.client.windows())

    # --- interact_with_object ---------------------------------------------------------------

    async def _interact(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = text_arg(args, "name")
        raw_id = args.values.get("game_object_id")
        if name is None and raw_id is None:
            raise RefusedError("Give 'name' or 'game_object_id'.")
        wanted_id = None if raw_id is None else _object_id(raw_id)
        here = await self._game.player()
        table = await self._game.call(self._game.client.objects())
        at = table.position
        candidates = [
            o
            for o in table.objects
            if o.targetable
            and (
                o.game_object_id == wanted_id
                if wanted_id is not None
                else name is not None and name.casefold() in o.name.casefold()
            )
        ]
        if not candidates:
            raise RefusedError(
                f"No targetable object with id {wanted_id} nearby."
                if wanted_id is not None
                else f"No targetable object named {quote(name or '')} nearby. Use get_nearby_objects."
            )

        def distance(p: Any) -> float:
            return math.dist((at.x, at.y, at.z), (p.x, p.y, p.z))

        exact = (name or "").casefold()
        target = min(candidates, key=lambda o: (o.name.casefold() != exact, distance(o.position)))
        away = distance(target.position)
        if away > MAX_INTERACT_DISTANCE:
            raise RefusedError(
                f"{target.name} is {_yalms(away)} yalms away; walk within ~{MAX_INTERACT_DISTANCE:g} yalms first."
            )
        zone = resolve_zone(await self._game.zones(), None, here.player.territory)
        is_bell = _kind(zone, target.name) == "summoning_bell"
        if is_bell:
            await self._bell.acquire()  # refused while AutoRetainer works: nothing was touched
        before = {w.name for w in await self._open()}
        if _kind(zone, target.name) is not None:
            self._windows.follow()  # before the window opens: its closing can't come before XIV MCP listens
            await self._game.call(self._game.client.interact(target.name))
        after = await self._open()
        opened = [w.name for w in after if w.name not in before]
        if not opened:
            raise RefusedError(
                f"The game did not react to interacting with {target.name} ({_yalms(away)} yalms away, result 0). "
                "It is most likely out of interaction range or line of sight; move closer (within ~3 yalms is safe) "
                "and retry."
            )
        if is_bell and RETAINER_LIST in opened:
            await self._windows.clickers.opened(RETAINER_LIST)  # YesAlready and TextAdvance wait for the bell
        bell = None
        if is_bell:
            bell = {
                "retainerListOpen": any(w.name == RETAINER_LIST for w in after),
                "autoRetainer": AUTORETAINER_AT_BELL if self._bell.loaded() else "not installed",
                "next": BELL_NEXT,
            }
        return {
            "interactedWith": target.name,
            "distance": round(away, 2),
            "openedWindows": opened,
            "conditions": ["InCombat"] if here.player.in_combat else [],
            "fcChest": None,
            "summoningBell": bell,
        }

    # --- get_menu, select_menu_option -----------------------------------------------------------

    async def _get_menu(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self._game.player()
        windows = await self._open()
        entries = _menu(windows)
        return {
            "menu": None if entries is None else [{"index": i, "text": t} for i, t in enumerate(entries)],
            "dialogueWaiting": any(w.name == TALK for w in windows),
            "openWindows": [w.name for w in windows],
        }

    async def _select(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        await self._game.player()
        if args.boolean("advance_dialogue", False):
            if not any(w.name == TALK for w in await self._open()):
                raise RefusedError("No dialogue is waiting.")
            await self._game.call(self._game.client.close_window(TALK))
            return {"advanced": True, "openWindows": [w.name for w in await self._open()]}
        raw = args.values.get("option")
        option = str(raw).strip() if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
        if not option:
            raise RefusedError("Give 'option' (text or index) or advance_dialogue=true.")
        entries = _menu(await self._open())
        if entries is None:
            raise RefusedError("No menu is open. Use interact_with_object first.")
        index = _entry(entries, option)
        if index is None:
            raise RefusedError(f"No menu entry matches {quote(option)}. Entries: {' | '.join(entries)}")
        if not 0 <= index < len(entries):
            raise RefusedError(f"The menu has entries 0-{len(entries) - 1}.")
        await self._game.call(self._game.client.select_menu(index))
        windows = await self._open()
        return {"selected": entries[index], "openWindows": [w.name for w in windows], "menu": _menu(windows)}


def _entry(entries: list[str], option: str) -> int | None:
    """An index, else the entry of that text (case-insensitive), else the first starting with it."""
    if option.lstrip("-").isdigit():
        return int(option)
    folded = option.casefold()
    exact = [i for i, e in enumerate(entries) if e.casefold() == folded]
    starts = [i for i, e in enumerate(entries) if e.casefold().startswith(folded)]
    found = exact or starts
    return found[0] if found else None


def _kind(zone: Zone, name: str) -> str | None:
    """The kind of the zone's object of that name (None: no such object, such as an aetheryte or a player)."""
    return next((o.kind for o in zone.objects if o.name == name and o.kind != "fishing_spot"), None)


def _object_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).isdigit():
        raise RefusedError(f"'game_object_id' must be a whole number from get_nearby_objects; got {value!r:.40}.")
    return int(value)
