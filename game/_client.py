"""`GameClient`: the game's gates as typed async methods, for plugins and for XIV MCP (W1).

    async with broker.connect(bus, "MyPlugin") as pi:
        game = GameClient(pi)
        where = await game.position()
        await game.move_to_map(12.0, 10.5)
        game.on_change(lambda change: print(change.summary))

Each method calls one gate and decodes its reply into the gate's Struct. A refusal raises
`GameError` with the game's message; no game on the bus (or a game that left during the call)
raises `GameUnavailableError`. No other exception comes out of a call: the bus's own errors are
translated here, once. Importing this loads nothing of the host, MCP or sqlite. The module is
long because it holds one short method per gate, and the gates are many.

The admin methods (`set`, `advance_clock`, `save`, `reset`) rewrite the world, and the game
answers them only for the player (F4): a client made with the player key
(`GameClient.as_player(pi, data_dir)`, as the command line and the test kit make it) proves it
with each call (`game/_admin.py`); a plugin's client has no key, and gets the game's refusal.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypeVar

import msgspec

from broker import IpcDisconnectedError, IpcError, IpcNotReadyError, IpcPeerLeftError, PluginInterface
from gates.contract import PLAYER_KEY_FILE, KeyProof, new_nonce

from ._admin import admin_mac, game_proof, wire_arguments
from ._args import TradeItem
from ._documents import (
    Change,
    ChangesReply,
    ChatLine,
    ItemInfo,
    MapFlag,
    PartyMember,
    PositionInfo,
    SnapshotReply,
    Window,
    World,
    Zone,
)
from ._errors import NO_GAME, GameError, GameUnavailableError
from ._market import MarketReply, VendorsReply
from ._names import CHANGED_MESSAGE, RESET_MESSAGE, GameGate
from ._replies import (
    AdminHelloReply,
    ChangeReply,
    ChatReply,
    ClockReply,
    CurrenciesReply,
    FlagReply,
    InventoryReply,
    ItemsReply,
    MoveReply,
    PlayerReply,
    PositionReply,
    ResetReply,
    SaveReply,
    StateReply,
    StopReply,
    TimeReply,
    WindowsReply,
    ZonesReply,
)
from ._retainers import RetainersReply
from ._roster import ObjectsReply, PartyReply, SheetReply
from ._shop_documents import MarketListing, Vendor
from ._trade_client import TradeCalls
from ._travel import CharactersReply

__all__ = ["GameClient", "JsonValue"]

log = logging.getLogger("game.client")

JsonValue: TypeAlias = "str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]"
"""Any JSON value (what `GameClient.set` takes)."""

R = TypeVar("R", bound=msgspec.Struct)


class _Status(msgspec.Struct):
    ok: bool = False
    error: str | None = None


_encode = msgspec.json.Encoder().encode
_status = msgspec.json.Decoder(_Status)
_change = msgspec.json.Decoder(Change)
_decoders: dict[type[Any], msgspec.json.Decoder[Any]] = {}


class GameClient(TradeCalls):
    """The simulated game's gates, one async method each, over a process's bus connection.

        async with broker.connect(None, "MyPlugin") as pi:
            game = GameClient(pi)
            if (await game.player()).moving:
                await game.stop()

    Every method raises `GameError` with the game's own words when the game refuses (a changing
    method checks everything before anything changes), and `GameUnavailableError` when no game is
    on the bus or it left during the call. A changing method returns the changes it recorded.
    """

    def __init__(self, pi: PluginInterface, *, player_key: str | None = None) -> None:
        """`player_key`: the player key itself, for the admin methods (None: a plugin's client, which
        the game refuses them to); `as_player` reads it from a data dir instead."""
        self._pi = pi
        self._key = player_key
        self._key_file: Path | None = None

    @classmethod
    def as_player(cls, pi: PluginInterface, data_dir: Path) -> GameClient:
        """A client whose admin methods prove the player key of `data_dir` (read at each call: the
        host makes it when it first starts, which may be after this client was made)."""
        client = cls(pi)
        client._key_file = data_dir / PLAYER_KEY_FILE
        return client

    @property
    def available(self) -> bool:
        """Whether a game serves its gates on the bus right now (no round trip)."""
        return self._pi.get_ipc_subscriber(GameGate.SNAPSHOT).has_function()

    async def call(self, gate: GameGate, reply_type: type[R], **args: object) -> R:
        """Call `gate` with `args` (None values left out) and decode its reply as `reply_type`."""
        return await self._request(gate, reply_type, _encode({k: v for k, v in args.items() if v is not None}).decode())

    async def _request(self, gate: GameGate, reply_type: type[R], body: str) -> R:
        try:
            text = await self._pi.get_ipc_subscriber(gate).invoke_func(body)
        except IpcNotReadyError:
            raise GameUnavailableError() from None
        except IpcPeerLeftError as exc:
            raise GameUnavailableError(f"The game left the bus during {gate}: {exc} {NO_GAME}") from None
        except IpcDisconnectedError as exc:
            raise GameUnavailableError(f"{gate} could not reach the game: {exc}") from None
        except IpcError as exc:
            raise GameError(f"{gate} failed on the bus: {exc}") from None
        if not isinstance(text, str):
            raise GameError(f"{gate} answered {type(text).__name__}, not a JSON string; is a real game on the bus?")
        try:
            status = _status.decode(text)
            if not status.ok:
                raise GameError(status.error or f"{gate} refused without saying why.")
            decoder = _decoders.get(reply_type)
            if decoder is None:
                decoder = _decoders[reply_type] = msgspec.json.Decoder(reply_type)
            reply: R = decoder.decode(text)
        except msgspec.DecodeError as exc:  # ValidationError is one
            raise GameError(
                f"{gate} answered a reply this client cannot read ({exc}); update the game or the client."
            ) from None
        return reply

    # --- reading ---------------------------------------------------------------------------

    async def player(self) -> PlayerReply:
        """The character, the zone it is in, and whether it is walking."""
        return await self.call(GameGate.GET_PLAYER, PlayerReply)

    async def position(self) -> PositionInfo:
        """Where the character is now (also while walking): zone, world and map coordinates."""
        return await self.call(GameGate.GET_POSITION, PositionReply)

    async def inventory(self) -> InventoryReply:
        """What the bags hold: each item with its count, their total, and where each stack lies."""
        return await self.call(GameGate.GET_INVENTORY, InventoryReply)

    async def currencies(self) -> CurrenciesReply:
        """The character's gil and other currencies."""
        return await self.call(GameGate.GET_CURRENCIES, CurrenciesReply)

    async def windows(self) -> list[Window]:
        """The game windows and Yes/No dialogs open now."""
        return (await self.call(GameGate.GET_WINDOWS, WindowsReply)).windows

    async def flag(self) -> MapFlag | None:
        """The flag on the map, or None if none is placed."""
        return (await self.call(GameGate.GET_FLAG, FlagReply)).flag

    async def zones(self) -> list[Zone]:
        """Every zone of the world: its map, its aetherytes and what stands in it."""
        return (await self.call(GameGate.GET_ZONES, ZonesReply)).zones

    async def items(self) -> list[ItemInfo]:
        """The catalog: every item with what vendors sell and buy it for."""
        return (await self.call(GameGate.GET_ITEMS, ItemsReply)).items

    async def chat(self, limit: int | None = None) -> list[ChatLine]:
        """The newest chat lines, oldest first: `limit` of them (default 50, at most what the game keeps)."""
        return (await self.call(GameGate.GET_CHAT, ChatReply, limit=limit)).chat

    async def snapshot(self) -> SnapshotReply:
        """What XIV MCP reads before a call: the snapshot, and the seq of the newest change."""
        return await self.call(GameGate.SNAPSHOT, SnapshotReply)

    async def changes(self, since: int, limit: int | None = None) -> ChangesReply:
        """The changes after `since` (oldest first), the snapshot now and the newest seq."""
        return await self.call(GameGate.CHANGES, ChangesReply, since=since, limit=limit)

    async def state(self) -> World:
        """The whole world as it is now."""
        return (await self.call(GameGate.STATE, StateReply)).world

    async def time(self) -> TimeReply:
        """The game time in seconds, and whether the game runs on the test clock."""
        return await self.call(GameGate.TIME, TimeReply)

    async def character_sheet(self) -> SheetReply:
        """The current character's sheet: classes and jobs, gear, gearsets, quests."""
        return await self.call(GameGate.GET_CHARACTER_SHEET, SheetReply)

    async def party(self) -> list[PartyMember]:
        """The other members of the character's party (empty: not in one)."""
        return (await self.call(GameGate.GET_PARTY, PartyReply)).members

    async def objects(self) -> ObjectsReply:
        """The object table of the character's zone, where the character is, and what it targets."""
        return await self.call(GameGate.GET_OBJECTS, ObjectsReply)

    async def characters(self) -> CharactersReply:
        """The account's characters (the current one first) and the public worlds with their data centres."""
        return await self.call(GameGate.GET_CHARACTERS, CharactersReply)

    async def equip_gearset(self, number: int) -> ChangeReply:
        """Put on gearset `number` (1 to 100, as the Gear Set list numbers it), and its job."""
        return await self.call(GameGate.EQUIP_GEARSET, ChangeReply, number=number)

    async def enter_duty(self, territory: int, name: str | None = None) -> ChangeReply:
        """Enter the duty in zone `territory` (named `name`, default the zone's), as the Duty Finder does."""
        return await self.call(GameGate.ENTER_DUTY, ChangeReply, territory=territory, name=name)

    async def leave_duty(self) -> ChangeReply:
        """Leave the duty, back to where the character entered it; refused in combat or outside a duty."""
        return await self.call(GameGate.LEAVE_DUTY, ChangeReply)

    async def travel_to_world(self, world: str) -> ChangeReply:
        """Visit another world (or go home)."""
        return await self.call(GameGate.TRAVEL_TO_WORLD, ChangeReply, world=world)

    # --- moving ----------------------------------------------------------------------------

    async def move_to(self, x: float, z: float, y: float | None = None) -> MoveReply:
        """Walk to the world point (x, z) of the current zone, `y` the height (default: the current one)."""
        return await self.call(GameGate.MOVE_TO, MoveReply, x=x, z=z, y=y)

    async def move_to_map(self, x: float, y: float) -> MoveReply:
        """Walk to map coordinates (x, y) of the current zone, as the in-game map shows them."""
        return await self.call(GameGate.MOVE_TO_MAP, MoveReply, x=x, y=y)

    async def stop(self) -> StopReply:
        """Stop walking where the character is now (`stopped` is False if it was not walking)."""
        return await self.call(GameGate.STOP, StopReply)

    async def set_position(
        self, x: float, z: float, y: float | None = None, territory: int | None = None
    ) -> ChangeReply:
        """Put the character at (x, y, z) at once, in zone `territory` if given."""
        return await self.call(GameGate.SET_POSITION, ChangeReply, x=x, z=z, y=y, territory=territory)

    async def teleport(self, aetheryte: str | int) -> ChangeReply:
        """Teleport to an aetheryte, by name or id: the zone and position change, and it costs gil."""
        return await self.call(GameGate.TELEPORT, ChangeReply, aetheryte=aetheryte)

    # --- items and money -------------------------------------------------------------------

    async def buy(self, item_id: int, count: int = 1) -> ChangeReply:
        """Buy `count` of item `item_id` from a vendor, for its price in gil or its currency."""
        return await self.call(GameGate.BUY, ChangeReply, itemId=item_id, count=count)

    async def sell(self, item_id: int, count: int = 1) -> ChangeReply:
        """Sell `count` of item `item_id` to a vendor, for its sell price in gil."""
        return await self.call(GameGate.SELL, ChangeReply, itemId=item_id, count=count)

    async def discard(self, item_id: int, count: int = 1) -> ChangeReply:
        """Throw `count` of item `item_id` away."""
        return await self.call(GameGate.DISCARD, ChangeReply, itemId=item_id, count=count)

    async def trade(self, to: str, items: Sequence[TradeItem] = (), gil: int = 0) -> ChangeReply:
        """Hand `items` and `gil` to the player named `to` in one call (the trade window step by step:
        `trade_request`)."""
        return await self.call(GameGate.TRADE, ChangeReply, to=to, items=list(items), gil=gil)

    # --- vendors, the market board, retainers (`_market`, `_retainers`) ---------------------

    async def vendors(self) -> list[Vendor]:
        """The vendors of the world, with what each sells."""
        return (await self.call(GameGate.GET_VENDORS, VendorsReply)).vendors

    async def market(self, item_id: int | None = None) -> list[MarketListing]:
        """The market board's listings, cheapest first: those of item `item_id`, or all."""
        return (await self.call(GameGate.GET_MARKET, MarketReply, itemId=item_id)).listings

    async def retainers(self) -> RetainersReply:
        """The character's retainers, the one called at the bell, and whether it stands at a bell."""
        return await self.call(GameGate.GET_RETAINERS, RetainersReply)

    async def vendor_buy(self, vendor: str, item_id: int, count: int = 1) -> ChangeReply:
        """Buy `count` of item `item_id` from the vendor named `vendor`, standing at it."""
        return await self.call(GameGate.VENDOR_BUY, ChangeReply, vendor=vendor, itemId=item_id, count=count)

    async def open_retainer(self, name: str) -> ChangeReply:
        """Call the retainer `name` at the summoning bell the character stands at."""
        return await self.call(GameGate.OPEN_RETAINER, ChangeReply, name=name)

    async def close_retainer(self) -> ChangeReply:
        """Dismiss the retainer called at the bell (nothing changes if none is)."""
        return await self.call(GameGate.CLOSE_RETAINER, ChangeReply)

    async def retainer_transfer(
        self, item_id: int, count: int = 1, direction: Literal["entrust", "withdraw"] = "entrust"
    ) -> ChangeReply:
        """Entrust `count` of item `item_id` to the called retainer, or withdraw it back into the bags."""
        gate = GameGate.RETAINER_TRANSFER
        return await self.call(gate, ChangeReply, itemId=item_id, count=count, direction=direction)

    async def retainer_sell(self, item_id: int, count: int, price: int) -> ChangeReply:
        """Put `count` of item `item_id` up for sale on the market board through the called retainer, `price` gil
        each."""
        return await self.call(GameGate.RETAINER_SELL, ChangeReply, itemId=item_id, count=count, price=price)

    # --- chat, windows, login, flag, target, combat ----------------------------------------

    async def send_chat(self, text: str, channel: str = "say") -> ChangeReply:
        """Say `text` (one line, 1 to 500 characters) on `channel`: other players see it.

        The channels: `say` (the default), `yell`, `shout`, `party`, `alliance`, `fc`, `ls1` to
        `ls8` and `cwls1` to `cwls8` (case does not matter); another is refused with the list."""
        return await self.call(GameGate.SEND_CHAT, ChangeReply, text=text, channel=channel)

    async def open_window(self, name: str, kind: Literal["window", "yesno"] = "window", text: str = "") -> ChangeReply:
        """Open the window `name`, or (`kind` "yesno") a Yes/No dialog with `text` waiting for `answer_dialog`."""
        return await self.call(GameGate.OPEN_WINDOW, ChangeReply, name=name, kind=kind, text=text)

    async def close_window(self, name: str) -> ChangeReply:
        """Close the open window `name`."""
        return await self.call(GameGate.CLOSE_WINDOW, ChangeReply, name=name)

    async def answer_dialog(self, name: str, yes: bool) -> ChangeReply:
        """Answer the Yes/No dialog `name` (`yes` or not), which closes it."""
        return await self.call(GameGate.ANSWER_DIALOG, ChangeReply, name=name, yes=yes)

    async def interact(self, name: str) -> ChangeReply:
        """Use the object `name` within reach: its menu or its window opens."""
        return await self.call(GameGate.INTERACT, ChangeReply, name=name)

    async def select_menu(self, index: int) -> ChangeReply:
        """Choose entry `index` of the open menu (SelectString)."""
        return await self.call(GameGate.SELECT_MENU, ChangeReply, index=index)

    async def login(self, name: str | None = None) -> ChangeReply:
        """Log in, as the current character or (with `name`) another character of the account."""
        return await self.call(GameGate.LOGIN, ChangeReply, name=name)

    async def logout(self) -> ChangeReply:
        """Log the character out (nothing changes if it is not logged in)."""
        return await self.call(GameGate.LOGOUT, ChangeReply)

    async def set_flag(
        self, x: float, y: float, zone: str | None = None, territory: int | None = None, name: str | None = None
    ) -> ChangeReply:
        """Put the map flag at map coordinates (x, y) of a zone (by name or territory; default the current one)."""
        return await self.call(GameGate.SET_FLAG, ChangeReply, x=x, y=y, zone=zone, territory=territory, name=name)

    async def clear_flag(self) -> ChangeReply:
        """Take the flag off the map."""
        return await self.call(GameGate.CLEAR_FLAG, ChangeReply)

    async def set_target(self, name: str | None) -> ChangeReply:
        """Target the object or character `name`, or clear the target with None."""
        return await self.call(GameGate.SET_TARGET, ChangeReply, name=name)

    async def start_combat(self) -> ChangeReply:
        """Enter combat (what refuses changing gear or leaving a duty until `end_combat`)."""
        return await self.call(GameGate.START_COMBAT, ChangeReply)

    async def end_combat(self) -> ChangeReply:
        """Leave combat."""
        return await self.call(GameGate.END_COMBAT, ChangeReply)

    # --- the player's and the tests' controls (the admin gates: the player key only) --------

    async def set(self, path: str, value: JsonValue) -> ChangeReply:
        """Set one part of the world: gil, position, territory, logged_in, inventory.<itemId>, ..."""
        return await self._admin(GameGate.SET, ChangeReply, {"path": path, "value": value})

    async def advance_clock(self, seconds: float) -> ClockReply:
        """Move the test clock on by `seconds` (a --test-clock game only), recording the arrivals."""
        return await self._admin(GameGate.ADVANCE_CLOCK, ClockReply, {"seconds": seconds})

    async def save(self, name: str | None = None) -> SaveReply:
        """Write the world to the file `name` ("farm.json") of the world folder, or to the game's --save file."""
        return await self._admin(GameGate.SAVE, SaveReply, {} if name is None else {"path": name})

    async def reset(self) -> ResetReply:
        """The world back as the game started with it (a --test-clock game only: tests)."""
        return await self._admin(GameGate.RESET, ResetReply, {})

    async def _admin(self, gate: GameGate, reply_type: type[R], arguments: dict[str, Any]) -> R:
        """Call an admin gate with the proof of the player key; without a key, as it is (the game refuses)."""
        body = _encode(arguments)
        key = self._player_key()
        if key is None:
            return await self._request(gate, reply_type, body.decode())
        sent = wire_arguments(body)  # the arguments as the game reads them: what the MAC covers
        client_nonce = new_nonce()
        hello = await self._request(GameGate.ADMIN_HELLO, AdminHelloReply, _encode({"nonce": client_nonce}).decode())
        if not hmac.compare_digest(hello.proof.encode(), game_proof(key, client_nonce).encode()):
            where = self._key_file or "the key this client was given"
            raise GameError(
                f"{gate}: the game on the bus does not check your player key ({where}): it was started with "
                "another --data-dir, or another process took the name Game. Nothing was sent; start the game "
                "with the data dir of your XIV MCP (`xivmcp up` does), or point this command at it (--data-dir)."
            )
        try:
            mac = admin_mac(key, hello.nonce, gate.value, sent)
        except ValueError as exc:
            raise GameError(f"{gate}: the arguments have no JSON text ({exc}); give finite numbers.") from None
        proven = {**arguments, "proof": KeyProof(nonce=hello.nonce, mac=mac)}
        return await self._request(gate, reply_type, _encode(proven).decode())

    def _player_key(self) -> str | None:
        if self._key_file is None:
            return self._key
        try:
            key = self._key_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            key = ""
        except OSError as exc:
            raise GameError(f"Cannot read the player key at {self._key_file}: {exc.strerror or exc}.") from None
        if not key:
            raise GameError(
                f"No player key at {self._key_file}: no XIV MCP host has run with this data dir. Start one with "
                f"`xivmcp up --data-dir {self._key_file.parent}` (or pass the --data-dir it uses)."
            )
        return key

    def on_change(self, callback: Callable[[Change], object]) -> Callable[[], None]:
        """Call `callback(change)` for every change of the world (sync or async); returns the unsubscriber."""

        def deliver(*values: object) -> object:
            if len(values) != 1 or not isinstance(values[0], str):
                log.warning("dropped a %s message that is not one JSON string", CHANGED_MESSAGE)
                return None
            try:
                change = _change.decode(values[0])
            except msgspec.DecodeError as exc:
                log.warning("dropped a %s message this client cannot read: %s", CHANGED_MESSAGE, exc)
                return None
            return callback(change)

        return self._subscribe(CHANGED_MESSAGE, deliver)

    def on_reset(self, callback: Callable[[int], object]) -> Callable[[], None]:
        """Call `callback(seq)` when `Game.Reset` puts the world back (no change is recorded for
        it: `seq` is the newest change's, as before); returns the unsubscriber."""

        def deliver(*values: object) -> object:
            if len(values) != 1 or type(values[0]) is not int:
                log.warning("dropped a %s message that is not one seq", RESET_MESSAGE)
                return None
            return callback(values[0])

        return self._subscribe(RESET_MESSAGE, deliver)

    def _subscribe(self, message: str, deliver: Callable[..., object]) -> Callable[[], None]:
        subscriber = self._pi.get_ipc_subscriber(message)
        try:
            subscriber.subscribe(deliver)
        except IpcError as exc:
            raise GameError(f"Could not subscribe to {message}: {exc}") from None
        return lambda: subscriber.unsubscribe(deliver)
