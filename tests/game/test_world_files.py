"""World files (W1): a world saved by `Game.Save` starts a game that is the same world; a file the
game cannot use stops it at once with one line naming the file and what to fix."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import msgspec
import pytest

from game import GameGate, World, default_world, load_world
from gates.testing import xivmcp_argv

from ._system import WAIT, game_peer, game_system, proven, refused


@pytest.mark.asyncio
async def test_w1_a_saved_world_loads_as_the_same_world_walk_and_clock_included(tmp_path: Path) -> None:
    saved = tmp_path / "world.json"
    with game_system(tmp_path / "first", "--save", str(saved)) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.buy(4554, 3)
                await game.send_chat("saving soon")
                await game.set_flag(20.0, 20.0, territory=1188)
                await game.open_window("SelectYesno", "yesno", "Quit?")
                await game.move_to(40.0, 92.0)
                await game.advance_clock(4.0)
                reply = await game.save()  # to --save
                assert reply.path == str(saved)
                before = await game.state()
    assert before.time == 4.0 and before.movement is not None and load_world(saved) == before
    with game_system(tmp_path / "second", "--world", str(saved)) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                assert await game.state() == before
                assert (await game.time()).time == 4.0
                [arrived] = (await game.advance_clock(100.0)).changes  # the walk carries on where it was
                assert arrived.summary.startswith("arrived at (40.0, 92.0)")


@pytest.mark.asyncio
async def test_w1_save_writes_a_name_into_the_world_folder_and_never_over_a_file_that_is_not_a_world(
    tmp_path: Path,
) -> None:
    with game_system(tmp_path) as system:
        worlds = system.data_dir / "worlds"
        async with game_peer(system) as (pi, game):
            with anyio.fail_after(WAIT):
                assert (await game.save("mine.json")).path == str(worlds / "mine.json")
                assert load_world(worlds / "mine.json") == default_world()
                assert (await game.save("mine.json")).path  # a world file may be replaced
                (worlds / "notes.json").write_text('{"not": "a world"}', encoding="utf-8")
                argument = await proven(pi, system.data_dir, GameGate.SAVE, json.dumps({"path": "notes.json"}))
                error = await refused(pi, GameGate.SAVE, argument)
                assert "exists and is not a world file" in error and "Pick another path" in error
        assert (worlds / "notes.json").read_text(encoding="utf-8") == '{"not": "a world"}'


@pytest.mark.asyncio
async def test_s5_game_save_writes_nowhere_a_caller_names_and_says_nothing_of_what_exists_there(
    tmp_path: Path,
) -> None:
    # SPEC: W1
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "there.json").write_text('{"not": "a world"}', encoding="utf-8")
    with game_system(tmp_path / "system") as system:
        async with game_peer(system) as (pi, _):
            errors = []
            for path in (outside / "new.json", outside / "there.json", outside / "no" / "such.json", "../x.json"):
                argument = await proven(pi, system.data_dir, GameGate.SAVE, json.dumps({"path": str(path)}))
                errors.append(await refused(pi, GameGate.SAVE, argument))
    assert sorted(p.name for p in outside.iterdir()) == ["there.json"]  # nothing new, nothing replaced
    assert (outside / "there.json").read_text(encoding="utf-8") == '{"not": "a world"}'
    named = (outside / "new.json", outside / "there.json", outside / "no" / "such.json")
    for error, path in zip(errors[:3], named, strict=True):
        # the same refusal, whether the path exists or not: no oracle
        assert error == errors[0].replace(str(outside / "new.json"), str(path))
        assert 'give a name such as "farm.json"' in error and "xivmcp game save PATH" in error


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{not json", "is not JSON"),
        (b'{"player": {"gil": "lots"}}', "Expected `int`, got `str` - at `$.player.gil`"),
        (b'{"zones": []}', "`$.zones` is empty"),
        (
            msgspec.json.encode(msgspec.structs.replace(default_world(), walk_speed=0.0)),
            "`$.walkSpeed` is 0.0",
        ),
        (
            msgspec.json.encode(
                msgspec.structs.replace(
                    default_world(), player=msgspec.structs.replace(default_world().player, territory=1)
                )
            ),
            "`$.player.territory` is 1, a zone this world does not have",
        ),
    ],
)
@pytest.mark.asyncio
async def test_w1_a_bad_world_file_exits_2_with_one_line_naming_the_file_and_the_field(
    tmp_path: Path, content: bytes, says: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with game_system(tmp_path, start_game=False) as system:
        proc = system.spawn(xivmcp_argv("game", "--bus", system.endpoint, "--world", str(bad)), "bad-world")
        assert await proc.wait(WAIT) == 2
        lines = (system.logs / "bad-world.log").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and says in lines[0], lines
    assert lines[0].startswith("xivmcp game: The world file ")


@pytest.mark.asyncio
async def test_w1_a_missing_world_file_exits_2_with_one_line(tmp_path: Path) -> None:
    with game_system(tmp_path, start_game=False) as system:
        missing = tmp_path / "missing.json"
        proc = system.spawn(xivmcp_argv("game", "--bus", system.endpoint, "--world", str(missing)), "no-world")
        assert await proc.wait(WAIT) == 2
        [line] = (system.logs / "no-world.log").read_text(encoding="utf-8").splitlines()
    assert f"The world file {missing} cannot be read" in line and "leave --world out" in line


def test_w1_the_default_world_is_a_valid_world_file(tmp_path: Path) -> None:
    path = tmp_path / "default.json"
    path.write_bytes(msgspec.json.encode(default_world()))
    assert load_world(path) == default_world() and isinstance(load_world(path), World)
