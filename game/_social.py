"""The gates of the character's life beyond moving and money: chat, windows, dialogs, logging in,
the map flag, the target and combat.

Each refuses (changing nothing) when its arguments or the world say no, records one change when
something changes, and answers with no change when it was already so (opening an open window,
clearing a cleared flag), so a retried call is harmless.
"""

from __future__ import annotations

from typing import Final

from gates.contract import CapabilityId

from ._args import (
    AnswerDialogArgs,
    LoginArgs,
    NoArgs,
    OpenWindowArgs,
    SendChatArgs,
    SetFlagArgs,
    SetTargetArgs,
    WindowArgs,
)
from ._documents import ChatLine, MapFlag, PlayerInfo, Vec3, Window, Zone
from ._engine import GameEngine
from ._errors import Refusal
from ._maps import to_world
from ._moving import check_on_map
from ._replies import ChangeReply
from ._world_file import MAX_CHAT_LINES

__all__ = [
    "CHAT_CHANNELS",
    "answer_dialog",
    "clear_flag",
    "close_window",
    "end_combat",
    "fight",
    "login",
    "logout",
    "open_window",
    "send_chat",
    "set_flag",
    "set_target",
    "start_combat",
    "switch_target",
]

CHAT_CHANNELS: Final = (
    "say",
    "yell",
    "shout",
    "party",
    "alliance",
    "fc",
    *(f"ls{n}" for n in range(1, 9)),
    *(f"cwls{n}" for n in range(1, 9)),
)
MAX_CHAT_TEXT: Final = 500
MAX_NAME: Final = 64
MAX_WINDOWS: Final = 32
"""Windows open at once (B7): more is a refusal, not a world that grows without end."""


def _check_name(value: str, argument: str) -> str:
    name = value.strip()
    if not name or len(name) > MAX_NAME:
        raise Refusal(f"`{argument}` must be 1 to {MAX_NAME} characters, got {value[:80]!r}")
    return name


def send_chat(engine: GameEngine, args: SendChatArgs, by: str) -> ChangeReply:
    """Say `text` on `channel` (say by default): other players see it (capability chat_send)."""
    engine.require_logged_in("chat")
    if not args.text.strip() or len(args.text) > MAX_CHAT_TEXT:
        raise Refusal(f"`text` must be 1 to {MAX_CHAT_TEXT} characters, got {len(args.text)}")
    if "\n" in args.text or "\r" in args.text:
        raise Refusal("`text` is one chat line: leave out line breaks (send several lines as several calls)")
    channel = args.channel.strip().lower()
    if channel not in CHAT_CHANNELS:
        raise Refusal(f"there is no chat channel {args.channel!r}; use one of {', '.join(CHAT_CHANNELS)}")
    world = engine.world

    def say() -> None:
        world.chat.append(ChatLine(channel=channel, text=args.text, by=by, at=engine.now()))
        del world.chat[:-MAX_CHAT_LINES]
        world.chat_sent += 1

    summary = f"said in {channel}: {args.text}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.CHAT_SEND, "chat", summary, say)])


def _open(engine: GameEngine) -> str:
    names = [window.name for window in engine.world.windows]
    return f"the open windows are {', '.join(repr(n) for n in names)}" if names else "no window is open"


def _window(engine: GameEngine, name: str) -> Window:
    window = next((w for w in engine.world.windows if w.name == name), None)
    if window is None:
        raise Refusal(f"no window named {name!r} is open; {_open(engine)} (Game.GetWindows)")
    return window


def open_window(engine: GameEngine, args: OpenWindowArgs, by: str) -> ChangeReply:
    """Open a window, or a Yes/No dialog (`kind` "yesno") that waits for Game.AnswerDialog."""
    engine.require_logged_in("open windows")
    name = _check_name(args.name, "name")
    if len(args.text) > MAX_CHAT_TEXT:
        raise Refusal(f"`text` is {len(args.text)} characters; a window's text is at most {MAX_CHAT_TEXT}")
    windows = engine.world.windows
    if any(w.name == name for w in windows):
        return ChangeReply()
    if len(windows) >= MAX_WINDOWS:
        raise Refusal(f"{MAX_WINDOWS} windows are open, the most the game keeps; close one first (Game.CloseWindow)")

    def show() -> None:
        windows.append(Window(name=name, kind=args.kind, text=args.text, opened_by=by))

    what = "the Yes/No dialog" if args.kind == "yesno" else "the window"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "window", f"opened {what} {name!r}", show)])


def close_window(engine: GameEngine, args: WindowArgs, by: str) -> ChangeReply:
    window = _window(engine, args.name)

    def close() -> None:
        engine.world.windows.remove(window)

    summary = f"closed the window {window.name!r}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "window", summary, close)])


def answer_dialog(engine: GameEngine, args: AnswerDialogArgs, by: str) -> ChangeReply:
    """Answer a Yes/No dialog, which closes it."""
    engine.require_logged_in("answer dialogs")
    window = _window(engine, args.name)
    if window.kind != "yesno":
        raise Refusal(f"{window.name!r} is a window, not a Yes/No dialog; close it with Game.CloseWindow")

    def answer() -> None:
        engine.world.windows.remove(window)

    summary = f"answered {'Yes' if args.yes else 'No'} to {window.name!r}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "window", summary, answer)])


def _character(engine: GameEngine, name: str) -> PlayerInfo | None:
    """The other character named `name` (None: the current one); a refusal listing them otherwise."""
    wanted = name.strip().casefold()
    if wanted == engine.world.player.name.casefold():
        return None
    for character in engine.world.characters:
        if character.name.casefold() == wanted:
            return character
    names = [engine.world.player.name, *(c.name for c in engine.world.characters)]
    raise Refusal(f"the account has no character named {name!r}; its characters are {', '.join(names)}")


def login(engine: GameEngine, args: LoginArgs, by: str) -> ChangeReply:
    """Log in, as the current character or (with `name`) another one of the account."""
    world = engine.world
    other = None if args.name is None else _character(engine, args.name)
    if other is None:
        if world.player.logged_in:
            return ChangeReply()

        def enter() -> None:
            world.player.logged_in = True

        summary = f"logged in as {world.player.name}"
        return ChangeReply(changes=[engine.record(by, CapabilityId.LOGIN, "login", summary, enter)])
    previous = world.player
    chosen = other

    def switch() -> None:
        engine.halt()
        world.characters.remove(chosen)
        previous.logged_in, previous.target, previous.in_combat = False, None, False
        world.characters.append(previous)
        chosen.logged_in = True
        world.player = chosen

    how = f"switched from {previous.name} to" if previous.logged_in else "logged in as"
    summary = f"{how} {chosen.name} ({chosen.world})"
    return ChangeReply(changes=[engine.record(by, CapabilityId.LOGIN, "login", summary, switch)])


def logout(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    player = engine.world.player
    if not player.logged_in:
        return ChangeReply()

    def leave() -> None:
        engine.halt()
        player.logged_in, player.target, player.in_combat = False, None, False

    return ChangeReply(changes=[engine.record(by, CapabilityId.LOGIN, "login", f"logged out {player.name}", leave)])


def _flag_zone(engine: GameEngine, args: SetFlagArgs) -> Zone:
    if args.territory is not None and args.zone is not None:
        by_id, by_name = engine.zone(args.territory), engine.zone_named(args.zone)
        if by_id is not by_name:
            raise Refusal(f"`territory` {args.territory} is {by_id.name} but `zone` is {args.zone!r}: give one of them")
        return by_id
    if args.zone is not None:
        return engine.zone_named(args.zone)
    return engine.current_zone if args.territory is None else engine.zone(args.territory)


def set_flag(engine: GameEngine, args: SetFlagArgs, by: str) -> ChangeReply:
    """Put the map flag at map coordinates (x, y) of a zone (the current one by default)."""
    engine.require_logged_in("set the map flag")
    zone = _flag_zone(engine, args)
    check_on_map(args.x, args.y)
    name = None if args.name is None else _check_name(args.name, "name")
    world_x, world_z = to_world(zone.map, args.x, args.y)
    flag = MapFlag(
        territory=zone.territory, zone=zone.name, x=args.x, y=args.y, world=Vec3(x=world_x, z=world_z), name=name
    )
    if flag == engine.world.flag:
        return ChangeReply()

    def put() -> None:
        engine.world.flag = flag

    summary = f"flagged {zone.name} at map ({args.x:.1f}, {args.y:.1f})" + (f" ({name})" if name else "")
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "flag", summary, put)])


def clear_flag(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    if engine.world.flag is None:
        return ChangeReply()

    def remove() -> None:
        engine.world.flag = None

    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "flag", "cleared the map flag", remove)])


def switch_target(engine: GameEngine, name: str | None, by: str) -> ChangeReply:
    """Target `name` (None: clear the target); also `Game.Set target`."""
    player = engine.world.player
    target = None if name is None else _check_name(name, "name")
    if target == player.target:
        return ChangeReply()

    def aim() -> None:
        player.target = target

    summary = "cleared the target" if target is None else f"targeted {target}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "target", summary, aim)])


def set_target(engine: GameEngine, args: SetTargetArgs, by: str) -> ChangeReply:
    if args.name is not None:
        engine.require_logged_in("target anyone")
    return switch_target(engine, args.name, by)


def fight(engine: GameEngine, in_combat: bool, by: str) -> ChangeReply:
    """Enter or leave combat; also `Game.Set in_combat`."""
    player = engine.world.player
    if player.in_combat == in_combat:
        return ChangeReply()

    def change() -> None:
        player.in_combat = in_combat

    summary = "entered combat" if in_combat else "left combat"
    return ChangeReply(changes=[engine.record(by, CapabilityId.COMBAT, "combat", summary, change)])


def start_combat(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    engine.require_logged_in("fight")
    return fight(engine, True, by)


def end_combat(engine: GameEngine, _: NoArgs, by: str) -> ChangeReply:
    return fight(engine, False, by)
