"""The game's admin gates answer only the player or the harness (F4), across processes.

`Game.Set`, `Game.AdvanceClock`, `Game.Save` and `Game.Reset` rewrite the world: a plugin that
could call them would set its gil back after spending it and hide the effect from XIV MCP's
verdict. Each call proves the player key of the game's --data-dir (a nonce from
`Game.AdminHello`, a MAC tagged for game admin); a plugin, which has no key, is refused, and
nothing changes. The proofs here are made by hand (`proven`), as the game's docs say, so the
protocol itself is tested, not only `GameClient`'s use of it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

import broker
from game import ADMIN_GATES, GameClient, GameError, GameGate
from gates.contract import PLAYER_KEY_FILE, ProofPurpose, canonical_json, new_nonce, tagged_mac
from gates.player import player_mac

from ._system import WAIT, call, game_peer, game_system, proven, refused, run_cli

pytestmark = pytest.mark.asyncio

PLUGIN = "Sneaky"
"""A plugin's peer: no player key."""
ONLY_THE_PLAYER = "only the player rewrites the world this way"
ADMIN_CALLS: dict[GameGate, str] = {
    GameGate.SET: '{"path": "gil", "value": 999999}',
    GameGate.ADVANCE_CLOCK: '{"seconds": 600}',
    GameGate.SAVE: "{}",
    GameGate.RESET: "{}",
}
"""A call of each admin gate that the player's proof would let through."""


async def test_f4_every_admin_gate_is_behind_the_player_key() -> None:
    assert set(ADMIN_CALLS) == ADMIN_GATES


async def test_f4_a_plugin_calling_game_set_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    saved = tmp_path / "saved.json"
    with game_system(tmp_path, "--save", str(saved)) as system:
        async with game_peer(system, PLUGIN, player=False) as (pi, game):
            with anyio.fail_after(WAIT * 2):
                await game.buy(4554, 1)  # acting in the world as a character would: answered
                before, seq = await game.state(), (await game.snapshot()).seq
                with pytest.raises(GameError) as raised:
                    await game.set("gil", 999_999)
                assert raised.value.message == (
                    "Game.Set: only the player rewrites the world this way (`xivmcp game set PATH VALUE`, or a "
                    "test harness with the player key); a plugin acts in the world through the game's other gates, "
                    "as a character would (Game.Buy, Game.MoveTo, Game.SendChat, ...). Nothing was changed. A "
                    "caller with the player key asks Game.AdminHello for a nonce and sends its proof with the call "
                    "(GameClient.as_player does both)"
                )
                elsewhere = str(tmp_path / "x.json")
                for refusing in (
                    lambda: game.advance_clock(600),
                    lambda: game.save(),
                    lambda: game.save(elsewhere),
                    lambda: game.reset(),
                ):
                    with pytest.raises(GameError, match=ONLY_THE_PLAYER):
                        await refusing()
                for gate, argument in ADMIN_CALLS.items():  # raw, as `xivmcp gate call` would send them
                    assert ONLY_THE_PLAYER in await refused(pi, gate, argument)
                assert ONLY_THE_PLAYER in await refused(pi, GameGate.SET, {"path": "gil", "value": 1})
                assert await game.state() == before and (await game.snapshot()).seq == seq
    assert not saved.exists() and not (tmp_path / "x.json").exists()


async def test_f4_the_players_xivmcp_game_set_still_works_and_is_the_players_change(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        done = run_cli(system, "game", "set", "gil", "5000")  # the player: the system's data dir, its key
        assert done.returncode == 0, done
        assert "set gil to 5,000 (was 100,000)" in done.stdout and "XivMcpCli" in done.stdout
        assert run_cli(system, "game", "advance", "1").stdout.startswith("the clock is at 1.0 s")
        elsewhere = tmp_path / "other-data"
        done = run_cli(system, "game", "set", "gil", "1", data_dir=elsewhere)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.strip() == (
            f"No player key at {elsewhere / PLAYER_KEY_FILE}: no XIV MCP host has run with this data dir. "
            f"Start one with `xivmcp up --data-dir {elsewhere}` (or pass the --data-dir it uses)."
        )
        elsewhere.mkdir()
        (elsewhere / PLAYER_KEY_FILE).write_text("another key", encoding="utf-8")
        done = run_cli(system, "game", "set", "gil", "1", data_dir=elsewhere)
        assert done.returncode == 1 and done.stdout == ""
        assert "Game.Set: the game on the bus does not check your player key" in done.stderr
        assert "Nothing was sent" in done.stderr
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                assert (await game.currencies()).gil == 5000


async def test_f4_a_replayed_or_forged_proof_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        key = (system.data_dir / PLAYER_KEY_FILE).read_text(encoding="utf-8").strip()
        async with game_peer(system) as (pi, game), game_peer(system, PLUGIN, player=False) as (plugin_pi, _):
            with anyio.fail_after(WAIT * 2):

                async def nonce(peer: broker.PluginInterface = pi) -> str:
                    hello = await call(peer, GameGate.ADMIN_HELLO, '{"nonce": "mine"}')
                    assert hello["ok"] is True, hello
                    return str(hello["nonce"])

                def admin(nonce: str, gate: str = "Game.Set", arguments: object = None, key: str = key) -> str:
                    return tagged_mac(key, ProofPurpose.GAME_ADMIN, nonce, gate, canonical_json(arguments or set_gil))

                def sent(nonce: str, mac: str) -> str:
                    return json.dumps({**set_gil, "proof": {"nonce": nonce, "mac": mac}})

                set_gil = {"path": "gil", "value": 999_999}
                good = await proven(pi, system.data_dir, GameGate.SET, '{"path": "gil", "value": 4242}')
                assert (await call(pi, GameGate.SET, good))["ok"] is True
                before, seq = await game.state(), (await game.snapshot()).seq

                forged = {"replayed": good}  # the same proof again: its nonce is used up
                n = await nonce()
                forged["another key"] = sent(n, admin(n, key="a guess"))
                n = await nonce()
                forged["other arguments"] = sent(n, admin(n, arguments={"path": "gil", "value": 1}))
                n = await nonce()
                forged["another gate's"] = sent(n, admin(n, gate="Game.Reset"))
                n = await nonce()
                forged["a player command's"] = sent(n, player_mac(key, n, pi.name, canonical_json(set_gil)))
                n = await nonce()
                forged["the game's answer's tag"] = sent(n, tagged_mac(key, ProofPurpose.GAME, n))
                n = new_nonce()
                forged["a nonce never handed out"] = sent(n, admin(n))
                n = await nonce(plugin_pi)  # handed to the plugin: nobody else's to use
                forged["another caller's nonce"] = sent(n, admin(n))
                forged["no mac"] = json.dumps({**set_gil, "proof": {"nonce": await nonce()}})
                forged["a proof that is no object"] = json.dumps({**set_gil, "proof": "let me"})

                wrong = {why: await call(pi, GameGate.SET, argument) for why, argument in forged.items()}
                assert {why: reply["ok"] for why, reply in wrong.items()} == dict.fromkeys(forged, False)
                assert all(reply["error"].startswith(f"Game.Set: {ONLY_THE_PLAYER}") for reply in wrong.values())
                assert await game.state() == before and (await game.snapshot()).seq == seq


async def test_f4_the_game_reads_the_key_when_it_checks_and_says_how_to_get_one(tmp_path: Path) -> None:
    with game_system(tmp_path, start_game=False) as system:
        (system.data_dir / PLAYER_KEY_FILE).unlink()  # as before the host's first start
        system.start_game("--test-clock")
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                error = await refused(pi, GameGate.ADMIN_HELLO, '{"nonce": "n"}')
                key_file = system.data_dir / PLAYER_KEY_FILE
                assert error == (
                    f"Game.AdminHello: there is no player key at {key_file} yet, so the game cannot tell the "
                    f"player from a plugin; start XIV MCP once with this data dir (`xivmcp up --data-dir "
                    f"{system.data_dir}`), which makes it, then call again"
                )
                assert "there is no player key" in await refused(pi, GameGate.SET, '{"path": "gil", "value": 1}')
                with pytest.raises(GameError, match="No player key at"):  # the client says so before it asks
                    await game.set("gil", 1)
                system.player_key()  # the host would make it at its start, after the game's
                assert [c.summary for c in (await game.set("gil", 1)).changes] == ["set gil to 1 (was 100,000)"]


async def test_f4_a_game_without_a_data_dir_refuses_its_admin_gates_saying_how_to_start_it(tmp_path: Path) -> None:
    with game_system(tmp_path, start_game=False) as system:
        proc = system.spawn([sys.executable, "-m", "game", "--bus", system.endpoint, "--test-clock"], "game")
        await proc.expect("xivmcp game: ready", WAIT)
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                with pytest.raises(GameError) as raised:
                    await game.advance_clock(1)
                assert raised.value.message == (
                    "Game.AdminHello: this game was started without a data dir, so it has no player key to tell "
                    "the player from a plugin, and refuses every admin gate; start it with --data-dir DATA_DIR, "
                    "XIV MCP's data dir (`xivmcp up` does)"
                )
                assert "started without a data dir" in await refused(pi, GameGate.RESET, "{}")
                assert (await game.time()).time == 0.0


async def test_f4_a_client_with_a_key_the_game_does_not_check_sends_nothing_and_is_told_why(tmp_path: Path) -> None:
    """The game proves its key first (`Game.AdminHello`), so the call itself is never sent to a game
    that checks another key, or to a process that took the name Game and knows none."""
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game), game_peer(system, PLUGIN, player=False) as (pi, _):
            with anyio.fail_after(WAIT):
                before = await game.state()
                with pytest.raises(GameError) as raised:
                    await GameClient(pi, player_key="a guess").set("gil", 1)
                assert raised.value.message.startswith(
                    "Game.Set: the game on the bus does not check your player key (the key this client was given)"
                )
                assert await game.state() == before
