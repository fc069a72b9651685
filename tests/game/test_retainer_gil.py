"""Gil entrusted to a retainer and withdrawn, across processes (W1, W2): `Game.RetainerGil` at a bell,
the change it records with the capability it needs, and refusals that change nothing."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from game import GameError, SnapshotDelta
from gates.testing import XivMcpSystem

from ._system import TESTER, WAIT, game_peer, game_system

BELL = (-8.0, 30.0)


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with game_system(tmp_path_factory.mktemp("bank")) as system:
        yield system


@pytest.mark.asyncio
async def test_w2_gil_moves_between_the_character_and_the_called_retainer(bank: XivMcpSystem) -> None:
    async with game_peer(bank) as (_, game):
        with anyio.fail_after(WAIT):
            await game.reset()
            seq = (await game.snapshot()).seq
            with pytest.raises(GameError) as refused:
                await game.retainer_gil(1_000)
            assert refused.value.message.startswith("Game.RetainerGil: the character is not at a summoning bell")
            await game.set_position(*BELL)
            with pytest.raises(GameError) as refused:
                await game.retainer_gil(1_000)
            assert refused.value.message.startswith("Game.RetainerGil: no retainer is called")
            await game.open_retainer("Mirah")
            seq = (await game.snapshot()).seq
            with pytest.raises(GameError) as refused:
                await game.retainer_gil(5_000, "withdraw")
            assert refused.value.message == "Game.RetainerGil: Mirah has 3,100 gil and cannot withdraw 5,000"
            assert (await game.snapshot()).seq == seq  # refused: nothing recorded

            deposit = await game.retainer_gil(1_000)
            withdraw = await game.retainer_gil(4_100, "withdraw")
            assert [(c.by, c.kind, c.capability, c.delta) for c in deposit.changes + withdraw.changes] == [
                (TESTER, "gil", "spend_gil", SnapshotDelta(gil=-1_000)),
                (TESTER, "gil", "move_items", SnapshotDelta(gil=4_100)),
            ]
            mirah = next(r for r in (await game.retainers()).retainers if r.name == "Mirah")
            assert mirah.gil == 0 and (await game.player()).player.gil == 103_100
