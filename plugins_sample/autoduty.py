"""AutoDuty: the dungeon-running plugin, simulated, with the real AutoDuty's IPC gates.

    python -m plugins_sample.autoduty --bus tcp://127.0.0.1:37520

XIV MCP's maintained AutoDuty integration (list_duties, get_duty_status, stop_duty, run_duty) is
offered only while this plugin is loaded (A5, W7), and drives it through these gates:

    AutoDuty.ContentHasPath(territoryType) -> bool    whether it has a path for that duty
    AutoDuty.Run(territoryType, loops, bareMode)      (action) run the duty `loops` times
    AutoDuty.Stop()                                   (action) stop at once
    AutoDuty.IsStopped() -> bool
    AutoDuty.IsLooping() -> bool                      running with more than one loop to go

A run here is a fight in the game: `Run` starts combat (`Game.StartCombat`, recorded as
AutoDuty's) and the duty "runs" until `Stop` ends it (`Game.EndCombat`). It has paths for the
duties in `PATHS` only, so a caller sees `ContentHasPath` filter a list. It prints a line for
each run and stop, for people and for tests that wait on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import anyio

from broker import PluginInterface, connect
from game import GameClient, GameError

from ._run import parse_args, run, say

NAME: Final = "AutoDuty"
MAX_LOOPS: Final = 999

PATHS: Final[dict[int, str]] = {
    952: "The Tower of Zot",
    969: "The Tower of Babil",
    970: "Vanaspati",
    1167: "Ihuykatumu",
    1193: "Worqor Zormor",
    1194: "The Skydeep Cenote",
    1208: "Origenics",
}
"""The duties (by territory type) this AutoDuty has a path for; others, such as Vanguard (1198), it has none."""


@dataclass(frozen=True, slots=True)
class DutyRun:
    territory_type: int
    loops: int
    bare_mode: bool


class AutoDuty:
    """AutoDuty's state: the duty it runs, if any, and the fight it started in the game."""

    def __init__(self, pi: PluginInterface) -> None:
        self.game = GameClient(pi)
        self.running: DutyRun | None = None
        self._lock = anyio.Lock()
        """Run and Stop one at a time: each awaits the game between its check and its change."""

    def content_has_path(self, territory_type: int) -> bool:
        return territory_type in PATHS

    def is_stopped(self) -> bool:
        return self.running is None

    def is_looping(self) -> bool:
        return self.running is not None and self.running.loops > 1

    async def run(self, territory_type: int, loops: int, bare_mode: bool) -> None:
        """Start the duty; a call it cannot follow raises (an action has no reply but its error)."""
        name = PATHS.get(territory_type)
        if name is None:
            raise ValueError(
                f"AutoDuty.Run: AutoDuty has no path for territory {territory_type}; "
                "ask AutoDuty.ContentHasPath first and run only a duty it has a path for."
            )
        if not 1 <= loops <= MAX_LOOPS:
            raise ValueError(f"AutoDuty.Run: loops must be 1 to {MAX_LOOPS}; got {loops}.")
        async with self._lock:
            if self.running is not None:
                raise ValueError(
                    f"AutoDuty.Run: AutoDuty is already running {PATHS[self.running.territory_type]}; "
                    "call AutoDuty.Stop first (AutoDuty.IsStopped tells when it is free)."
                )
            try:
                await self.game.start_combat()
            except GameError as exc:  # no game, or the character is not logged in: nothing started
                raise ValueError(f"AutoDuty.Run: could not start {name}: {exc}") from None
            self.running = DutyRun(territory_type, loops, bare_mode)
        mode = " (bare mode)" if bare_mode else ""
        say(f"{NAME}: running {name} ({territory_type}), {loops} loop{'s' if loops != 1 else ''}{mode}")

    async def stop(self) -> None:
        async with self._lock:
            duty, self.running = self.running, None
            if duty is None:
                say(f"{NAME}: already stopped")
                return
            try:
                await self.game.end_combat()
            except GameError as exc:  # stopped all the same: the game is gone, or was never there
                say(f"{NAME}: stopped, but could not end the fight: {exc}")
                return
        say(f"{NAME}: stopped {PATHS[duty.territory_type]}")


def provide(pi: PluginInterface, duty: AutoDuty) -> None:
    pi.get_ipc_provider("AutoDuty.ContentHasPath", params=(int,), returns=bool).register_func(duty.content_has_path)
    pi.get_ipc_provider("AutoDuty.Run", params=(int, int, bool)).register_action(duty.run)
    pi.get_ipc_provider("AutoDuty.Stop").register_action(duty.stop)
    pi.get_ipc_provider("AutoDuty.IsStopped", returns=bool).register_func(duty.is_stopped)
    pi.get_ipc_provider("AutoDuty.IsLooping", returns=bool).register_func(duty.is_looping)


def main() -> None:
    args = parse_args("autoduty")

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi:
            provide(pi, AutoDuty(pi))
            await pi.flush()  # the broker holds the gates: XIV MCP can call them once it sees AutoDuty
            say(f"{NAME}: ready on {pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
