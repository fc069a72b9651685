"""Refusals across processes (W1, G2's rule for the game's gates): whatever a gate is sent, it answers
`{"ok": false, "error": "Game.<Gate>: ..."}` saying what was wrong and what to do, and changes nothing."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from game import ADMIN_GATES, GameError, GameGate, GameUnavailableError

from ._system import WAIT, call, game_peer, game_system, proven, refused

pytestmark = pytest.mark.asyncio

REFUSALS: list[tuple[GameGate, object, tuple[str, ...]]] = [
    # the argument itself
    (GameGate.BUY, "{itemId: 4554", ("not valid JSON", 'such as {"itemId": 4554, "count": 1}')),
    (GameGate.BUY, "[4554]", ("must be a JSON object", "got `array`")),
    (GameGate.BUY, 4554, ("must be a JSON object in a string",)),
    (GameGate.BUY, '{"itemId": "4554"}', ("argument `itemId`", "Expected `int`, got `str`")),
    (GameGate.BUY, '{"itemId": 4554, "cuont": 2}', ("unknown argument `cuont`", "`itemId`, `count`")),
    (GameGate.BUY, "{}", ("missing argument `itemId`",)),
    (GameGate.MOVE_TO, '{"x": true, "z": 0}', ("argument `x`", "got `bool`")),
    (GameGate.GET_PLAYER, '{"verbose": true}', ("unknown argument `verbose`",)),
    (GameGate.TRADE, '{"to": "Koana Ruhl", "items": [{"itemId": 2, "count": "all"}]}', ("`items[0].count`",)),
    # the world says no
    (GameGate.BUY, '{"itemId": 999999}', ("no item has itemId 999999", "Game.GetItems")),
    (GameGate.BUY, '{"itemId": 2}', ("Fire Shard (2) is not sold by vendors",)),
    (GameGate.BUY, '{"itemId": 4554, "count": 0}', ("`count` is 0: give 1 to 9,999",)),
    (GameGate.BUY, '{"itemId": 10386, "count": 2}', ("costs 14,000 Wolf Marks", "has 12,000")),
    (GameGate.SELL, '{"itemId": 4554, "count": 21}', ("holds 20 × Hi-Potion (4554) and cannot sell 21",)),
    (GameGate.SELL, '{"itemId": 44178}', ("vendors do not buy Dinner Moogle Bonds", "Game.Discard")),
    (GameGate.DISCARD, '{"itemId": 4551}', ("holds 0 × Potion",)),
    (GameGate.TRADE, '{"to": "Koana Ruhl"}', ("nothing to trade",)),
    (GameGate.TRADE, '{"to": "Wuk Lamat", "gil": 5}', ("cannot trade with themselves",)),
    (GameGate.TRADE, '{"to": "Koana Ruhl", "gil": 2000000}', ("one trade carries 0 to 1,000,000 gil",)),
    (GameGate.MOVE_TO_MAP, '{"x": 50, "y": 3}', ("(50, 3) is off the map: map coordinates run from 1 to 42.",)),
    (GameGate.MOVE_TO, '{"x": 9000, "z": 0}', ("off the map of Tuliyollal", "Game.MoveToMap")),
    (GameGate.SET_FLAG, '{"x": 0.5, "y": 10}', ("(0.5, 10) is off the map",)),
    (GameGate.SET_FLAG, '{"x": 10, "y": 10, "zone": "Gridania"}', ("no zone named 'Gridania'", "'Tuliyollal'")),
    (GameGate.SET_FLAG, '{"x": 10, "y": 10, "territory": 1185, "zone": "Kozama\'uka"}', ("give one of them",)),
    (GameGate.TELEPORT, '{"aetheryte": "Gridania"}', ("no aetheryte 'Gridania'", "Ok'hanu (200)")),
    (GameGate.SEND_CHAT, '{"text": ""}', ("`text` must be 1 to 500 characters",)),
    (GameGate.SEND_CHAT, '{"text": "hi", "channel": "tell"}', ("no chat channel 'tell'", "say, yell")),
    (GameGate.SEND_CHAT, '{"text": "a\\nb"}', ("one chat line",)),
    (GameGate.CLOSE_WINDOW, '{"name": "Shop"}', ("no window named 'Shop' is open; no window is open",)),
    (GameGate.ANSWER_DIALOG, '{"name": "Shop", "yes": true}', ("no window named 'Shop' is open",)),
    (GameGate.LOGIN, '{"name": "Koana"}', ("no character named 'Koana'", "Wuk Lamat, Erenville")),
    (GameGate.SET, '{"path": "mana", "value": 1}', ("no path 'mana'", "gil, position, territory")),
    (GameGate.SET, '{"path": "gil", "value": "lots"}', ("`gil` takes a whole number",)),
    (GameGate.SET, '{"path": "gil", "value": -1}', ("`gil` takes 0 to 999,999,999",)),
    (GameGate.SET, '{"path": "currencies.99", "value": 1}', ("no currency with that id", "28 (Allagan")),
    (GameGate.SET, '{"path": "territory", "value": 1}', ("no zone with territory 1",)),
    (GameGate.SET, '{"path": "position", "value": "north"}', ('`position` takes {"x": X, "z": Z}',)),
    (GameGate.CHANGES, '{"since": 0, "limit": 10001}', ("`limit` is 10001: give 1 to 10,000",)),
    (GameGate.CHANGES, "{}", ("missing argument `since`",)),
    (GameGate.GET_CHAT, '{"limit": 0}', ("`limit` is 0",)),
    (GameGate.ADVANCE_CLOCK, '{"seconds": -1}', ("`seconds` is -1",)),
    (GameGate.SAVE, "{}", ("started without --save",)),
    (GameGate.SAVE, '{"path": "world.txt"}', ("does not end in .json",)),
]


async def test_w1_a_refused_call_says_why_and_changes_nothing(tmp_path: Path) -> None:
    """One game for every refusal: none may change anything, so the world after all of them is the first."""
    wrong: list[str] = []
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT * 3):
                before = await game.state()
                for gate, argument, says in REFUSALS:
                    if gate in ADMIN_GATES:  # the player's call (F4), refused for what it asks
                        assert isinstance(argument, str)
                        argument = await proven(pi, system.data_dir, gate, argument)
                    error = await refused(pi, gate, argument)
                    wrong.extend(
                        f"{gate} {argument!r}: {part!r} not in {error!r}" for part in says if part not in error
                    )
                assert await game.state() == before
                assert (await game.snapshot()).seq == 0
    assert wrong == []


async def test_w1_not_enough_gil_refuses_a_teleport_and_a_purchase_saying_the_price(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                await game.set("gil", 300)
                before = await game.state()
                error = await refused(pi, GameGate.TELEPORT, '{"aetheryte": "Limsa Lominsa Aetheryte Plaza"}')
                assert "costs 999 gil and the character has 300" in error
                error = await refused(pi, GameGate.BUY, '{"itemId": 4554}')
                assert "1 × Hi-Potion costs 320 gil and the character has 300" in error
                assert await game.state() == before


async def test_w1_logged_out_the_character_cannot_act_and_is_told_to_log_in(tmp_path: Path) -> None:
    acting = [
        (GameGate.MOVE_TO, '{"x": 0, "z": 0}'),
        (GameGate.MOVE_TO_MAP, '{"x": 10, "y": 10}'),
        (GameGate.TELEPORT, '{"aetheryte": "Tuliyollal"}'),
        (GameGate.BUY, '{"itemId": 4554}'),
        (GameGate.SELL, '{"itemId": 4554}'),
        (GameGate.DISCARD, '{"itemId": 4554}'),
        (GameGate.TRADE, '{"to": "Koana Ruhl", "gil": 1}'),
        (GameGate.SEND_CHAT, '{"text": "hello"}'),
        (GameGate.OPEN_WINDOW, '{"name": "Shop"}'),
        (GameGate.SET_FLAG, '{"x": 10, "y": 10}'),
        (GameGate.SET_TARGET, '{"name": "Striking Dummy"}'),
        (GameGate.START_COMBAT, ""),
    ]
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                await game.logout()
                before = await game.state()
                for gate, argument in acting:
                    error = await refused(pi, gate, argument)
                    assert "the character is logged out" in error and "Game.Login" in error, error
                assert await game.state() == before


async def test_w1_in_combat_the_character_cannot_teleport(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                await game.start_combat()
                error = await refused(pi, GameGate.TELEPORT, '{"aetheryte": "Tuliyollal"}')
                assert "in combat" in error and "Game.EndCombat" in error


async def test_w1_the_client_raises_the_games_message_and_no_game_is_game_unavailable(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                with pytest.raises(GameError, match=r"^Game\.Buy: no item has itemId 1 "):
                    await game.buy(1)
                assert game.available
                assert system.game is not None
                system.game.kill()
                await pi.wait_until(lambda: not game.available)
                with pytest.raises(GameUnavailableError, match="No game is on the bus: start one with `xivmcp game`"):
                    await game.snapshot()


async def test_w1_a_null_or_empty_argument_means_no_arguments(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, _):
            for argument in (None, "", "  ", "{}"):
                assert (await call(pi, GameGate.GET_FLAG, argument)) == {"ok": True, "flag": None}


async def test_w1_a_gate_sent_the_object_itself_takes_it_as_its_json(tmp_path: Path) -> None:
    """`xivmcp gate call Game.Buy '{"itemId": 4554}'` sends an object, not a string: the game takes it."""
    with game_system(tmp_path) as system:
        async with game_peer(system) as (pi, _):
            reply = await call(pi, GameGate.BUY, {"itemId": 4554})
            assert reply["ok"] is True and len(reply["changes"]) == 2
