"""XIV MCP's equip_items over the simulated game (module items_retainers).

    equip_items   each item in order (name or id): worn already ─► {item, already: true}; else the
                  real host's checks (combat, gear, level, job, carried), then `Game.Equip`, which
                  records move_items ─► {item, slot} with the slot's index in the game's order

A refusal stops at that item; the items before it stay on, as in the real host. Refusals are the
real host's words (`FashionTools.cs`, `PrepareEquip`).
"""

from __future__ import annotations

from typing import Any

from game import EQUIP_SLOTS, RING, find_class_job
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._game_tools import GameAccess
from ._spending import resolve_item

__all__ = ["EquipTools"]


class EquipTools:
    """The handler of equip_items."""

    def __init__(self, game: GameAccess) -> None:
        self._game = game

    def handlers(self) -> dict[str, ToolHandler]:
        return {"equip_items": self._equip_items}

    async def _equip_items(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        if args.values.get("items") is None:
            raise RefusedError("'items' is required.")
        wanted = ["" if v is None else str(v) for v in args.items("items")]
        return {"equipped": [await self._equip(query) for query in wanted]}

    async def _equip(self, query: str) -> dict[str, Any]:
        client = self._game.client
        here = (await self._game.player()).player
        item = resolve_item(await self._game.call(client.items()), query.strip() or None)
        world = await self._game.call(client.state())
        sheet = next((s for s in world.sheets if s.content_id == here.content_id), None)
        if sheet is not None and any(e.item_id == item.item_id for e in sheet.equipment):
            return {"item": item.name, "already": True}
        if here.in_combat:
            raise RefusedError("Can't change gear during combat.")
        gear = next((g for g in world.gear if g.item_id == item.item_id), None)
        if gear is None or (gear.slot != RING and gear.slot not in EQUIP_SLOTS):
            raise RefusedError(f"{item.name} is not gear.")
        if gear.equip_level > here.level:
            raise RefusedError(f"{item.name} needs level {gear.equip_level}; you are {here.level}.")
        job = find_class_job(here.job)
        if gear.jobs and job is not None and all(find_class_job(j) != job for j in gear.jobs):
            raise RefusedError(f"{item.name} can't be worn as {job.title}: switch to a job that can (switch_gearset).")
        held = next((i.count for i in world.inventory if i.item_id == item.item_id), 0)
        if held < 1:
            raise RefusedError(f"You don't carry {item.name} (bags or armoury chest).")
        put_on = await self._game.call(client.equip(item.item_id))
        return {"item": item.name, "slot": EQUIP_SLOTS.index(put_on.slot)}
