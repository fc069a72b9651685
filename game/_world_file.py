"""World files: loading one for `--world FILE.json`, and writing one for `Game.Save` (W1).

`Game.Save` writes only into the data dir's world folder (`DATA_DIR/worlds`, `world_in_folder`),
or to the game's own `--save FILE`: paths the player chose, never one a caller names (S5). A
call that names another path is refused without touching it, so the game is no oracle of what
exists where. `xivmcp game save PATH` writes elsewhere from the player's own process.

A world file is the `World` document as JSON. Loading checks what decoding cannot (the player
stands in a zone the world has, a map's size factor is positive ...) and names the field, so a
hand-edited file gets one line saying what to fix. Writing replaces the file at once (a reader
never sees half a world), and only ever overwrites a world file, so a mistyped path cannot
destroy something else.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from pathlib import Path
from typing import Final

import msgspec

from ._documents import World
from ._equip import check_gear
from ._errors import WorldFileError
from ._shop_checks import check_shops
from ._trade import check_trades
from ._travel import check_travel
from ._world_checks import check_people

__all__ = [
    "MAX_CHAT_LINES",
    "MAX_WALK_SPEED",
    "WORLDS_DIR",
    "check_world",
    "decode_world",
    "load_world",
    "save_world",
    "world_in_folder",
]

MAX_CHAT_LINES: Final = 500
"""Chat lines the world keeps (the newest), so a long session's world stays small (B7)."""
MAX_WALK_SPEED: Final = 100.0
"""Yalms per second a world may walk at (the game's own is 6)."""
WORLDS_DIR: Final = "worlds"
"""The data dir's world folder: where `Game.Save` writes a world it is given a name for."""
_NAME_LIMIT: Final = 100

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(World).decode


def check_world(world: World) -> str | None:
    """Why `world` cannot run, naming the field (`$.player.territory`), or None."""
    zones = {zone.territory for zone in world.zones}
    if not world.zones:
        return "`$.zones` is empty: a world needs at least one zone for the player to stand in"
    if len(zones) != len(world.zones):
        return "`$.zones` names a territory twice: each zone needs a territory id of its own"
    for index, zone in enumerate(world.zones):
        if zone.map.size_factor <= 0:
            return f"`$.zones[{index}].map.sizeFactor` is {zone.map.size_factor}: use 100 for a field, 200 for a city"
    if not (math.isfinite(world.walk_speed) and 0 < world.walk_speed <= MAX_WALK_SPEED):
        return (
            f"`$.walkSpeed` is {world.walk_speed}: give yalms per second, more than 0 and at most "
            f"{MAX_WALK_SPEED:g} (6 walks)"
        )
    for where, character in [("$.player", world.player)] + [
        (f"$.characters[{i}]", c) for i, c in enumerate(world.characters)
    ]:
        if character.territory not in zones:
            known = sorted(zones)
            return f"`{where}.territory` is {character.territory}, a zone this world does not have: use one of {known}"
        if character.gil < 0:
            return f"`{where}.gil` is {character.gil}: gil cannot be negative"
    if len({item.item_id for item in world.items}) != len(world.items):
        return "`$.items` lists an itemId twice: each catalog item needs an id of its own"
    for index, held in enumerate(world.inventory):
        if held.count < 0:
            return f"`$.inventory[{index}].count` is {held.count}: a count cannot be negative"
    for index, currency in enumerate(world.currencies):
        if currency.count < 0:
            return f"`$.currencies[{index}].count` is {currency.count}: a count cannot be negative"
    if world.movement is not None and not (world.movement.speed > 0 and math.isfinite(world.movement.speed)):
        return f"`$.movement.speed` is {world.movement.speed}: a walk needs a positive speed"
    return check_people(world) or check_shops(world) or check_trades(world) or check_gear(world) or check_travel(world)


def decode_world(data: bytes, where: str) -> World:
    """A world from JSON, or `WorldFileError` naming `where` and the field that is wrong."""
    try:
        world = _decode(data)
    except msgspec.ValidationError as exc:
        raise WorldFileError(f"{where} is not a valid world: {exc}.") from None
    except msgspec.DecodeError as exc:
        raise WorldFileError(f"{where} is not JSON: {exc}.") from None
    problem = check_world(world)
    if problem is not None:
        raise WorldFileError(f"{where} is not a valid world: {problem}.")
    world.chat = world.chat[-MAX_CHAT_LINES:]
    return world


def load_world(path: Path) -> World:
    """The world in a world file; `WorldFileError` (one line, naming the file) when it cannot be used."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorldFileError(
            f"The world file {path} cannot be read: {exc.strerror or exc}. Give an existing file "
            "(`xivmcp game save FILE` writes one), or leave --world out for the default world."
        ) from None
    return decode_world(data, f"The world file {path}")


def save_world(world: World, path: Path) -> Path:
    """Write `world` to `path` (absolute), replacing it at once; `WorldFileError` when it must not or cannot."""
    path = path.expanduser().absolute()
    if path.suffix.lower() != ".json":
        raise WorldFileError(f"{path} does not end in .json: the game writes worlds only to .json files.")
    if path.is_dir():
        raise WorldFileError(f"{path} is a folder: give a file path such as {path / 'world.json'}.")
    if path.exists():
        try:
            decode_world(path.read_bytes(), str(path))
        except (WorldFileError, OSError):
            raise WorldFileError(
                f"{path} exists and is not a world file; the game overwrites only world files. Pick another path."
            ) from None
    body = msgspec.json.format(_encode(world), indent=2) + b"\n"
    temporary: str | None = None
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as out:
            out.write(body)
        os.replace(temporary, path)
    except OSError as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise WorldFileError(f"The world could not be written to {path}: {exc.strerror or exc}.") from None
    return path


def world_in_folder(folder: Path, name: str) -> Path:
    """The file `name` of the world folder `folder` (made, owner-only, if missing); `WorldFileError`
    for a name that is not a plain file name ending in .json. Nothing outside the folder is looked at."""
    plain = (
        0 < len(name) <= _NAME_LIMIT
        and name.isprintable()
        and not name.startswith(".")
        and not any(sep in name for sep in ("/", "\\", ":"))
    )
    if not plain or not name.lower().endswith(".json"):
        shown = name[:_NAME_LIMIT].encode("unicode_escape").decode("ascii")
        why = "is not a plain file name" if not plain else "does not end in .json"
        raise WorldFileError(
            f"'{shown}' {why}: the game writes worlds only into its world folder {folder}, so give a name "
            'such as "farm.json" (no folder); `xivmcp game save PATH` writes anywhere you choose'
        )
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder / name
