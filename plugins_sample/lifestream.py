"""Lifestream: the travel plugin, simulated: its IPC gates take the character to another world.

    python -m plugins_sample.lifestream --bus tcp://127.0.0.1:37520

The gates have the real Lifestream's names and signatures (`Lifestream/IPC/IPCProvider.cs`), so
XIV MCP's `visit_world` drives this process as it drives the real plugin:

    Lifestream.ExecuteCommand(arguments)     (action) what `/li <arguments>` does; a world's name
                                             travels there (World Visit, or Data Center Travel)
    Lifestream.IsBusy -> bool                a travel this plugin started is under way
    Lifestream.Abort                         (action) give up the travel under way

The travel itself is the game's `Game.TravelToWorld`, called by this process, so the game records
the change of world as Lifestream's. Like the real plugin, a command it cannot carry out prints why
(and changes nothing) rather than raising. Only world names are understood here: the real `/li`
also takes aetherytes, housing addresses and more. It prints a line per travel and refusal, for
people and for tests that wait on them.
"""

from __future__ import annotations

from typing import Final

import anyio

from broker import PluginInterface, connect
from game import GameClient, GameError

from ._run import parse_args, run, say

NAME: Final = "Lifestream"


class Gate:
    """The gate names, as the real Lifestream registers them (EzIPC: `Lifestream.<Method>`)."""

    EXECUTE_COMMAND: Final = "Lifestream.ExecuteCommand"
    IS_BUSY: Final = "Lifestream.IsBusy"
    ABORT: Final = "Lifestream.Abort"


class Travel:
    """Lifestream's gates over the game: a travel is the game's, made as this process."""

    def __init__(self, pi: PluginInterface) -> None:
        self.game = GameClient(pi)
        self.busy = False

    def is_busy(self) -> bool:
        return self.busy

    def abort(self) -> None:
        self.busy = False
        say(f"{NAME}: aborted")

    async def execute_command(self, arguments: str) -> None:
        destination = arguments.strip()
        if not destination:
            say(f"{NAME}: /li needs a destination here (a world's name)")
            return
        self.busy = True
        try:
            worlds = (await self.game.characters()).worlds
            world = next((w for w in worlds if w.name.casefold() == destination.casefold()), None)
            if world is None:
                say(f"{NAME}: no world named {destination!r} (this sample travels to worlds only)")
                return
            say(f"{NAME}: travelling to {world.name} ({world.data_center})")
            self.busy = False  # the arrival is the game's change: not busy any more once XIV MCP sees it
            reply = await self.game.travel_to_world(world.name)
        except GameError as exc:
            say(f"{NAME}: could not travel to {destination}: {exc}")
            return
        finally:
            self.busy = False
        say(f"{NAME}: arrived on {world.name}" if reply.changes else f"{NAME}: already on {world.name}")


def provide(pi: PluginInterface, travel: Travel) -> None:
    pi.get_ipc_provider(Gate.EXECUTE_COMMAND, params=(str,)).register_action(travel.execute_command)
    pi.get_ipc_provider(Gate.IS_BUSY, returns=bool).register_func(travel.is_busy)
    pi.get_ipc_provider(Gate.ABORT).register_action(travel.abort)


def main() -> None:
    args = parse_args("lifestream")

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi:
            provide(pi, Travel(pi))
            await pi.flush()  # the broker holds the gates: XIV MCP sees Lifestream as loaded
            say(f"{NAME}: ready on {pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
