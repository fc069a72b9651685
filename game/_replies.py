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
    """`Game.GetPlayer`: the character, the name of its zone, and whether it is walking."""

    player: PlayerInfo
    """The character, `position` where it is now (also while walking)."""
    zone: str
    moving: bool


class PositionReply(PositionInfo, kw_only=True):
    """`Game.GetPosition`: where the character is (`PositionInfo`), as a reply."""

    ok: bool = True


class InventoryReply(_Reply, kw_only=True):
    """`Game.GetInventory`: the items in the bags, their total count, and the stacks' slots."""

    items: list[InventoryItem]
    total: int
    """The sum of the counts: the snapshot's `item_total`."""
    bags: list[BagStack] = []
    """Where the counts lie in the bags (Inventory1-4, slots 0-34): the layout `move_items` moves."""


class CurrenciesReply(_Reply, kw_only=True):
    """`Game.GetCurrencies`: the character's gil and its other currencies."""

    gil: int
    currencies: list[Currency]


class WindowsReply(_Reply, kw_only=True):
    """`Game.GetWindows`: the windows and dialogs open now."""

    windows: list[Window]


class FlagReply(_Reply, kw_only=True):
    """`Game.GetFlag`: the flag on the map (None: none is placed)."""

    flag: MapFlag | None


class ZonesReply(_Reply, kw_only=True):
    """`Game.GetZones`: every zone of the world."""

    zones: list[Zone]


class ItemsReply(_Reply, kw_only=True):
    """`Game.GetItems`: the item catalog."""

    items: list[ItemInfo]
    """The catalog: every item the game knows, with what vendors sell and buy it for."""


class ChatReply(_Reply, kw_only=True):
    """`Game.GetChat`: the newest chat lines."""

    chat: list[ChatLine]
    """Newest last."""


class StateReply(_Reply, kw_only=True):
    """`Game.State`: the whole world as it is now."""

    world: World


class TimeReply(_Reply, kw_only=True):
    """`Game.Time`: the game time, and whether the game runs on the test clock."""

    time: float
    """Seconds of game time."""
    test_clock: bool


class ChangeReply(_Reply, kw_only=True):
    """The reply of a gate that changes the world: the changes it recorded, in order."""

    changes: list[Change] = []
    """What the call changed, in order (empty: it was already so)."""


class MoveReply(ChangeReply, kw_only=True):
    """`Game.MoveTo` and `Game.MoveToMap`: where the character walks, how far, and when it arrives."""

    destination: Vec3
    distance: float
    """Yalms to walk, on the ground."""
    eta: float
    """Seconds until arrival (0: already there)."""
    arrives_at: float
    """The game time of arrival."""


class StopReply(ChangeReply, kw_only=True):
    """`Game.Stop`: whether the character was walking, and where it stands now."""

    stopped: bool
    """False when the character was not walking."""
    position: Vec3


class ClockReply(ChangeReply, kw_only=True):
    """`Game.AdvanceClock`: the game time after the clock moved, and the arrivals on the way."""

    time: float
    """The game time after the clock moved; `changes` are the arrivals on the way."""


class ResetReply(_Reply, kw_only=True):
    """`Game.Reset`: the world is back as the game started with it; the log and the clock go on."""

    seq: int
    """The newest change's seq, as before the reset: the log goes on, and `Game.Changes` since it
    gives what came after the reset."""
    time: float
    """The game time, which the reset does not move back."""


class SaveReply(_Reply, kw_only=True):
    """`Game.Save`: where the world was written."""

    path: str
    """The absolute path the world was written to."""


class AdminHelloReply(_Reply, kw_only=True):
    """`Game.AdminHello`: a nonce for one admin call, and the game's proof that it checks the player key."""

    nonce: str
    """Good once, for a minute, for the caller it was handed to."""
    proof: str
    """HMAC(key, "xivmcp-game" | the caller's nonce): a game that checks another key cannot make it."""
