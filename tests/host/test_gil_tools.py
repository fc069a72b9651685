"""XIV MCP's move_gil against the simulated game, all real processes (W5), and the amounts it reads.

One system for the module, with the changes of Items & retainers allowed (denied by default, as in
the real host). Each test puts the world back as the game started: the character has 100,000 gil,
Ququru 12,500 and Mirah 3,100. The gil moves at a summoning bell, each change recorded by XivMcp
with the capability it needs; a refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gates.contract import RefusedError
from gates.host.tools._bell import NOT_AT_BELL
from gates.host.tools._gil_tools import NO_CHEST, gil_amount

from ._game_session import fresh, made_since, snapshot, start_game_allowing
from ._system import XivMcpSystem

BELL = (-8.0, 30.0)


@pytest.fixture(scope="module")
def banking(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "items_retainers")


@pytest.mark.parametrize(
    ("text", "available", "room", "amount"),
    [("1200", 5000, 10**9, 1200), ("1,200", 5000, 10**9, 1200), ("15k", 20_000, 10**9, 15_000),
     ("1.5m", 2_000_000, 10**9, 1_500_000), ("50%", 12_345, 10**9, 6_172), ("all", 700, 500, 500),
     ("ALL", 700, 10**9, 700)],
)  # fmt: skip
def test_w5_gil_amounts_are_read_as_players_write_them(text: str, available: int, room: int, amount: int) -> None:
    assert gil_amount(text, available, room) == amount


@pytest.mark.parametrize(
    ("text", "available", "room", "message"),
    [
        ("lots", 100, 10**9, "Unknown gil amount 'lots'. Use a number (1200, 15k, 1.5m), a percentage (50%) or all."),
        ("all", 0, 10**9, "There is no gil to move."),
        ("150%", 100, 10**9, "A percentage must be between 1% and 100%."),
        ("0", 100, 10**9, "The amount must be more than 0 gil."),
        ("5k", 1_000, 10**9, "There is only 1,000 gil to move, not 5,000."),
        ("500", 1_000, 100, "That would go over 999,999,999 gil; at most 100 more fit."),
    ],
)
def test_w5_a_gil_amount_that_cannot_be_moved_is_refused_in_the_real_words(
    text: str, available: int, room: int, message: str
) -> None:
    with pytest.raises(RefusedError) as refused:
        gil_amount(text, available, room)
    assert str(refused.value) == message


@pytest.mark.asyncio
async def test_w5_move_gil_deposits_and_withdraws_at_a_bell(banking: XivMcpSystem) -> None:
    async with fresh(banking) as (assistant, game):
        await game.set_position(*BELL)
        before, seq = await snapshot(game)
        moved = await assistant.result("move_gil", {"direction": "deposit", "amount": "15k", "retainer": "ququru"})
        assert moved == {
            "moved": 15_000,
            "direction": "deposit",
            "where": "Ququru",
            "yourGil": 85_000,
            "storedGil": 27_500,
        }
        assert [c for c in await made_since(game, seq) if c[1] != "game_ui"] == [
            ("XivMcp", "spend_gil", "entrusted 15,000 gil to Ququru")
        ]
        _, seq = await snapshot(game)
        back = await assistant.result("move_gil", {"direction": "withdraw", "amount": "all"})  # the retainer called
        assert back == {"moved": 27_500, "direction": "withdraw", "where": "Ququru", "yourGil": 112_500, "storedGil": 0}
        assert await made_since(game, seq) == [("XivMcp", "move_items", "withdrew 27,500 gil from Ququru")]
        assert (await snapshot(game))[0].gil == before.gil + 12_500


@pytest.mark.asyncio
async def test_w5_move_gil_refusals_change_nothing_and_say_what_to_do(banking: XivMcpSystem) -> None:
    async with fresh(banking) as (assistant, game):
        before = await snapshot(game)
        deposit = {"direction": "deposit", "amount": "1000"}
        for arguments, message in [
            ({"direction": "give", "amount": "1"}, "'direction' must be deposit or withdraw."),
            ({"direction": "deposit"}, "'amount' is required."),
            ({**deposit, "where": "fc_chest"}, NO_CHEST),
            (deposit, NOT_AT_BELL),
        ]:
            assert await assistant.error("move_gil", arguments) == message
        assert await snapshot(game) == before

        await game.set_position(*BELL)
        before = await snapshot(game)
        assert await assistant.error("move_gil", deposit) == (
            "No retainer is open. Name one with 'retainer' (at a summoning bell)."
        )
        assert await assistant.error("move_gil", {**deposit, "retainer": "Bob"}) == (
            "No retainer called 'Bob'. Your retainers: Ququru, Mirah."
        )
        assert await snapshot(game) == before
        withdraw = {"direction": "withdraw", "amount": "5k", "retainer": "Mirah"}
        assert await assistant.error("move_gil", withdraw) == "There is only 3,100 gil to move, not 5,000."
        assert (await snapshot(game))[0] == before[0]  # Mirah was called (game_ui), no gil moved
