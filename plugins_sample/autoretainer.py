"""AutoRetainer: processes the retainers by itself when the character comes to a summoning bell.

    python -m plugins_sample.autoretainer --bus tcp://127.0.0.1:37520 [--seconds 10]

The real AutoRetainer, with its default "OpenBellBehavior", starts working through the retainers
(ventures, collecting) as soon as the character uses a bell. XIV MCP must not drive the same
windows meanwhile, so before it touches the bell it asks AutoRetainer over its public IPC, as the
real host's `PluginCompat.AcquireBell` does, and this sample answers those gates:

    AutoRetainer.PluginState.IsBusy() -> bool        processing retainers right now
    AutoRetainer.GetMultiModeEnabled() -> bool       multi mode (driving the character): off here
    AutoRetainer.GetSuppressed() -> bool             held back by another plugin
    AutoRetainer.SetSuppressed(bool)                 hold back (XIV MCP, while it uses the bell), or release
    AutoRetainer.PluginState.AbortAllTasks()         stop processing now

When the character arrives within reach of a bell (it hears the game's changes) and it is not
suppressed, it calls the first retainer and stays busy for `--seconds` (of real time), then
dismisses the retainer and is idle again; AbortAllTasks ends that at once. It prints a line for
each start, end, suppression and release, for people and for tests to read.
"""

from __future__ import annotations

import argparse
from typing import Final

import anyio
import anyio.abc

from broker import connect
from game import Change, GameClient, GameError

from ._run import parse_args, run, say

NAME: Final = "AutoRetainer"
IS_BUSY: Final = "AutoRetainer.PluginState.IsBusy"
MULTI_MODE: Final = "AutoRetainer.GetMultiModeEnabled"
GET_SUPPRESSED: Final = "AutoRetainer.GetSuppressed"
SET_SUPPRESSED: Final = "AutoRetainer.SetSuppressed"
ABORT: Final = "AutoRetainer.PluginState.AbortAllTasks"


class AutoRetainer:
    """Its state, and processing the retainers at the bell."""

    def __init__(self, game: GameClient, tg: anyio.abc.TaskGroup, seconds: float) -> None:
        self.game = game
        self._tg = tg
        self._seconds = seconds
        self.busy = False
        self.suppressed = False
        self._at_bell = False
        self._work: anyio.CancelScope | None = None

    def is_busy(self) -> bool:
        return self.busy

    def multi_mode(self) -> bool:
        return False

    def get_suppressed(self) -> bool:
        return self.suppressed

    def set_suppressed(self, value: bool) -> None:
        self.suppressed = bool(value)
        say(f"{NAME}: {'suppressed' if self.suppressed else 'released'}")

    def abort(self) -> None:
        if self._work is not None:
            self._work.cancel()

    async def on_change(self, change: Change) -> None:
        if change.kind not in ("position", "login"):
            return
        try:
            at_bell = (await self.game.retainers()).at_bell
        except GameError:
            return
        arrived, self._at_bell = at_bell and not self._at_bell, at_bell
        if arrived and not self.suppressed and not self.busy:
            self.busy = True  # before the task starts: a caller asking right after the arrival sees it
            self._tg.start_soon(self._process)

    async def _process(self) -> None:
        say(f"{NAME}: processing retainers at the bell")
        self._work = anyio.CancelScope()
        try:
            with self._work:
                retainers = (await self.game.retainers()).retainers
                if retainers:
                    await self.game.open_retainer(retainers[0].name)
                await anyio.sleep(self._seconds)
        except GameError as exc:
            say(f"{NAME}: stopped: {exc}")
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    await self.game.close_retainer()
                except GameError as exc:
                    say(f"{NAME}: could not dismiss the retainer: {exc}")
            self.busy = False
            self._work = None
            say(f"{NAME}: done")


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=10.0, help="how long processing takes (default 10 s)")


def main() -> None:
    args = parse_args("autoretainer", _extra)

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi, anyio.create_task_group() as tg:
            plugin = AutoRetainer(GameClient(pi), tg, args.seconds)
            pi.get_ipc_provider(IS_BUSY, returns=bool).register_func(plugin.is_busy)
            pi.get_ipc_provider(MULTI_MODE, returns=bool).register_func(plugin.multi_mode)
            pi.get_ipc_provider(GET_SUPPRESSED, returns=bool).register_func(plugin.get_suppressed)
            pi.get_ipc_provider(SET_SUPPRESSED, params=(bool,)).register_action(plugin.set_suppressed)
            pi.get_ipc_provider(ABORT).register_action(plugin.abort)
            plugin.game.on_change(plugin.on_change)
            await pi.flush()  # the broker holds the gates and the subscription: no arrival is missed
            say(f"{NAME}: ready on {pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
