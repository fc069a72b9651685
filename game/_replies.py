"""The replies of the game's gates, as msgspec Structs: `{"ok": true, ...}` with each gate's fields.

A refusal is `{"ok": false, "error": "..."}` (`GameReply`). Every changing gate answers the changes
it recorded (`changes`, empty when there was nothing to change), so a caller sees what it did.
"""

from __future__ import annotations

from ._documents import (
    BagStack,
    Change,
    ChatLine,
    Currency,
    InventoryItem,
    ItemInfo,
    MapFlag,
    PlayerInfo,
    PositionInfo,
    Vec3,
    Window,
    World,
    Zone,
    _Doc,
)

__all__ = [
    "AdminHelloReply",
    "ChangeReply",
    "ChatReply",
    "ClockReply",
    "CurrenciesReply",
    "FlagReply",
    "InventoryReply",
    "ItemsReply",
    "MoveReply",
    "PlayerReply",
    "PositionReply",
    "ResetReply",
    "SaveReply",
    "StateReply",
    "StopReply",
    "TimeReply",
    "WindowsReply",
    "ZonesReply",
]


class _Reply(_Doc):
    ok: bool = True


class PlayerReply(_Reply, kw_only=True):
    player: PlayerInfo
    """The character, `position` where it is now (also while walking)."""
    zone: str
    moving: bool


class PositionReply(PositionInfo, kw_only=True):
    ok: bool = True


class InventoryReply(_Reply, kw_only=True):
    items: list[InventoryItem]
    total: int
    """The sum of the counts: the snapshot's `item_total`."""
    bags: list[BagStack] = []
    """Where the counts lie in the bags (Inventory1-4, slots 0-34): the layout `move_items` moves."""


class CurrenciesReply(_Reply, kw_only=True):
    gil: int
    currencies: list[Currency]


class WindowsReply(_Reply, kw_only=True):
    windows: list[Window]


class FlagReply(_Reply, kw_only=True):
    flag: MapFlag | None


class ZonesReply(_Reply, kw_only=True):
    zones: list[Zone]


class ItemsReply(_Reply, kw_only=True):
    items: list[ItemInfo]
    """The catalog: every item the game knows, with what vendors sell and buy it for."""


class ChatReply(_Reply, kw_only=True):
    chat: list[ChatLine]
    """Newest last."""


class StateReply(_Reply, kw_only=True):
    world: World


class TimeReply(_Reply, kw_only=True):
    time: float
    """Seconds of game time."""
    test_clock: bool


class ChangeReply(_Reply, kw_only=True):
    changes: list[Change] = []
    """What the call changed, in order (empty: it was already so)."""


class MoveReply(ChangeReply, kw_only=True):
    destination: Vec3
    distance: float
    """Yalms to walk, on the ground."""
    eta: float
    """Seconds until arrival (0: already there)."""
    arrives_at: float
    """The game time of arrival."""


class StopReply(ChangeReply, kw_only=True):
    stopped: bool
    """False when the character was not walking."""
    position: Vec3


class ClockReply(ChangeReply, kw_only=True):
    time: float
    """The game time after the clock moved; `changes` are the arrivals on the way."""


class ResetReply(_Reply, kw_only=True):
    seq: int
    """The newest change's seq, as before the reset: the log goes on, and `Game.Changes` since it
    gives what came after the reset."""
    time: float
    """The game time, which the reset does not move back."""


class SaveReply(_Reply, kw_only=True):
    path: str
    """The absolute path the world was written to."""


class AdminHelloReply(_Reply, kw_only=True):
    """`Game.AdminHello`: a nonce for one admin call, and the game's proof that it checks the player key."""

    nonce: str
    """Good once, for a minute, for the caller it was handed to."""
    proof: str
    """HMAC(key, "xivmcp-game" | the caller's nonce): a game that checks another key cannot make it."""
