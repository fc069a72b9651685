"""YesAlready: answers Yes/No dialogs with Yes as they open, unless someone asked it to hold off.

    python -m plugins_sample.yesalready --bus tcp://127.0.0.1:37520

The real YesAlready clicks "Yes" on confirmation dialogs. Another plugin that drives those
windows itself (XIV MCP at a shop or a summoning bell, A8, W8) pauses it through the data share
`YesAlready.StopRequests`, a `HashSet<string>` both plugins hold: it adds its own InternalName,
does its work, and removes it again. Processes share no memory, so here the set's owner serves it
as call gates:

    YesAlready.StopRequests.Add(name) -> bool       true if the name was not in the set yet
    YesAlready.StopRequests.Remove(name) -> bool    true if the name was in the set
    YesAlready.StopRequests.List() -> str           the set, as a JSON array of names

While the set holds any name, dialogs are left open; once it is empty again, the ones still open
are answered. Dialogs are the game's windows of kind "yesno"; this plugin hears of them through
`Game.Changed` and answers with `Game.AnswerDialog`, so the game records each answer as
YesAlready's. It prints a line for each pause, release, answer and dialog left open.
"""

from __future__ import annotations

import json
from typing import Final

import anyio
import anyio.abc

from broker import PluginInterface, connect
from game import GAME_NAME, Change, GameClient, GameError

from ._run import parse_args, run, say

NAME: Final = "YesAlready"
ADD: Final = "YesAlready.StopRequests.Add"
REMOVE: Final = "YesAlready.StopRequests.Remove"
LIST: Final = "YesAlready.StopRequests.List"
MAX_STOP_REQUESTS: Final = 64
"""Names the set holds at most: a plugin that forgets to remove its name cannot grow it without end."""
MAX_NAME: Final = 64


def _checked(gate: str, name: str) -> str:
    cleaned = name.strip()
    if not cleaned or len(cleaned) > MAX_NAME:
        raise ValueError(f"{gate}: pass your plugin's InternalName (1 to {MAX_NAME} characters); got {name!r:.80}.")
    return cleaned


class YesAlready:
    """The StopRequests set, and answering dialogs whenever it is empty."""

    def __init__(self, pi: PluginInterface, tg: anyio.abc.TaskGroup) -> None:
        self.game = GameClient(pi)
        self._tg = tg
        self.stop_requests: set[str] = set()
        self._left: set[str] = set()
        """Dialogs already reported as left open (paused), so each is reported once."""
        self._sweeping = anyio.Lock()
        """One look at the dialogs at a time: two would both try to answer the same one."""

    # --- the data share, as gates ------------------------------------------------------------

    def add(self, name: str) -> bool:
        name = _checked(ADD, name)
        if name in self.stop_requests:
            return False
        if len(self.stop_requests) >= MAX_STOP_REQUESTS:
            raise ValueError(
                f"{ADD}: the set already holds {MAX_STOP_REQUESTS} names, the most it keeps; "
                f"a plugin must remove its name ({REMOVE}) when it is done."
            )
        self.stop_requests.add(name)
        say(f"{NAME}: paused by {name}")
        return True

    def remove(self, name: str) -> bool:
        name = _checked(REMOVE, name)
        if name not in self.stop_requests:
            return False
        self.stop_requests.discard(name)
        say(f"{NAME}: released by {name}")
        if not self.stop_requests:
            self._tg.start_soon(self.sweep)  # the dialogs left open meanwhile are answered now
        return True

    def listing(self) -> str:
        return json.dumps(sorted(self.stop_requests))

    # --- the dialogs -------------------------------------------------------------------------

    async def on_change(self, change: Change) -> None:
        if change.kind in ("window", "login"):
            await self.sweep()

    def on_peer(self, name: str, joined: bool, reason: str) -> None:
        if name == GAME_NAME and joined:
            self._tg.start_soon(self.sweep)  # a game that (re)starts may open with dialogs

    async def sweep(self) -> None:
        """Answer Yes to every open dialog, or, while paused, report those it leaves open."""
        async with self._sweeping:
            try:
                windows = await self.game.windows()
            except GameError as exc:
                say(f"{NAME}: cannot see the game's dialogs: {exc}")
                return
            dialogs = [w.name for w in windows if w.kind == "yesno"]
            self._left &= set(dialogs)  # answered or closed by someone else: forget them
            for dialog in dialogs:
                if self.stop_requests:  # checked before each answer: a pause may come meanwhile
                    if dialog not in self._left:
                        self._left.add(dialog)
                        say(f"{NAME}: left {dialog} (paused)")
                    continue
                try:
                    await self.game.answer_dialog(dialog, True)
                except GameError as exc:  # closed meanwhile, or the character logged out
                    say(f"{NAME}: could not answer {dialog}: {exc}")
                    continue
                self._left.discard(dialog)
                say(f"{NAME}: answered Yes to {dialog}")


def main() -> None:
    args = parse_args("yesalready")

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi, anyio.create_task_group() as tg:
            plugin = YesAlready(pi, tg)
            pi.get_ipc_provider(ADD, params=(str,), returns=bool).register_func(plugin.add)
            pi.get_ipc_provider(REMOVE, params=(str,), returns=bool).register_func(plugin.remove)
            pi.get_ipc_provider(LIST, returns=str).register_func(plugin.listing)
            plugin.game.on_change(plugin.on_change)
            pi.on_peer_change(plugin.on_peer)
            await pi.flush()  # the broker holds the gates and the subscription: no dialog is missed
            if plugin.game.available:
                await plugin.sweep()  # dialogs that opened before this plugin started
            say(f"{NAME}: ready on {pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
