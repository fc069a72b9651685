"""The gates that read the world: nothing is recorded, nothing changes.

A read resolves walking first (the gates do that before every call), so a position read just
after the arrival time reads the destination, and the "arrived" change is already in the log.
"""

from __future__ import annotations

from typing import Final

import msgspec

from ._args import ChangesArgs, ChatArgs, NoArgs
from ._changes import MAX_CHANGES
from ._documents import ChangesReply, SnapshotReply
from ._engine import GameEngine
from ._errors import Refusal
from ._replies import (
    ChatReply,
    CurrenciesReply,
    FlagReply,
    InventoryReply,
    ItemsReply,
    PlayerReply,
    PositionReply,
    StateReply,
    TimeReply,
    WindowsReply,
    ZonesReply,
)
from ._setting import world_now
from ._world_file import MAX_CHAT_LINES

__all__ = [
    "CHANGES_LIMIT",
    "REPLY_BUDGET",
    "changes",
    "chat",
    "currencies",
    "flag",
    "inventory",
    "items",
    "player",
    "position",
    "snapshot",
    "state",
    "time",
    "windows",
    "zones",
]

REPLY_BUDGET: Final = 512 * 1024
"""Bytes a reply may have: well under the bus's 1 MiB payload limit, whatever it holds (B7)."""
CHANGES_LIMIT: Final = MAX_CHANGES
"""The most changes one `Game.Changes` may ask for (`limit`): as many as the log keeps. A reply
also stops where its size would pass the bus's limit, and says so (`ChangesReply.more`)."""
CHANGES_DEFAULT: Final = 1_000
CHAT_DEFAULT: Final = 50


def player(engine: GameEngine, _: NoArgs, __: str) -> PlayerReply:
    here = msgspec.structs.replace(engine.world.player, position=engine.position_now())
    return PlayerReply(player=here, zone=engine.current_zone.name, moving=engine.moving)


def position(engine: GameEngine, _: NoArgs, __: str) -> PositionReply:
    info = engine.position_info()
    return PositionReply(**msgspec.structs.asdict(info))


def inventory(engine: GameEngine, _: NoArgs, __: str) -> InventoryReply:
    held = engine.world.inventory
    return InventoryReply(items=held, total=sum(i.count for i in held), bags=engine.world.bags)


def currencies(engine: GameEngine, _: NoArgs, __: str) -> CurrenciesReply:
    return CurrenciesReply(gil=engine.world.player.gil, currencies=engine.world.currencies)


def windows(engine: GameEngine, _: NoArgs, __: str) -> WindowsReply:
    return WindowsReply(windows=engine.world.windows)


def flag(engine: GameEngine, _: NoArgs, __: str) -> FlagReply:
    return FlagReply(flag=engine.world.flag)


def zones(engine: GameEngine, _: NoArgs, __: str) -> ZonesReply:
    return ZonesReply(zones=engine.world.zones)


def items(engine: GameEngine, _: NoArgs, __: str) -> ItemsReply:
    return ItemsReply(items=engine.world.items)


def chat(engine: GameEngine, args: ChatArgs, __: str) -> ChatReply:
    limit = CHAT_DEFAULT if args.limit is None else args.limit
    if not 1 <= limit <= MAX_CHAT_LINES:
        raise Refusal(
            f"`limit` is {limit}: give 1 to {MAX_CHAT_LINES} (the game keeps the newest {MAX_CHAT_LINES} lines)"
        )
    return ChatReply(chat=engine.world.chat[-limit:])


def snapshot(engine: GameEngine, _: NoArgs, __: str) -> SnapshotReply:
    return SnapshotReply(ok=True, snapshot=engine.snapshot(), seq=engine.log.seq)


def changes(engine: GameEngine, args: ChangesArgs, __: str) -> ChangesReply:
    """The changes after `since`, oldest first, with the snapshot now and the newest seq."""
    limit = CHANGES_DEFAULT if args.limit is None else args.limit
    if not 1 <= limit <= CHANGES_LIMIT:
        raise Refusal(f"`limit` is {limit}: give 1 to {CHANGES_LIMIT:,}")
    if args.since < 0:
        raise Refusal(f"`since` is {args.since}: give 0 for every change kept, or the seq of a change seen")
    page = engine.log.since(args.since, limit, REPLY_BUDGET - 4096)  # room for the snapshot and the rest
    return ChangesReply(
        ok=True,
        snapshot=engine.snapshot(),
        seq=engine.log.seq,
        changes=page.changes,
        complete=page.complete,
        more=page.more,
    )


def state(engine: GameEngine, _: NoArgs, __: str) -> StateReply:
    return StateReply(world=world_now(engine))


def time(engine: GameEngine, _: NoArgs, __: str) -> TimeReply:
    return TimeReply(time=engine.now(), test_clock=engine.clock.manual)
