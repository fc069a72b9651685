"""XIV MCP's reading tools of the character itself (W5): get_class_jobs get_equipment list_gearsets
get_active_quests get_aetherytes, over the game's character sheet (`Game.GetCharacterSheet`).

Each result has the real host's fields (`XivMcp/Tools/CharacterTools.cs`, `InventoryTools.cs`,
`GearsetTools.cs`, `UnlockTools.cs`, `WorldTools.cs`), filled from the simulated world; each
refuses while no character is logged in, as the real host's `RunLoggedIn`. They only read.
"""

from __future__ import annotations

import datetime
from statistics import fmean
from typing import Any, Final

from game import (
    CLASS_JOBS,
    EQUIP_SLOTS,
    ClassJob,
    ClassJobLevel,
    EquippedItem,
    SheetReply,
    exp_to_next,
    find_class_job,
    shares_level,
)

from ._args import ToolArgs, ToolHandler
from ._game_tools import GameAccess

__all__ = ["CharacterTools", "class_job_ref", "json_number"]

READY_TO_TURN_IN: Final = 255
"""The step of a quest that is ready to turn in."""
LEVE_ALLOWANCE_HOURS: Final = 12
"""Leve allowances come at 00:00 and 12:00 UTC."""
NOT_IN_AVERAGE: Final = ("SoulCrystal", "Waist")
"""Slots the average item level leaves out."""


def json_number(value: float) -> float | int:
    """A number as .NET writes it: 710.0 is 710."""
    return int(value) if value == int(value) else value


def class_job_ref(text: str | None) -> dict[str, Any]:
    """A class or job as the real host shows a game row: {id, name}; row 0 ("Adventurer") for none."""
    row = None if text is None else find_class_job(text)
    return {"id": 0, "name": "Adventurer"} if row is None else {"id": row.id, "name": row.title}


class _Levels:
    """The levels, experience and unlocks of one character, from its sheet and its current job."""

    def __init__(self, reply: SheetReply) -> None:
        self.current = find_class_job(reply.job)
        self._level = reply.level
        self._entries = [(find_class_job(e.job), e) for e in reply.sheet.class_jobs]

    def _entry(self, row: ClassJob) -> ClassJobLevel | None:
        return next((e for r, e in self._entries if r is not None and shares_level(r, row)), None)

    def level(self, row: ClassJob) -> int:
        if self.current is not None and shares_level(row, self.current):
            return self._level
        entry = self._entry(row)
        return 0 if entry is None else entry.level

    def unlocked(self, row: ClassJob) -> bool:
        """A row the sheet lists (or the current job) is unlocked, and so is the class a listed job grows from."""
        listed = [r for r, _ in self._entries if r is not None]
        if self.current is not None:
            listed.append(self.current)
        return any(r.id == row.id or (r.parent == row.id and r.id != row.id) for r in listed)

    def row(self, row: ClassJob) -> dict[str, Any]:
        level, entry = self.level(row), self._entry(row)
        return {
            "id": row.id,
            "name": row.title,
            "abbreviation": row.abbreviation,
            "role": row.role,
            "isJob": row.is_job,
            "parentClass": CLASS_JOBS[row.parent - 1].title if row.parent != row.id else None,
            "unlocked": self.unlocked(row),
            "level": level,
            "exp": 0 if entry is None else entry.exp,
            "expToNextLevel": exp_to_next(level) if level > 0 else 0,
            "desynthesisLevel": (entry.desynthesis if entry is not None else 0.0) if row.crafter else None,
        }


def _worn(slot: str, item: EquippedItem) -> dict[str, Any]:
    """One slot's gear as the real host describes an item with its details, plus its levels."""
    shown: dict[str, Any] = {"slot": slot, "itemId": item.item_id, "name": item.name, "quantity": 1}
    if item.hq:
        shown["hq"] = True
    shown["spiritbondPercent"] = json_number(round(item.spiritbond, 2))
    shown["conditionPercent"] = json_number(round(item.condition, 1))
    if item.materia:
        shown["materia"] = list(item.materia)
    if item.dyes:
        shown["dyes"] = [{"id": d.id, "name": d.name} for d in item.dyes]
    if item.glamour is not None:
        shown["glamour"] = {"itemId": item.glamour.item_id, "name": item.glamour.name}
    shown["itemLevel"] = item.item_level
    shown["equipLevel"] = item.equip_level
    return shown


def _next_leve_allowances(now: float) -> str:
    """When the next leve allowances come (00:00 or 12:00 UTC on the game clock), as .NET writes a UTC time."""
    step = LEVE_ALLOWANCE_HOURS * 3600
    at = datetime.datetime.fromtimestamp((now // step + 1) * step, tz=datetime.UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


class CharacterTools:
    """The handlers of the character's reading tools, over the host's one `GameAccess`."""

    def __init__(self, game: GameAccess) -> None:
        self.game = game

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "get_class_jobs": self._class_jobs,
            "get_equipment": self._equipment,
            "list_gearsets": self._gearsets,
            "get_active_quests": self._quests,
            "get_aetherytes": self._aetherytes,
        }

    async def _sheet(self) -> SheetReply:
        await self.game.player()
        return await self.game.call(self.game.client.character_sheet())

    async def _class_jobs(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        reply = await self._sheet()
        include_locked = args.boolean("include_locked", True)
        levels = _Levels(reply)
        rows = [levels.row(row) for row in CLASS_JOBS if include_locked or levels.level(row) > 0]
        return {"currentClassJob": class_job_ref(reply.job), "classJobs": rows}

    async def _equipment(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        worn = {item.slot: item for item in (await self._sheet()).sheet.equipment}
        slots = [_worn(slot, worn[slot]) if slot in worn else {"slot": slot, "empty": True} for slot in EQUIP_SLOTS]
        levels = [item.item_level for slot, item in worn.items() if slot not in NOT_IN_AVERAGE]
        return {"averageItemLevel": json_number(round(fmean(levels), 1)) if levels else 0, "slots": slots}

    async def _gearsets(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        sheet = (await self._sheet()).sheet
        listed = []
        for gearset in sorted(sheet.gearsets, key=lambda g: g.number):
            row = find_class_job(gearset.job)
            listed.append(
                {
                    "number": gearset.number,
                    "name": gearset.name,
                    "job": "?" if row is None else row.abbreviation,
                    "jobName": "?" if row is None else row.name,  # the sheet's own spelling, as the real host sends it
                    "itemLevel": gearset.item_level,
                    "kind": "combat" if row is not None and row.role != 0 else "crafter/gatherer",
                    "current": gearset.number == sheet.gearset,
                    "missingItems": gearset.missing_items if gearset.missing_items > 0 else None,
                }
            )
        return {"current": sheet.gearset or None, "gearsets": listed}

    async def _quests(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        sheet = (await self._sheet()).sheet
        now = (await self.game.call(self.game.client.time())).time
        accepted = [
            {
                "questId": q.quest_id,
                "name": q.name,
                "sequence": q.sequence,
                "readyToTurnIn": q.sequence == READY_TO_TURN_IN,
                "journalGenre": q.genre,
                "classJobLevel": q.level,
                "hidden": q.hidden,
                "priority": q.priority,
            }
            for q in sheet.quests
        ]
        return {
            "acceptedQuests": accepted,
            "dailyQuests": [],
            "dailyAllowancesRemaining": sheet.daily_allowances,
            "levequests": [],
            "leveAllowances": sheet.leve_allowances,
            "nextLeveAllowances": _next_leve_allowances(now),
            "beastTribes": [],
        }

    async def _aetherytes(self, args: ToolArgs, _: Any) -> list[dict[str, Any]]:
        favourites = set((await self._sheet()).sheet.favourite_aetherytes)
        return [
            {
                "aetheryteId": a.id,
                "name": a.name,
                "territory": {"id": zone.territory, "name": zone.name},
                "gilCost": a.cost,
                "favourite": a.id in favourites,
                "housing": None,
            }
            for zone in await self.game.zones()
            for a in zone.aetherytes
        ]
