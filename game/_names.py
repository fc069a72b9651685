"""The game's names on the bus: its InternalName, its gates and the message it sends on each change.

Every gate is `Game.<Name>`: one string argument (a JSON object of arguments, "" or "{}" for
none) and one string reply, `{"ok": true, ...}` or `{"ok": false, "error": "..."}`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = ["ADMIN_GATES", "CHANGED_MESSAGE", "GAME_NAME", "RESET_MESSAGE", "GameGate"]

GAME_NAME: Final = "Game"
"""The simulated game's InternalName on the bus."""

CHANGED_MESSAGE: Final = "Game.Changed"
"""Sent with one argument, the `Change` as a JSON string, after every change of the world."""

RESET_MESSAGE: Final = "Game.WorldReset"
"""Sent with one argument, the newest change's seq, when `Game.Reset` put the world back: no
change is recorded for it, so a reader that follows `Game.Changed` reads the world again."""


class GameGate(StrEnum):
    """Every gate the game provides. Names are API: never rename one, only add."""

    # reading: no change recorded
    GET_PLAYER = "Game.GetPlayer"
    GET_POSITION = "Game.GetPosition"
    GET_INVENTORY = "Game.GetInventory"
    GET_CURRENCIES = "Game.GetCurrencies"
    GET_WINDOWS = "Game.GetWindows"
    GET_FLAG = "Game.GetFlag"
    GET_ZONES = "Game.GetZones"
    GET_ITEMS = "Game.GetItems"
    GET_CHAT = "Game.GetChat"
    SNAPSHOT = "Game.Snapshot"
    CHANGES = "Game.Changes"
    STATE = "Game.State"
    TIME = "Game.Time"
    GET_CHARACTER_SHEET = "Game.GetCharacterSheet"
    GET_PARTY = "Game.GetParty"
    GET_OBJECTS = "Game.GetObjects"
    # changing: each records one change or more
    MOVE_TO = "Game.MoveTo"
    MOVE_TO_MAP = "Game.MoveToMap"
    STOP = "Game.Stop"
    SET_POSITION = "Game.SetPosition"
    TELEPORT = "Game.Teleport"
    BUY = "Game.Buy"
    SELL = "Game.Sell"
    DISCARD = "Game.Discard"
    TRADE = "Game.Trade"
    SEND_CHAT = "Game.SendChat"
    OPEN_WINDOW = "Game.OpenWindow"
    CLOSE_WINDOW = "Game.CloseWindow"
    ANSWER_DIALOG = "Game.AnswerDialog"
    INTERACT = "Game.Interact"
    SELECT_MENU = "Game.SelectMenu"
    LOGIN = "Game.Login"
    LOGOUT = "Game.Logout"
    SET_FLAG = "Game.SetFlag"
    CLEAR_FLAG = "Game.ClearFlag"
    SET_TARGET = "Game.SetTarget"
    START_COMBAT = "Game.StartCombat"
    END_COMBAT = "Game.EndCombat"
    # vendors, the market board and retainers (`_market`, `_retainers`)
    GET_VENDORS = "Game.GetVendors"
    GET_MARKET = "Game.GetMarket"
    GET_RETAINERS = "Game.GetRetainers"
    VENDOR_BUY = "Game.VendorBuy"
    OPEN_RETAINER = "Game.OpenRetainer"
    CLOSE_RETAINER = "Game.CloseRetainer"
    RETAINER_TRANSFER = "Game.RetainerTransfer"
    RETAINER_SELL = "Game.RetainerSell"
    RETAINER_GIL = "Game.RetainerGil"
    EQUIP = "Game.Equip"
    MOVE_ITEMS = "Game.MoveItems"
    SORT_BAGS = "Game.SortBags"
    # the trade window (`_trade`)
    GET_TRADE = "Game.GetTrade"
    TRADE_REQUEST = "Game.TradeRequest"
    TRADE_OFFER = "Game.TradeOffer"
    TRADE_CONFIRM = "Game.TradeConfirm"
    TRADE_CANCEL = "Game.TradeCancel"
    # gearsets, duties, the account's characters and the worlds (`_gearsets`, `_duties`, `_travel`)
    GET_CHARACTERS = "Game.GetCharacters"
    EQUIP_GEARSET = "Game.EquipGearset"
    ENTER_DUTY = "Game.EnterDuty"
    LEAVE_DUTY = "Game.LeaveDuty"
    TRAVEL_TO_WORLD = "Game.TravelToWorld"
    # the admin gates (`ADMIN_GATES`): they rewrite the world, answering only the player (F4)
    SET = "Game.Set"
    ADVANCE_CLOCK = "Game.AdvanceClock"
    SAVE = "Game.Save"
    RESET = "Game.Reset"
    """Tests only (a --test-clock game): the world back as the game started with it."""
    ADMIN_HELLO = "Game.AdminHello"
    """`{"nonce": clientNonce}`: the game proves it checks the player key and hands out a nonce for
    one admin call (`{..., "proof": {"nonce", "mac"}}`, see `game/_admin.py`)."""


ADMIN_GATES: Final = frozenset({GameGate.SET, GameGate.ADVANCE_CLOCK, GameGate.SAVE, GameGate.RESET})
"""The gates that rewrite the world rather than act in it as a character would: setting any part of
it, moving the test clock, writing it to a file, putting it back. They answer only a caller that
proves the player key (the player's commands, the test harness), never a plugin (F4)."""
