"""Interacting with what stands in a zone, and the menus and dialogs that opens (W1, W8).

    Game.Interact(name)     an object within reach (8 yalms) opens its menu (a SelectString window
                            with its entries), or the window it opens (a Summoning Bell the
                            RetainerList, a Company Chest the FreeCompanyChest, or its `opens`)
    Game.SelectMenu(index)  chooses an entry of the open menu: the menu closes, and the entry's
                            Yes/No dialog (SelectYesno) or line of dialogue (Talk) opens

A Yes/No dialog is answered with Game.AnswerDialog (the player, XIV MCP, or YesAlready by itself)
and a line of dialogue clicked away with Game.CloseWindow. Each change is recorded as the caller's,
needing `game_ui`. An object that opens nothing answers with no change, as the game does not react.
"""

from __future__ import annotations

import math
from typing import Final

from gates.contract import CapabilityId

from ._args import InteractArgs, SelectMenuArgs
from ._documents import MenuOption, Window, WorldObject
from ._engine import GameEngine
from ._errors import Refusal
from ._replies import ChangeReply

__all__ = ["DIALOG", "INTERACT_RANGE", "MENU", "TALK", "interact", "select_menu"]

INTERACT_RANGE: Final = 8.0
"""Yalms within which an object can be interacted with (the real host's MaxInteractDistance)."""
MENU: Final = "SelectString"
DIALOG: Final = "SelectYesno"
TALK: Final = "Talk"
OPENS_BY_KIND: Final = {"summoning_bell": "RetainerList", "company_chest": "FreeCompanyChest"}
"""The window an object of that kind opens when the world file names none."""


def _reach(engine: GameEngine, name: str) -> tuple[WorldObject, float]:
    """The nearest object of that name in the character's zone, and how far it is (yalms)."""
    here = engine.world.player.position
    zone = engine.current_zone
    found = sorted(
        (math.dist((here.x, here.y, here.z), (o.position.x, o.position.y, o.position.z)), index, o)
        for index, o in enumerate(zone.objects)
        if o.name.casefold() == name.strip().casefold() and o.kind != "fishing_spot"
    )
    if not found:
        names = ", ".join(sorted({o.name for o in zone.objects if o.kind != "fishing_spot"})) or "nothing"
        raise Refusal(f"nothing named {name!r} stands in {zone.name}; it has {names} (Game.GetObjects)")
    return found[0][2], found[0][0]


def _opened(engine: GameEngine, name: str) -> Window | None:
    return next((w for w in engine.world.windows if w.name == name), None)


def interact(engine: GameEngine, args: InteractArgs, by: str) -> ChangeReply:
    """Use an object within reach: its menu or its window opens (nothing: no change)."""
    engine.require_logged_in("interact with objects")
    thing, distance = _reach(engine, args.name)
    if distance > INTERACT_RANGE:
        raise Refusal(
            f"{thing.name} is {distance:.1f} yalms away, out of reach (within {INTERACT_RANGE:g}); walk up to it first"
        )
    if thing.menu:
        window = Window(name=MENU, text=thing.name, opened_by=by, menu=[o.text for o in thing.menu], about=thing.name)
    elif opens := thing.opens or OPENS_BY_KIND.get(thing.kind, ""):
        window = Window(name=opens, opened_by=by, about=thing.name)
    else:
        return ChangeReply()
    open_now = _opened(engine, window.name)
    if open_now is not None:
        if open_now.about == thing.name:
            return ChangeReply()  # already open: nothing more happens
        raise Refusal(f"the window {window.name!r} of {open_now.about or 'another'} is open; close it first")

    def show() -> None:
        engine.world.windows.append(window)

    summary = f"interacted with {thing.name}: opened {window.name!r}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "window", summary, show)])


def _option(engine: GameEngine, menu: Window, index: int) -> MenuOption:
    thing = next((o for o in engine.current_zone.objects if o.name == menu.about and o.menu), None)
    if thing is None or len(thing.menu) != len(menu.menu):  # its object is gone: the entry leads nowhere
        return MenuOption(text=menu.menu[index])
    return thing.menu[index]


def select_menu(engine: GameEngine, args: SelectMenuArgs, by: str) -> ChangeReply:
    """Choose an entry of the open menu: it closes, and what the entry leads to opens."""
    engine.require_logged_in("choose from menus")
    menu = _opened(engine, MENU)
    if menu is None:
        raise Refusal(f"no menu ({MENU}) is open; interact with an object that has one first (Game.Interact)")
    if not 0 <= args.index < len(menu.menu):
        raise Refusal(f"the menu has entries 0-{len(menu.menu) - 1}; got {args.index}")
    option = _option(engine, menu, args.index)
    then: Window | None = None
    if option.question:
        then = Window(name=DIALOG, kind="yesno", text=option.question, opened_by=by, about=menu.about)
    elif option.says:
        then = Window(name=TALK, text=option.says, opened_by=by, about=menu.about)
    if then is not None and _opened(engine, then.name) is not None:
        raise Refusal(f"a {then.name} window is already open; answer or close it first")

    def choose() -> None:
        engine.world.windows.remove(menu)
        if then is not None:
            engine.world.windows.append(then)

    summary = f"chose {option.text!r} in the menu of {menu.about}" + (f": opened {then.name!r}" if then else "")
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "window", summary, choose)])
