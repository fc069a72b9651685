"""`Game.EquipGearset`: equipping one of the character's saved gearsets, as clicking it in the Gear Set
list does: the gear it holds is worn and the character's class or job becomes the set's, at the
level the sheet gives that job.

Refused (changing nothing) while logged out, in combat, for a gearset the sheet does not have, or
for one whose job the character has not unlocked. Equipping the set already worn, on its job,
changes nothing. The change is recorded with `game_ui` (the Gear Set list is a game window): it
touches nothing XIV MCP's snapshot reads.
"""

from __future__ import annotations

import msgspec

from gates.contract import CapabilityId

from ._args import _Args
from ._classjobs import ClassJob, find_class_job, shares_level
from ._engine import GameEngine
from ._errors import Refusal
from ._replies import ChangeReply
from ._roster import sheet_of
from ._sheet import CharacterSheet, ClassJobLevel

__all__ = ["EquipGearsetArgs", "equip_gearset"]


class EquipGearsetArgs(_Args, kw_only=True):
    number: int
    """The gearset's number, as the Gear Set list numbers it (1 to 100)."""


def _level_entry(sheet: CharacterSheet, row: ClassJob) -> ClassJobLevel | None:
    """The sheet's level of `row` (a job shares its class's)."""
    return next(
        (e for e in sheet.class_jobs if (r := find_class_job(e.job)) is not None and shares_level(r, row)), None
    )


def equip_gearset(engine: GameEngine, args: EquipGearsetArgs, by: str) -> ChangeReply:
    engine.require_logged_in("change gear")
    world, player = engine.world, engine.world.player
    if player.in_combat:
        raise Refusal("the character is in combat and cannot change gear; end the fight first (Game.EndCombat)")
    sheet = sheet_of(world)
    gearset = next((g for g in sheet.gearsets if g.number == args.number), None)
    if gearset is None:
        saved = ", ".join(f"{g.number} {g.name}" for g in sheet.gearsets) or "none"
        raise Refusal(f"the character has no gearset {args.number}; its gearsets are {saved} (Game.GetCharacterSheet)")
    row = find_class_job(gearset.job)
    if row is None:
        raise Refusal(f"gearset {gearset.number} names {gearset.job!r}, not a class or job of the game")
    current = find_class_job(player.job)
    entry = _level_entry(sheet, row)
    level = player.level if current is not None and shares_level(row, current) else (entry.level if entry else 0)
    if level <= 0:
        raise Refusal(f"the character has not unlocked {row.title}, the job of gearset {gearset.number}")
    if sheet.gearset == gearset.number and current is not None and current.id == row.id:
        return ChangeReply()
    stored = next((s for s in world.sheets if s.content_id == sheet.content_id), None)
    was = player.job

    def equip() -> None:
        if stored is None:
            world.sheets.append(sheet)
        sheet.gearset = gearset.number
        sheet.equipment = [msgspec.structs.replace(item) for item in gearset.items]
        if current is not None and not shares_level(row, current):
            # the job left keeps its level on the sheet (the sheet gives the current job's as the player's)
            kept = _level_entry(sheet, current)
            if kept is not None:
                kept.level = player.level
        player.job, player.level = row.title, level

    summary = f"equipped gearset {gearset.number} ({gearset.name}): {was} → {row.title}"
    return ChangeReply(changes=[engine.record(by, CapabilityId.GAME_UI, "gearset", summary, equip)])
