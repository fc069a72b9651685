"""XIV MCP's list_characters, switch_character and visit_world over the simulated game (W5).

    list_characters    the account's characters as the game lists them (`Game.GetCharacters`), with
                       the real host's fields
    switch_character   the character resolved as the real host does ─► refused in a duty or combat ─►
                       `Game.Login` with its name (login): the game switches characters
    visit_world        the world checked (public, not the current one) ─► refused in a duty or combat ─►
                       Lifestream travels (`Lifestream.ExecuteCommand(world)`, its real IPC) when it is
                       on the bus, else the player is asked to travel ─► waits, on the host's clock, until
                       the character is on that world and Lifestream is not busy (`Lifestream.IsBusy`)

One switch or visit runs at a time, as in the real host. Refusals are the real host's words
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
from ._navigation import Sleep, before_deadline

__all__ = ["LIFESTREAM", "LIFESTREAM_BUSY", "LIFESTREAM_COMMAND", "LoginTools"]

LIFESTREAM: Final = "Lifestream"
LIFESTREAM_COMMAND: Final = "Lifestream.ExecuteCommand"
"""(action string) what `/li <arguments>` does: a world's name travels there."""
LIFESTREAM_BUSY: Final = "Lifestream.IsBusy"
PLUGIN_SECONDS: Final = 10.0
SWITCH_RUNNING: Final = "A character switch is already running."
TRAVEL_RUNNING: Final = "A character switch or world travel is already running."


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
    """The handlers of list_characters, switch_character and visit_world."""

    def __init__(self, game: GameAccess, sleep: Sleep) -> None:
        self._game = game
        self._sleep = sleep
        self._busy = anyio.Lock()

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "list_characters": self._list,
            "switch_character": self._switch,
            "visit_world": self._visit,
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

    # --- visit_world -----------------------------------------------------------------------

    def _lifestream_loaded(self) -> bool:
        pi = self._game.pi
        return LIFESTREAM in pi.peers and pi.get_ipc_subscriber(LIFESTREAM_COMMAND).has_action()

    async def _lifestream_busy(self) -> bool:
        pi = self._game.pi
        if LIFESTREAM not in pi.peers or not pi.get_ipc_subscriber(LIFESTREAM_BUSY).has_function():
            return False
        try:
            with anyio.fail_after(PLUGIN_SECONDS):
                return await pi.get_ipc_subscriber(LIFESTREAM_BUSY).invoke_func() is True
        except Exception:  # the real LifestreamBusy: an error counts as not busy
            return False

    async def _visit(self, args: ToolArgs, on_progress: Any) -> dict[str, Any]:
        automatic = self._lifestream_loaded()
        name = text_arg(args, "world")
        if name is None:
            raise RefusedError("'world' is required.")
        seconds = clamped(args, "timeout_seconds", 600, 30, 1800)
        if self._busy.locked():
            raise RefusedError(TRAVEL_RUNNING)
        async with self._busy:
            await self._game.player()
            account = await self._account()
            target = _public_world(account.worlds, name)
            if _world_of(account.characters[0])[0] == target.id:
                raise RefusedError(f"Already on {target.name}.")
            _safe_to_log_out(account, await self._in_duty())
            here = next((w for w in account.worlds if w.id == _world_of(account.characters[0])[0]), None)
            same_dc = here is not None and here.data_center == target.data_center
            arrived = await before_deadline(
                self._sleep, seconds, lambda: self._travel(target, automatic, same_dc, on_progress)
            )
        if arrived is None:
            raise RefusedError(
                f"Not on {target.name} after the timeout; the travel plugin may still be travelling or queued."
                if automatic
                else f"Not on {target.name} after the timeout. Ask the player whether they are still travelling, "
                "then try again."
            )
        return {
            "arrived": target.name,
            "dataCenter": target.data_center,
            "travelledBy": "plugin" if automatic else "player",
        }

    async def _travel(self, target: GameWorld, automatic: bool, same_dc: bool, on_progress: Any) -> bool:
        if automatic:
            try:
                with anyio.fail_after(PLUGIN_SECONDS):
                    await self._game.pi.get_ipc_subscriber(LIFESTREAM_COMMAND).invoke_action(target.name)
            except Exception as exc:
                raise RefusedError(f"Lifestream did not answer ({type(exc).__name__}). Is it enabled?") from None
        elif on_progress is not None:
            how = "World Visit" if same_dc else "Data Center Travel"
            on_progress(f"Travel to {target.name} ({target.data_center}) with {how}; XIV MCP waits until you arrive.")

        async def there() -> bool | None:
            here = await self._game.where()
            if here is None or _world_of(here.player)[0] != target.id:
                return None
            return None if await self._lifestream_busy() else True

        return await self._game.wait_for(there)
