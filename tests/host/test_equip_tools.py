"""XIV MCP's equip_items against the simulated game, all real processes (W5).

A system like `test_gil_tools`' (Items & retainers changes allowed). Wuk Lamat, a level 100
Warrior, wears a full set with both ring slots taken; the default world's catalog has a ring for
tanks, a bracelet for healers and a cap anyone can wear, none of them in the bags at the start.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from game import GameClient

from ._game_session import fresh, made_since, snapshot, start_game_allowing
from ._system import XivMcpSystem

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def banking(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    """The module's system, with Items & retainers changes allowed."""
    yield start_game_allowing(system, "items_retainers")


RING, BRACELET, CAP = "Ceremonial Ring of Fending", "Ceremonial Bracelet of Healing", "Weathered Hempen Cap"


async def worn(game: GameClient) -> dict[str, str]:
    return {e.slot: e.name for e in (await game.character_sheet()).sheet.equipment}


async def test_w5_equip_items_puts_gear_on_and_the_replaced_piece_goes_into_the_bags(banking: XivMcpSystem) -> None:
    async with fresh(banking) as (assistant, game):
        await game.set("inventory.44031", 1)
        before, seq = await snapshot(game)
        assert await assistant.result("equip_items", {"items": [RING]}) == {"equipped": [{"item": RING, "slot": 11}]}
        assert await made_since(game, seq) == [
            ("XivMcp", "move_items", f"put on {RING} (RightRing); Tuliyollan Ring of Fending went back into the bags")
        ]
        assert (await worn(game))["RightRing"] == RING
        bags = {i.name: i.count for i in (await game.inventory()).items}
        assert RING not in bags and bags["Tuliyollan Ring of Fending"] == 1
        assert (await snapshot(game))[0].item_total == before.item_total  # one out, one back

        _, seq = await snapshot(game)
        assert await assistant.result("equip_items", {"items": [44031]}) == {
            "equipped": [{"item": RING, "already": True}]
        }
        assert await made_since(game, seq) == []


async def test_w5_equip_items_refusals_say_what_to_do_and_stop_at_the_first(banking: XivMcpSystem) -> None:
    async with fresh(banking) as (assistant, game):
        await game.set("inventory.44032", 1)
        before = await snapshot(game)
        for arguments, message in [
            ({}, "'items' is required."),
            ({"items": ["Potion"]}, "Potion is not gear."),
            ({"items": [CAP]}, f"You don't carry {CAP} (bags or armoury chest)."),
            ({"items": [BRACELET]}, f"{BRACELET} can't be worn as Warrior: switch to a job that can (switch_gearset)."),
        ]:
            assert await assistant.error("equip_items", arguments) == message
        assert await snapshot(game) == before

        await game.set("inventory.44033", 1)
        await game.start_combat()
        assert await assistant.error("equip_items", {"items": [CAP]}) == "Can't change gear during combat."
        await game.end_combat()
        assert await assistant.error("equip_items", {"items": [CAP, "Potion"]}) == "Potion is not gear."
        assert (await worn(game))["Head"] == CAP  # the cap, before the refusal, stays on

        await game.set("inventory.44031", 1)
        await game.login("Erenville")  # a level 92 Bard
        assert await assistant.error("equip_items", {"items": [RING]}) == f"{RING} needs level 100; you are 92."
