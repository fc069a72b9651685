"""XIV MCP's switch_gearset and leave_duty over the simulated game (W5).

    switch_gearset   the gearset resolved as the real `Gearsets.Resolve` does (number, exact name, job
                     with the best set first, part of a name) ─► refused in combat ─► `Game.EquipGearset`
                     (game_ui): the job and the gear worn change
    leave_duty       refused when not in a duty ─► waits (on the host's clock, 3 minutes at most) for
                     a fight to end, never leaving mid-fight ─► `Game.LeaveDuty` (combat): back where
                     the duty was entered from

Refusals are the real host's words (`XivMcp/Util/Gearsets.cs`, `XivMcp/Tools/DutyTools.cs`,
`XivMcp/Util/DutyExit.cs`) and come before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from game import CharacterSheet, Gearset, find_class_job
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._game_definitions import text_arg
from ._game_tools import GameAccess
from ._navigation import Sleep, before_deadline

__all__ = ["LEAVE_SECONDS", "NOT_IN_DUTY", "WAITING_FOR_CALM", "GearAndDutyTools", "resolve_gearset"]

NOT_IN_DUTY: Final = "You are not in a duty."
WAITING_FOR_CALM: Final = "In combat: waiting for the fight to end before leaving the duty."
"""The progress line while leave_duty waits (the simulator's own: the real host waits without one)."""
LEAVE_SECONDS: Final = 180.0
"""How long leave_duty waits for a fight to end (the real `DutyExit.Leave(TimeSpan.FromMinutes(3))`)."""


def _job(gearset: Gearset) -> tuple[str, str]:
    """The set's job as the real host names it: (abbreviation, the sheet's name), "?" when unknown."""
    row = find_class_job(gearset.job)
    return ("?", "?") if row is None else (row.abbreviation, row.name)


def resolve_gearset(sheet: CharacterSheet, query: str) -> Gearset:
    """A gearset by number, name or job (the highest item level set of that job), as the real host's."""
    sets = sorted(sheet.gearsets, key=lambda g: g.number)
    if not sets:
        raise RefusedError("No gearsets are saved.")
    if query.strip().lstrip("-").isdigit():
        number = int(query)
        found = next((g for g in sets if g.number == number), None)
        if found is None:
            raise RefusedError(f"There is no gearset {number}.")
        return found
    folded = query.casefold()
    by_name = [g for g in sets if g.name.casefold() == folded]
    if by_name:
        return by_name[0]
    by_job = [g for g in sets if folded in (j.casefold() for j in _job(g))]
    if by_job:
        return sorted(by_job, key=lambda g: (g.missing_items > 0, -g.item_level))[0]
    partial = [g for g in sets if folded in g.name.casefold()]
    if len(partial) == 1:
        return partial[0]
    if not partial:
        saved = ", ".join(f"{g.number} {g.name} ({_job(g)[0]})" for g in sets)
        raise RefusedError(f"No gearset matches '{query}' (by number, name or job). Saved: {saved}.")
    raise RefusedError(f"'{query}' matches several gearsets: {', '.join(f'{g.number} {g.name}' for g in partial)}.")


class GearAndDutyTools:
    """The handlers of switch_gearset and leave_duty, over the host's one `GameAccess`."""

    def __init__(self, game: GameAccess, sleep: Sleep) -> None:
        self._game = game
        self._sleep = sleep

    def handlers(self) -> dict[str, ToolHandler]:
        return {"switch_gearset": self._switch_gearset, "leave_duty": self._leave_duty}

    async def _switch_gearset(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        query = text_arg(args, "gearset")
        if query is None:
            raise RefusedError("Give 'gearset'.")
        here = await self._game.player()
        reply = await self._game.call(self._game.client.character_sheet())
        gearset = resolve_gearset(reply.sheet, query)
        if here.player.in_combat:
            raise RefusedError("Can't change gear in combat.")
        worn = find_class_job(reply.job)
        wanted = find_class_job(gearset.job)
        if not (reply.sheet.gearset == gearset.number and worn is not None and wanted is not None and worn == wanted):
            await self._game.call(self._game.client.equip_gearset(gearset.number))
        missing = gearset.missing_items
        return {
            "equipped": gearset.number,
            "name": gearset.name,
            "job": _job(gearset)[0],
            "itemLevel": gearset.item_level,
            "warning": f"{missing} item(s) of this set are not in your inventory." if missing > 0 else None,
        }

    async def _leave_duty(self, args: ToolArgs, on_progress: Callable[[str], None] | None) -> str:
        await self._game.player()
        state = await self._game.call(self._game.client.state())
        if state.duty is None:
            raise RefusedError(NOT_IN_DUTY)
        if (
            state.player.in_combat
            and await before_deadline(self._sleep, LEAVE_SECONDS, lambda: self._calm(on_progress)) is None
        ):
            raise RefusedError("Could not leave the duty: still in combat.")
        await self._game.call(self._game.client.leave_duty())
        return "Left the duty."

    async def _calm(self, on_progress: Callable[[str], None] | None) -> bool:
        """Once the fight is over (the deadline already set, as the progress line says)."""
        if on_progress is not None:
            on_progress(WAITING_FOR_CALM)

        async def calm() -> bool | None:
            here = await self._game.where()
            return True if here is not None and not here.player.in_combat else None

        return await self._game.wait_for(calm)
