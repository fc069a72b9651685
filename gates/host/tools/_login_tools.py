"""XIV MCP's list_characters and switch_character over the simulated game (W5).

    list_characters    the account's characters as the game lists them (`Game.GetCharacters`), with
                       the real host's fields
    switch_character   the character resolved as the real host does ─► refused in a duty or combat ─►
                       `Game.Login` with its name (login): the game switches characters

One switch runs at a time, as in the real host. Refusals are the real host's words
(`XivMcp/Tools/LoginTools.cs`) and come before anything changes.
"""

from __future__ import annotations

import datetime
from typing import Any, Final

import anyio

from game import CharactersReply, GameWorld, PlayerInfo
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._game_definitions import clamped, text_arg
from ._game_tools import GameAccess
from ._navigation import Sleep

__all__ = ["LoginTools"]

SWITCH_RUNNING: Final = "A character switch is already running."


def _world_of(player: PlayerInfo) -> tuple[int, str]:
    if player.current_world_id is None or player.current_world is None:
        return player.world_id, player.world
    return player.current_world_id, player.current_world


def _safe_to_log_out(account: CharactersReply, in_duty: bool) -> None:
    """The real `EnsureSafeToLogOut`, for what the simulated game has."""
    player = account.characters[0]
    if not player.logged_in:
        return
    if in_duty:
        raise RefusedError("Can't log out while in a duty.")
    if player.in_combat:
        raise RefusedError("Can't log out in combat.")


def _public_world(worlds: list[GameWorld], name: str) -> GameWorld:
    found = next((w for w in worlds if w.name.casefold() == name.casefold()), None)
    if found is None:
        raise RefusedError(f"'{name}' is not a public world.")
    return found


class LoginTools:
    """The handlers of list_characters and switch_character."""

    def __init__(self, game: GameAccess, sleep: Sleep) -> None:
        self._game = game
        self._sleep = sleep
        self._busy = anyio.Lock()

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "list_characters": self._list,
            "switch_character": self._switch,
        }

    async def _account(self) -> CharactersReply:
        return await self._game.call(self._game.client.characters())

    async def _in_duty(self) -> bool:
        return (await self._game.call(self._game.client.state())).duty is not None

    # --- list_characters -------------------------------------------------------------------

    async def _list(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        account = await self._account()
        now = (await self._game.call(self._game.client.time())).time
        seen = datetime.datetime.fromtimestamp(now, tz=datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        centres = {w.id: w.data_center for w in account.worlds}
        me = account.characters[0]
        rows = []
        for character in account.characters:
            world_id, world = _world_of(character)
            rows.append(
                {
                    "name": character.name,
                    "homeWorld": character.world,
                    "currentWorld": world,
                    "visiting": True if world_id != character.world_id else None,
                    "dataCenter": centres.get(world_id, ""),
                    "serviceAccount": 1,
                    "account": "this account",
                    "loggedIn": True if character.logged_in else None,
                    "seen": seen,
                }
            )
        rows.sort(key=lambda r: (r["dataCenter"], r["currentWorld"]))
        logged_in = {"name": me.name, "world": _world_of(me)[1]} if me.logged_in else None
        return {"loggedIn": logged_in, "characters": rows}

    # --- switch_character ------------------------------------------------------------------

    async def _switch(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = text_arg(args, "name")
        if name is None:
            raise RefusedError("'name' is required.")
        if args.values.get("service_account") is not None:
            args.integer("service_account", 1, 1, 9)
        clamped(args, "timeout_seconds", 300, 60, 1800)
        if self._busy.locked():
            raise RefusedError(SWITCH_RUNNING)
        steps: list[str] = []
        async with self._busy:
            try:
                return await self._switch_to(name, text_arg(args, "world"), steps)
            except RefusedError as exc:
                raise RefusedError(f"{exc} Steps: {' → '.join(steps) if steps else 'none'}") from None

    async def _switch_to(self, name: str, world: str | None, steps: list[str]) -> dict[str, Any]:
        account = await self._account()
        known = [c for c in account.characters if c.name.casefold() == name.casefold()]
        if world is not None:
            wanted = world.casefold()
            known = [c for c in known if wanted in (c.world.casefold(), _world_of(c)[1].casefold())]
        if len(known) > 1:
            raise RefusedError(
                f"'{name}' exists on several worlds ({', '.join(c.world for c in known)}); give 'world'."
            )
        me = account.characters[0]
        if not known:
            if world is None:
                raise RefusedError(
                    f"XIV MCP hasn't seen '{name}' in a character list yet; give its home 'world' "
                    "(and 'service_account' if your account has several)."
                )
            home = _public_world(account.worlds, world)
            raise RefusedError(f"{name} is not in this account's character list on {home.name}.")
        target = known[0]
        if target.content_id == me.content_id and me.logged_in:
            return {"loggedIn": target.name, "note": "Already logged in on this character."}
        _safe_to_log_out(account, await self._in_duty())
        if me.logged_in:
            steps.append(f"Logged out of {me.name}.")
        await self._game.call(self._game.client.login(target.name))
        now = (await self._game.call(self._game.client.player())).player
        steps.append(f"Logged in as {now.name} ({_world_of(now)[1]}).")
        return {"loggedIn": now.name, "world": _world_of(now)[1], "steps": steps}
