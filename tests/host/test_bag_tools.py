"""XIV MCP's move_items and sort_inventory against the simulated bags, all real processes (W5).

A system like `test_equip_tools`' (Items & retainers changes allowed). The default world's bags
hold three stacks in Inventory1's first slots, in the order of its counts: Hi-Potion (20), Grade 2
Gemdraught of Strength (5), Dinner Moogle Bonds (1); its shards and crystals have a container of
their own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from game import GameClient

from ._game_session import fresh, made_since, matching_schema, snapshot, start_game_allowing
from ._system import XivMcpSystem

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def bags(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    """The module's system, with Items & retainers changes allowed."""
    yield start_game_allowing(system, "items_retainers")


async def layout(game: GameClient) -> dict[str, tuple[str, int]]:
    """Each occupied slot, as 'Inventory1[0]', with its item's name and count."""
    world = await game.state()
    names = {i.item_id: i.name for i in world.items}
    return {f"{s.container}[{s.slot}]": (names[s.item_id], s.count) for s in world.bags}


def one(result: dict[str, object]) -> object:
    assert result["requested"] == 1 and result["failed"] == 0 and result["skipped"] == 0, result["results"]
    results = result["results"]
    assert isinstance(results, list) and len(results) == 1
    return results[0]


async def test_w5_move_items_moves_a_stack_and_records_move_items(bags: XivMcpSystem) -> None:
    async with fresh(bags) as (assistant, game):
        before, seq = await snapshot(game)
        move = {"from_container": "Inventory1", "from_slot": 0, "to_container": "Inventory2", "to_slot": 4}
        result = matching_schema("move_items", await assistant.result("move_items", {"moves": [move]}))
        assert one(result) == {
            "index": 0,
            "ok": True,
            "status": "moved",
            "item": "Hi-Potion",
            "from": "Inventory1[0]",
            "to": "Inventory2[4]",
        }
        assert await made_since(game, seq) == [
            ("XivMcp", "move_items", "moved 20 Hi-Potion from Inventory1[0] to Inventory2[4]")
        ]
        now = await layout(game)
        assert "Inventory1[0]" not in now and now["Inventory2[4]"] == ("Hi-Potion", 20)
        assert (await snapshot(game))[0] == before  # a move changes where, not how many
        # the assistant reads the same containers and slots in get_inventory that move_items takes
        shown = {c["container"]: c["items"] for c in (await assistant.result("get_inventory"))["containers"]}
        assert {"slot": 4, "itemId": 4554, "name": "Hi-Potion", "quantity": 20} in shown["Inventory2"]
        assert all(i["slot"] != 0 for i in shown["Inventory1"])

        # by item id, to the first empty slot of the bag
        move = {"item_id": 4554, "to_container": "Inventory1"}  # found outside the target bag
        assert one(await assistant.result("move_items", {"moves": [move]}))["to"] == "Inventory1[0]"  # type: ignore[index]
        move = {"item_id": 2, "to_container": "Inventory2"}  # a shard: not in the bags
        result = await assistant.result("move_items", {"moves": [move]})
        assert result["results"][0]["reason"] == "Item 2 (Fire Shard) not found."


async def test_w5_move_items_moves_part_of_a_stack_merges_and_swaps(bags: XivMcpSystem) -> None:
    async with fresh(bags) as (assistant, game):
        _, seq = await snapshot(game)
        part = {"from_container": "Inventory1", "from_slot": 0, "quantity": 5, "to_container": "Inventory3"}
        assert one(await assistant.result("move_items", {"moves": [part]}))["to"] == "Inventory3[0]"  # type: ignore[index]
        now = await layout(game)
        assert now["Inventory1[0]"] == ("Hi-Potion", 15) and now["Inventory3[0]"] == ("Hi-Potion", 5)
        assert "Inventory1[3]" not in now  # the split-off part moved on from where it split

        merge = {"from_container": "Inventory3", "from_slot": 0, "to_container": "Inventory1", "to_slot": 0}
        assert one(await assistant.result("move_items", {"moves": [merge]}))["status"] == "moved"  # type: ignore[index]
        now = await layout(game)
        assert now["Inventory1[0]"] == ("Hi-Potion", 20) and "Inventory3[0]" not in now

        swap = {"from_container": "Inventory1", "from_slot": 0, "to_container": "Inventory1", "to_slot": 2}
        assert one(await assistant.result("move_items", {"moves": [swap]}))["status"] == "swapped"  # type: ignore[index]
        now = await layout(game)
        assert now["Inventory1[2]"] == ("Hi-Potion", 20) and now["Inventory1[0]"] == ("Dinner Moogle Bonds", 1)
        assert await made_since(game, seq) == [
            ("XivMcp", "move_items", "moved 5 Hi-Potion from Inventory1[0] to Inventory3[0]"),
            ("XivMcp", "move_items", "moved 5 Hi-Potion from Inventory3[0] to Inventory1[0] (merged)"),
            (
                "XivMcp",
                "move_items",
                "moved 20 Hi-Potion from Inventory1[0] to Inventory1[2] (swapped with Dinner Moogle Bonds)",
            ),
        ]


async def test_w5_the_slots_follow_the_counts(bags: XivMcpSystem) -> None:
    async with fresh(bags) as (_, game):
        await game.set("inventory.4554", 12)  # fewer: out of the last stack
        await game.set("inventory.44162", 9)  # more: the stack topped up
        await game.set("inventory.44031", 1)  # new: the first free slot
        now = await layout(game)
        assert now["Inventory1[0]"] == ("Hi-Potion", 12) and now["Inventory1[1]"] == (
            "Grade 2 Gemdraught of Strength",
            9,
        )
        assert now["Inventory1[3]"] == ("Ceremonial Ring of Fending", 1)
        await game.set("inventory.4554", 0)
        assert "Inventory1[0]" not in await layout(game)


async def test_w5_sort_inventory_sorts_the_bags_by_item_id(bags: XivMcpSystem) -> None:
    async with fresh(bags) as (assistant, game):
        move = {"from_container": "Inventory1", "from_slot": 0, "quantity": 7, "to_container": "Inventory4"}
        await assistant.result("move_items", {"moves": [move]})  # Hi-Potion in two stacks
        before, seq = await snapshot(game)
        arguments = {"categories": ["inventory"], "conditions": [{"by": "id", "order": "desc"}]}
        assert matching_schema("sort_inventory", await assistant.result("sort_inventory", arguments)) == {
            "sorted": ["inventory"],
            "commands": [
                "/itemsort clear inventory",
                "/itemsort condition inventory id des",
                "/itemsort execute inventory",
            ],
            "gameMessages": [],
            "note": "The game applies the sort itself; check get_inventory to see the result. Game error messages, "
            "if any, are listed in gameMessages.",
        }
        assert await made_since(game, seq) == [("XivMcp", "move_items", "sorted the bags by item id (descending)")]
        assert await layout(game) == {
            "Inventory1[0]": ("Dinner Moogle Bonds", 1),
            "Inventory1[1]": ("Grade 2 Gemdraught of Strength", 5),
            "Inventory1[2]": ("Hi-Potion", 20),
        }
        assert (await snapshot(game))[0] == before


async def test_w5_move_and_sort_refusals_change_nothing_and_say_what_to_do(bags: XivMcpSystem) -> None:
    async with fresh(bags) as (assistant, game):
        before, seq = await snapshot(game)
        slots = await layout(game)
        for tool, arguments, message in [
            ("move_items", {"moves": []}, "'moves' must be a non-empty array."),
            ("move_items", {"moves": [{"from_slot": 0}]}, "Move #0: 'to_container' is required."),
            (
                "move_items",
                {"moves": [{"item_id": 2, "to_container": "ArmoryHead"}]},
                "Move #0: 'ArmoryHead' is not a container items can be moved to/from. "
                "Valid: Inventory1, Inventory2, Inventory3, Inventory4",
            ),
            (
                "move_items",
                {"moves": [{"from_container": "Inventory1", "to_container": "Inventory2"}]},
                "Move #0: give from_container + from_slot, or item_id.",
            ),
            ("sort_inventory", {"categories": [], "conditions": [{"by": "id"}]}, "'categories' is required."),
            (
                "sort_inventory",
                {"categories": ["attic"], "conditions": [{"by": "id"}]},
                "Unknown category 'attic'. Valid: inventory, retainer, armoury, saddlebag, rightsaddlebag, mh, oh, "
                "head, body, hands, legs, feet, neck, ears, wrists, rings, soul, armoury_slots",
            ),
            (
                "sort_inventory",
                {"categories": ["armoury"], "conditions": [{"by": "id"}]},
                "Sorting 'armoury' is not simulated here: only the bags have slots in this game. Use category "
                "inventory.",
            ),
            (
                "sort_inventory",
                {"categories": ["inventory"], "conditions": [{"by": "ilv", "order": "des"}]},
                "Sorting by 'ilv' is not simulated here: the simulated items have only an id to sort by. Use "
                "condition id (asc or des).",
            ),
            (
                "sort_inventory",
                {"categories": ["inventory"], "conditions": [{"by": "id", "order": "up"}]},
                "order must be 'asc' or 'des'.",
            ),
        ]:
            assert await assistant.error(tool, arguments) == message

        failing = [
            ({"from_container": "Inventory1", "from_slot": 9, "to_container": "Inventory2"}, "Inventory1[9] is empty."),
            ({"item_id": 4555, "to_container": "Inventory2"}, "Item 4555 (Ether) not found."),
            (
                {"from_container": "Inventory1", "from_slot": 0, "to_container": "Inventory1", "to_slot": 0},
                "Source and target are the same slot.",
            ),
            (
                {"from_container": "Inventory1", "from_slot": 0, "to_container": "Inventory2", "to_slot": 35},
                "Inventory2 has slots 0-34.",
            ),
        ]
        for move, reason in failing:
            result = await assistant.result("move_items", {"moves": [move, move]})
            assert result["results"] == [{"index": 0, "ok": False, "status": "failed", "reason": reason}]
            assert (result["moved"], result["failed"], result["skipped"]) == (0, 1, 1)

        await game.start_combat()
        move = {"from_container": "Inventory1", "from_slot": 0, "to_container": "Inventory2"}
        result = await assistant.result("move_items", {"moves": [move]})
        assert result["results"][0]["reason"] == "Can't change the inventory right now (character state: InCombat)."
        sort = {"categories": ["inventory"], "conditions": [{"by": "id"}]}
        assert await assistant.error("sort_inventory", sort) == (
            "Can't change the inventory right now (character state: InCombat)."
        )
        await game.end_combat()
        changes = await made_since(game, seq)
        assert all(capability != "move_items" for _, capability, _ in changes)
        assert (await snapshot(game))[0] == before and await layout(game) == slots
