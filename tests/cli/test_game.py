"""`xivmcp game` for the player and the plugin author: state, set, changes, advance, save (W1)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

import broker
from game import GameGate, default_world, load_world
from tests.game._system import call, game_system, run_cli


def test_w1_game_state_reads_the_world_and_json_gives_the_world_document(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        done = run_cli(system, "game", "state")
        assert done.returncode == 0, done
        lines = dict(line.split(None, 1) for line in done.stdout.splitlines())
        assert lines["player"] == "Wuk Lamat of Ravana, Warrior 100, logged in"
        assert lines["zone"].startswith("Tuliyollal (1185) at map (10.8, 11.5)")
        assert lines["gil"] == "100,000" and lines["moving"] == "no" and lines["flag"] == "none"
        assert "20 × Hi-Potion (4554)" in lines["inventory"] and lines["time"] == "0.0 s (test clock)"
        done = run_cli(system, "game", "state", "--json")
        assert done.returncode == 0 and json.loads(done.stdout)["player"]["gil"] == default_world().player.gil


def test_w1_game_set_prints_what_changed_and_a_refusal_exits_1_with_the_games_message(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        done = run_cli(system, "game", "set", "gil", "5000")
        assert done.returncode == 0, done
        [line] = done.stdout.splitlines()
        assert "spend_gil" in line and "set gil to 5,000 (was 100,000)" in line and "XivMcpCli" in line
        done = run_cli(system, "game", "set", "gil", "5000")
        assert done.returncode == 0 and "nothing changed" in done.stdout
        done = run_cli(system, "game", "set", "position", '{"x": 1, "z": 2}')
        assert done.returncode == 0 and "set position to (1.0, 2.0)" in done.stdout
        done = run_cli(system, "game", "set", "target", "null")  # JSON null: no target (there was none)
        assert done.returncode == 0 and "nothing changed" in done.stdout
        done = run_cli(system, "game", "set", "mana", "3")
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [
            "Game.Set: there is no path 'mana' to set; the paths are gil, position, territory, logged_in, "
            "inventory.<itemId>, currencies.<id>, in_combat, target, walk_speed"
        ]


def test_w1_game_changes_lists_seq_by_capability_and_summary(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        for value in ("1000", "2000", "3000"):
            assert run_cli(system, "game", "set", "gil", value).returncode == 0
        done = run_cli(system, "game", "changes")
        assert done.returncode == 0, done
        rows = [line.split() for line in done.stdout.splitlines()]
        assert [row[0] for row in rows] == ["1", "2", "3"] and all(row[4] == "spend_gil" for row in rows)
        done = run_cli(system, "game", "changes", "--since", "2", "--json")
        reply = json.loads(done.stdout)
        assert [c["seq"] for c in reply["changes"]] == [3] and reply["seq"] == 3 and reply["complete"]


def test_w1_game_advance_moves_the_test_clock_and_prints_the_arrivals(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        assert run_cli(system, "game", "set", "walk_speed", "50").returncode == 0
        assert run_cli(system, "gate", "call", "Game.MoveTo", '{"x": 30, "z": 12}').returncode == 0  # 50 yalms
        done = run_cli(system, "game", "advance", "2")
        assert done.returncode == 0, done
        clock, arrival = done.stdout.splitlines()
        assert clock == "the clock is at 2.0 s" and "arrived at (30.0, 12.0)" in arrival


def test_w1_game_save_writes_the_file_named_from_the_shells_folder(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        target = tmp_path / "saved.json"
        done = run_cli(system, "game", "save", str(target))
        assert done.returncode == 0 and done.stdout.strip() == f"saved the world to {target}", done
    assert load_world(target) == default_world()


def test_w1_without_a_game_on_the_bus_each_action_exits_2_with_one_line(tmp_path: Path) -> None:
    with game_system(tmp_path, start_game=False) as system:
        for action in (["state"], ["set", "gil", "1"], ["changes"], ["advance", "1"]):
            done = run_cli(system, "game", *action)
            assert done.returncode == 2, (action, done)
            assert done.stderr.strip().splitlines() == [
                "No game is on the bus: start one with `xivmcp game` (or `xivmcp up`)."
            ]


def test_s3_game_state_and_changes_show_a_plugins_chat_escaped(tmp_path: Path) -> None:
    # SPEC: S3 - the chat line is the plugin's; the terminal must not obey it
    text = "gg\x1b[2K\x9b\u202eall fine"
    shown = "gg\\x1b[2K\\x9b\\u202eall fine"

    async def say(endpoint: str) -> None:
        async with broker.connect(endpoint, "Chatty") as pi:
            reply = await call(pi, GameGate.SEND_CHAT, json.dumps({"text": text}))
            assert reply["ok"] is True, reply

    with game_system(tmp_path) as system:
        anyio.run(say, system.endpoint)
        for command in (("game", "state"), ("game", "changes"), ("game", "changes", "--json")):
            done = run_cli(system, *command)
            assert done.returncode == 0, done
            assert not any(c in done.stdout for c in "\x1b\x9b\u202e"), done.stdout
        assert shown in run_cli(system, "game", "state").stdout
        assert f"said in say: {shown}" in run_cli(system, "game", "changes").stdout
        changes = json.loads(run_cli(system, "game", "changes", "--json").stdout)["changes"]
        assert changes[-1]["summary"] == f"said in say: {text}"  # the same JSON, its characters escaped


def test_every_common_option_is_taken_after_the_game_action_too() -> None:
    from xivmcp.cli import build_parser

    args = build_parser("game").parse_args(["game", "state", "--curve", "--bus", "tcp://127.0.0.1:1", "-v"])
    assert (args.curve, args.bus, args.verbose) == (True, "tcp://127.0.0.1:1", True)
