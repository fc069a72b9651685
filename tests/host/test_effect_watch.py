"""The watch that reads the game around third-party calls, against a real game and broker (A4, W2).

The test's peer holds an `EffectWatch` as the host does. The "plugin" is a second peer, Buyer,
whose gate `Buyer.Spend` changes the game and then answers: as in the host, the answer reaches
the watch's process through the bus after the game's change message, which is what lets the
watch judge without asking the game. The watch's clock is the test's, so when it reads the game's
own log (at most every `VERIFY_EVERY` seconds) is the test's to say.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

import broker
from game import GAME_NAME, Change, GameClient
from gates.host.calls._effect_watch import VERIFY_EVERY, EffectWatch, Mark

from ._system import WAIT, XivMcpSystem, host_system

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def game_system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with host_system(tmp_path_factory.mktemp("watch")) as system:
        system.start_game("--test-clock")
        yield system


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Setup:
    watch: EffectWatch
    clock: FakeClock
    game: GameClient
    spend: broker.CallGateSubscriber

    async def gil(self) -> int:
        return (await self.game.currencies()).gil

    async def spent(self, amount: int) -> None:
        """Buyer spends `amount` gil, as a plugin's tool would during its Invoke (by `Game.Set` with the
        player key over Buyer's own connection, so any amount is one change of Buyer's)."""
        await self.spend.invoke_func(amount)


@asynccontextmanager
async def watching(system: XivMcpSystem) -> AsyncIterator[Setup]:
    async with broker.connect(system.endpoint, "Watcher") as pi, broker.connect(system.endpoint, "Buyer") as buyer:
        buyer_game = GameClient.as_player(buyer, system.data_dir)

        async def spend(amount: int) -> bool:
            gil = (await buyer_game.currencies()).gil
            await buyer_game.set("gil", gil - amount)
            return True

        buyer.get_ipc_provider("Buyer.Spend", params=(int,), returns=bool).register_func(spend)
        await buyer.flush()
        clock = FakeClock()
        game = GameClient.as_player(pi, system.data_dir)
        if not (await game.player()).player.logged_in:
            await game.set("logged_in", True)
        yield Setup(EffectWatch(pi, clock=clock), clock, game, pi.get_ipc_subscriber("Buyer.Spend"))


async def test_in_step_the_watch_judges_a_call_from_the_games_messages_without_asking_it(
    game_system: XivMcpSystem,
) -> None:
    async with watching(game_system) as s:
        first = await s.watch.begin()
        await s.watch.end("Buyer", (), first)  # the first call reads the game's log: the check is due
        assert s.watch.reads == 2

        mark = await s.watch.begin()
        assert mark is not None and mark.snapshot.gil == await s.gil()
        await s.spent(120)
        verdict = await s.watch.end("Buyer", (), mark)

        assert [(e.effect, e.detail) for e in verdict.undeclared] == [("spent_gil", "120 gil spent.")]
        assert s.watch.reads == 2  # neither the snapshot before nor the changes after asked the game
        after = await s.watch.begin()
        assert after is not None and after.snapshot.gil == await s.gil() and after.seq == mark.seq + 1


async def test_another_processes_change_during_the_call_is_judged_and_named(game_system: XivMcpSystem) -> None:
    async with watching(game_system) as s:
        await s.watch.end("Buyer", (), await s.watch.begin())
        mark = await s.watch.begin()
        await s.spent(50)
        verdict = await s.watch.end("SomeoneElse", ("spend_gil",), mark)
        assert verdict.undeclared == ()  # declared: spend_gil covers it, whoever spent
        assert [(e.effect, by) for e, by in zip(verdict.effects, verdict.made_by, strict=True)] == [
            ("spent_gil", ("Buyer",))
        ]


async def test_a_message_that_went_missing_is_found_when_the_game_is_read_again(
    game_system: XivMcpSystem, caplog: pytest.LogCaptureFixture
) -> None:
    async with watching(game_system) as s:
        follow = s.watch._changed
        dropped: list[Change] = []
        drop_next = False

        def lossy(change: Change) -> None:  # the bus dropping the last message: no gap shows it
            if drop_next and not dropped:
                dropped.append(change)
            else:
                follow(change)

        s.watch._changed = lossy  # type: ignore[method-assign]  # before its first call subscribes it
        await s.watch.end("Buyer", (), await s.watch.begin())
        mark = await s.watch.begin()
        assert mark is not None
        drop_next = True
        await s.spent(75)
        assert dropped  # the change happened; the watch did not hear of it

        s.clock.now += VERIFY_EVERY  # the watch's next call reads the game's own log
        with caplog.at_level(logging.WARNING, logger="gates.effects"):
            verdict = await s.watch.end("Buyer", (), mark)
        assert [e.detail for e in verdict.undeclared] == ["75 gil spent."]
        assert "messages went missing" in caplog.text
        again = await s.watch.begin()
        assert again is not None and again.snapshot.gil == await s.gil() and again.seq == dropped[0].seq


async def test_a_gap_in_the_messages_makes_the_next_call_read_the_game(game_system: XivMcpSystem) -> None:
    async with watching(game_system) as s:
        await s.watch.end("Buyer", (), await s.watch.begin())
        mark = await s.watch.begin()
        assert mark is not None
        s.watch._changed(Change(seq=mark.seq + 5, at=0.0, by="Buyer", capability="spend_gil", kind="x", summary="x"))
        reads = s.watch.reads
        verdict = await s.watch.end("Buyer", (), mark)  # out of step: asks the game, which says nothing changed
        assert verdict.effects == () and s.watch.reads == reads + 1


async def test_a_reset_of_the_world_makes_the_next_call_read_the_game(game_system: XivMcpSystem) -> None:
    async with watching(game_system) as s:
        await s.watch.end("Buyer", (), await s.watch.begin())
        await s.spent(30)
        assert (held := await s.watch.begin()) is not None and held.snapshot.gil == await s.gil()
        await s.game.reset()  # records no change: only Game.WorldReset says the world is not what it was
        reads = s.watch.reads
        fresh = await s.watch.begin()
        assert s.watch.reads == reads + 1
        assert fresh is not None and fresh.snapshot.gil == await s.gil() != held.snapshot.gil


async def test_a_change_heard_while_a_read_was_under_way_is_taken_up_by_its_mark(game_system: XivMcpSystem) -> None:
    """A read's reply and the next change can come in one frame, the change first."""
    async with watching(game_system) as s:
        await s.watch.end("Buyer", (), await s.watch.begin())
        now = await s.game.snapshot()
        s.watch._out_of_step()  # as while a read is under way
        heard = Change(seq=now.seq + 1, at=0.0, by="Buyer", capability="spend_gil", kind="gil", summary="")
        s.watch._changed(heard)
        s.watch._in_step_at(Mark(now.snapshot, now.seq, s.watch._game_count))
        latest = await s.watch.begin()
        assert latest is not None and latest.seq == now.seq + 1


async def test_a_call_during_which_the_game_started_again_is_not_judged(tmp_path: Path) -> None:
    with host_system(tmp_path) as system:
        system.start_game("--test-clock")
        async with watching(system) as s:
            await s.watch.end("Buyer", (), await s.watch.begin())
            mark = await s.watch.begin()
            assert system.game is not None
            system.game.kill()  # its world goes with it; the new one is the world file's again
            with anyio.fail_after(WAIT):
                await s.watch._pi.wait_until(lambda: GAME_NAME not in s.watch._pi.peers)
            await anyio.to_thread.run_sync(system.start_game, "--test-clock")
            with anyio.fail_after(WAIT):
                await s.watch._pi.wait_until(lambda: s.game.available)
            await s.spent(10)
            verdict = await s.watch.end("Buyer", (), mark)
            assert verdict.effects == () and verdict.unchecked_reason == (
                "The game left the bus or started again during the call."
            )
