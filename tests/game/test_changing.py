"""The changing gates across processes (W2): each one's effect on the world, and the changes it
records, by the process that called (the bus says who), with the capability each needs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from game import Change, GameClient, JsonValue, SnapshotDelta, TradeItem
from gates.testing import XivMcpSystem

from ._system import TESTER, WAIT, game_peer, game_system

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def set_system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    with game_system(tmp_path_factory.mktemp("set")) as system:
        yield system


def kinds(changes: list[Change]) -> list[tuple[str, str, SnapshotDelta]]:
    """(kind, capability, delta) of each change, after checking it was made by the test's peer."""
    assert all(c.by == TESTER for c in changes), changes
    return [(c.kind, c.capability, c.delta) for c in changes]


async def held(game: GameClient, item_id: int) -> int:
    return next((i.count for i in (await game.inventory()).items if i.item_id == item_id), 0)


async def test_w2_buy_pays_gil_and_receives_items_and_each_change_is_broadcast(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            heard: list[Change] = []
            two = anyio.Event()

            def hear(change: Change) -> None:
                heard.append(change)
                if len(heard) == 2:
                    two.set()

            game.on_change(hear)
            with anyio.fail_after(WAIT):
                await pi.flush()  # the subscription is at the broker before anything changes
                reply = await game.buy(4554, 2)
                assert kinds(reply.changes) == [
                    ("gil", "spend_gil", SnapshotDelta(gil=-640)),
                    ("items", "move_items", SnapshotDelta(item_total=2)),
                ]
                assert [c.seq for c in reply.changes] == [1, 2]
                assert (await game.currencies()).gil == 100_000 - 640 and await held(game, 4554) == 22
                await two.wait()
            assert heard == reply.changes
            assert (await game.changes(0)).changes == reply.changes


async def test_w2_buy_with_a_currency_spends_it(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                reply = await game.buy(41763)  # Savage Aim Materia XII: 150 Allagan Tomestones of Poetics
                assert kinds(reply.changes) == [
                    ("currency", "spend_currency", SnapshotDelta(currencies={28: -150})),
                    ("items", "move_items", SnapshotDelta(item_total=1)),
                ]
                poetics = next(c for c in (await game.currencies()).currencies if c.id == 28)
                assert poetics.count == 1_250 and await held(game, 41763) == 1


async def test_w2_sell_discard_and_trade_remove_items_each_with_its_capability(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                sold = await game.sell(4554, 5)
                assert kinds(sold.changes) == [
                    ("items", "trade_items", SnapshotDelta(item_total=-5)),
                    ("gil", "spend_gil", SnapshotDelta(gil=60)),
                ]
                thrown = await game.discard(2, 99)
                assert kinds(thrown.changes) == [("items", "discard_items", SnapshotDelta(item_total=-99))]
                traded = await game.trade("Koana Ruhl", [TradeItem(item_id=4554, count=3), TradeItem(item_id=3)], 500)
                assert kinds(traded.changes) == [
                    ("items", "trade_items", SnapshotDelta(item_total=-4)),
                    ("gil", "spend_gil", SnapshotDelta(gil=-500)),
                ]
                assert "Koana Ruhl" in traded.changes[0].summary
                assert await held(game, 4554) == 12 and await held(game, 2) == 900 and await held(game, 3) == 449
                assert (await game.currencies()).gil == 100_000 + 60 - 500


async def test_w2_send_chat_appends_a_line_and_counts_it(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                reply = await game.send_chat("Hello, Tuliyollal!", "yell")
                assert kinds(reply.changes) == [("chat", "chat_send", SnapshotDelta(chat_sent=1))]
                [line] = await game.chat()
                assert (line.channel, line.text, line.by) == ("yell", "Hello, Tuliyollal!", TESTER)
                assert (await game.snapshot()).snapshot.chat_sent == 1


async def test_w2_windows_open_close_and_a_dialog_is_answered(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                opened = await game.open_window("Shop")
                assert kinds(opened.changes) == [("window", "game_ui", SnapshotDelta())]
                assert (await game.open_window("Shop")).changes == []  # already open: nothing to change
                await game.open_window("SelectYesno", "yesno", "Teleport to Ok'hanu?")
                assert [(w.name, w.kind, w.opened_by) for w in await game.windows()] == [
                    ("Shop", "window", TESTER),
                    ("SelectYesno", "yesno", TESTER),
                ]
                answered = await game.answer_dialog("SelectYesno", yes=True)
                assert kinds(answered.changes) == [("window", "game_ui", SnapshotDelta())]
                assert "Yes" in answered.changes[0].summary
                closed = await game.close_window("Shop")
                assert kinds(closed.changes) == [("window", "game_ui", SnapshotDelta())]
                assert await game.windows() == []


async def test_w2_logout_login_and_switching_character_change_what_the_snapshot_reads(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                first = (await game.snapshot()).snapshot
                out = await game.logout()
                assert kinds(out.changes) == [("login", "login", SnapshotDelta(logged_in=False))]
                assert (await game.logout()).changes == []
                back = await game.login()
                assert kinds(back.changes) == [("login", "login", SnapshotDelta(logged_in=True))]
                switched = await game.login("Erenville")
                [(kind, capability, delta)] = kinds(switched.changes)
                assert (kind, capability, delta.territory, delta.gil) == ("login", "login", 1188, 48_210 - 100_000)
                assert delta.content_id is not None and delta.content_id != first.content_id
                assert delta.logged_in is None  # logged in before and after: the character changed
                player = await game.player()
                assert (player.player.name, player.zone) == ("Erenville", "Kozama'uka")
                await game.login("Wuk Lamat")
                assert (await game.snapshot()).snapshot == first


async def test_w2_flag_target_and_combat(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                flagged = await game.set_flag(21.5, 21.5, zone="Kozama'uka", name="hunt")
                assert kinds(flagged.changes) == [("flag", "game_ui", SnapshotDelta())]
                flag = await game.flag()
                assert flag is not None and (flag.territory, flag.zone, flag.name) == (1188, "Kozama'uka", "hunt")
                assert (flag.world.x, flag.world.z) == pytest.approx((0.0, 0.0))  # a field's map middle
                assert kinds((await game.clear_flag()).changes) == [("flag", "game_ui", SnapshotDelta())]
                assert (await game.clear_flag()).changes == [] and await game.flag() is None
                assert kinds((await game.set_target("Striking Dummy")).changes) == [
                    ("target", "game_ui", SnapshotDelta())
                ]
                assert kinds((await game.start_combat()).changes) == [("combat", "combat", SnapshotDelta())]
                assert (await game.player()).player.in_combat
                assert kinds((await game.end_combat()).changes) == [("combat", "combat", SnapshotDelta())]
                assert kinds((await game.set_target(None)).changes) == [("target", "game_ui", SnapshotDelta())]


async def test_w2_teleport_changes_zone_and_costs_the_aetherytes_gil(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                reply = await game.teleport("ok'hanu")  # any case
                assert kinds(reply.changes) == [
                    ("zone", "move_character", SnapshotDelta(territory=1188)),
                    ("gil", "spend_gil", SnapshotDelta(gil=-312)),
                ]
                where = await game.position()
                assert (where.zone, where.position.x, where.position.z) == ("Kozama'uka", -170.0, -480.0)
                assert (await game.currencies()).gil == 100_000 - 312
                home = await game.teleport(216)  # by id; the home point is free
                assert kinds(home.changes) == [("zone", "move_character", SnapshotDelta(territory=1185))]


@pytest.mark.parametrize(
    ("path", "value", "kind", "capability", "delta"),
    [
        ("gil", 5_000, "gil", "spend_gil", SnapshotDelta(gil=5_000 - 100_000)),
        ("position", "10,-20", "position", "move_character", SnapshotDelta()),
        ("position", {"x": 1, "z": 2, "y": 3}, "position", "move_character", SnapshotDelta()),
        ("territory", 129, "zone", "move_character", SnapshotDelta(territory=129)),
        ("territory", "Middle La Noscea", "zone", "move_character", SnapshotDelta(territory=134)),
        ("logged_in", False, "login", "login", SnapshotDelta(logged_in=False)),
        ("inventory.4554", 25, "items", "move_items", SnapshotDelta(item_total=5)),
        ("inventory.4555", 3, "items", "move_items", SnapshotDelta(item_total=3)),
        ("inventory.2", 0, "items", "move_items", SnapshotDelta(item_total=-999)),
        ("currencies.28", 2_000, "currency", "spend_currency", SnapshotDelta(currencies={28: 600})),
        ("in_combat", True, "combat", "combat", SnapshotDelta()),
        ("target", "Koana Ruhl", "target", "game_ui", SnapshotDelta()),
        ("walk_speed", 9.5, "settings", "edit_settings", SnapshotDelta()),
    ],
)
async def test_w2_set_records_the_capability_its_path_needs(
    set_system: XivMcpSystem, path: str, value: JsonValue, kind: str, capability: str, delta: SnapshotDelta
) -> None:
    async with game_peer(set_system) as (_, game):
        with anyio.fail_after(WAIT):
            await game.reset()  # the world at its start for each case: one game serves them all
            reply = await game.set(path, value)
            assert kinds(reply.changes) == [(kind, capability, delta)]
            assert (await game.set(path, value)).changes == []
