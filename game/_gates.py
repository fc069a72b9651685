"""The game's gates on the bus: each a guarded, synchronous handler over the engine (W1, W2).

A handler decodes its one argument (a JSON object in a string; the object itself is taken too, as
`xivmcp gate call` sends it), resolves walking (an arrival due by now is recorded
first), runs the gate's operation with the caller's name (`broker.current_caller()`: the bus says
who calls) and answers `{"ok": true, ...}`. Whatever goes wrong becomes `{"ok": false, "error":
"Game.<Gate>: ..."}`: a gate never raises into its caller. Handlers are synchronous, so one call
runs to its end before the next starts and no call sees another's half-made change.

The admin gates (`ADMIN_GATES`: Set, AdvanceClock, Save, Reset) first pass the player key's check
(`_admin.AdminDoor`, F4); `Game.AdminHello` hands out the nonces it takes.

Every change the engine records is broadcast as the message `Game.Changed`, its JSON as the one
argument.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

import msgspec

from broker import IpcError, PluginInterface, current_caller

from . import _args as a
from . import (
    _bags,
    _duties,
    _equip,
    _gearsets,
    _goods,
    _market,
    _menus,
    _moving,
    _reading,
    _retainer_gil,
    _retainers,
    _roster,
    _setting,
    _social,
    _trade,
    _travel,
)
from ._admin import AdminDoor
from ._documents import Change, GameReply
from ._engine import GameEngine
from ._errors import Refusal
from ._names import ADMIN_GATES, CHANGED_MESSAGE, RESET_MESSAGE, GameGate

__all__ = ["ROUTES", "GameGates", "Route", "provide_game_gates"]

log = logging.getLogger("game")

A = TypeVar("A", bound=msgspec.Struct)
_encode = msgspec.json.Encoder().encode
MAX_ERROR: Final = 2_000
"""Characters of a refusal's message: a reply stays small whatever the call sent."""


@dataclass(frozen=True, slots=True)
class Route(Generic[A]):
    """One gate: its arguments, what it does, and a call that works (for refusals to show)."""

    gate: GameGate
    args: type[A]
    run: Callable[[GameEngine, A, str], msgspec.Struct]
    example: str = "{}"


ROUTES: Final[tuple[Route[Any], ...]] = (
    Route(GameGate.GET_PLAYER, a.NoArgs, _reading.player),
    Route(GameGate.GET_POSITION, a.NoArgs, _reading.position),
    Route(GameGate.GET_INVENTORY, a.NoArgs, _reading.inventory),
    Route(GameGate.GET_CURRENCIES, a.NoArgs, _reading.currencies),
    Route(GameGate.GET_WINDOWS, a.NoArgs, _reading.windows),
    Route(GameGate.GET_FLAG, a.NoArgs, _reading.flag),
    Route(GameGate.GET_ZONES, a.NoArgs, _reading.zones),
    Route(GameGate.GET_ITEMS, a.NoArgs, _reading.items),
    Route(GameGate.GET_CHAT, a.ChatArgs, _reading.chat, '{"limit": 20}'),
    Route(GameGate.SNAPSHOT, a.NoArgs, _reading.snapshot),
    Route(GameGate.CHANGES, a.ChangesArgs, _reading.changes, '{"since": 0, "limit": 100}'),
    Route(GameGate.STATE, a.NoArgs, _reading.state),
    Route(GameGate.TIME, a.NoArgs, _reading.time),
    Route(GameGate.GET_CHARACTER_SHEET, a.NoArgs, _roster.character_sheet),
    Route(GameGate.GET_PARTY, a.NoArgs, _roster.party),
    Route(GameGate.GET_OBJECTS, a.NoArgs, _roster.objects),
    Route(GameGate.MOVE_TO, a.MoveToArgs, _moving.move_to, '{"x": -10.5, "z": 20.0}'),
    Route(GameGate.MOVE_TO_MAP, a.MoveToMapArgs, _moving.move_to_map, '{"x": 11.2, "y": 10.8}'),
    Route(GameGate.STOP, a.NoArgs, _moving.stop),
    Route(GameGate.SET_POSITION, a.SetPositionArgs, _moving.set_position, '{"x": 0.0, "z": 0.0, "territory": 1185}'),
    Route(GameGate.TELEPORT, a.TeleportArgs, _moving.teleport, '{"aetheryte": "Tuliyollal"}'),
    Route(GameGate.BUY, a.ItemArgs, _goods.buy, '{"itemId": 4554, "count": 1}'),
    Route(GameGate.SELL, a.ItemArgs, _goods.sell, '{"itemId": 4554, "count": 1}'),
    Route(GameGate.DISCARD, a.ItemArgs, _goods.discard, '{"itemId": 4554, "count": 1}'),
    Route(
        GameGate.TRADE,
        a.TradeArgs,
        _goods.trade,
        '{"to": "Koana Ruhl", "items": [{"itemId": 4554, "count": 1}], "gil": 0}',
    ),
    Route(GameGate.SEND_CHAT, a.SendChatArgs, _social.send_chat, '{"text": "Hello!", "channel": "say"}'),
    Route(GameGate.OPEN_WINDOW, a.OpenWindowArgs, _social.open_window, '{"name": "Shop", "kind": "window"}'),
    Route(GameGate.CLOSE_WINDOW, a.WindowArgs, _social.close_window, '{"name": "Shop"}'),
    Route(GameGate.ANSWER_DIALOG, a.AnswerDialogArgs, _social.answer_dialog, '{"name": "SelectYesno", "yes": true}'),
    Route(GameGate.INTERACT, a.InteractArgs, _menus.interact, '{"name": "Summoning Bell"}'),
    Route(GameGate.SELECT_MENU, a.SelectMenuArgs, _menus.select_menu, '{"index": 0}'),
    Route(GameGate.LOGIN, a.LoginArgs, _social.login, '{"name": "Erenville"}'),
    Route(GameGate.LOGOUT, a.NoArgs, _social.logout),
    Route(GameGate.SET_FLAG, a.SetFlagArgs, _social.set_flag, '{"x": 11.2, "y": 10.8, "territory": 1185}'),
    Route(GameGate.CLEAR_FLAG, a.NoArgs, _social.clear_flag),
    Route(GameGate.SET_TARGET, a.SetTargetArgs, _social.set_target, '{"name": "Striking Dummy"}'),
    Route(GameGate.START_COMBAT, a.NoArgs, _social.start_combat),
    Route(GameGate.END_COMBAT, a.NoArgs, _social.end_combat),
    Route(GameGate.GET_VENDORS, a.NoArgs, _market.vendors),
    Route(GameGate.GET_MARKET, _market.MarketArgs, _market.market, '{"itemId": 4554}'),
    Route(GameGate.GET_RETAINERS, a.NoArgs, _retainers.retainers),
    Route(
        GameGate.VENDOR_BUY,
        _market.VendorBuyArgs,
        _market.vendor_buy,
        '{"vendor": "Material Supplier", "itemId": 4554, "count": 1}',
    ),
    Route(GameGate.OPEN_RETAINER, _retainers.OpenRetainerArgs, _retainers.open_retainer, '{"name": "Koana"}'),
    Route(GameGate.CLOSE_RETAINER, a.NoArgs, _retainers.close_retainer),
    Route(
        GameGate.RETAINER_TRANSFER,
        _retainers.RetainerTransferArgs,
        _retainers.retainer_transfer,
        '{"itemId": 4554, "count": 1, "direction": "entrust"}',
    ),
    Route(
        GameGate.RETAINER_SELL,
        _retainers.RetainerSellArgs,
        _retainers.retainer_sell,
        '{"itemId": 4554, "count": 1, "price": 500}',
    ),
    Route(
        GameGate.RETAINER_GIL,
        _retainer_gil.RetainerGilArgs,
        _retainer_gil.retainer_gil,
        '{"amount": 5000, "direction": "deposit"}',
    ),
    Route(GameGate.EQUIP, _equip.EquipArgs, _equip.equip, '{"itemId": 44031}'),
    Route(
        GameGate.MOVE_ITEMS,
        _bags.MoveItemsArgs,
        _bags.move_items,
        '{"fromContainer": "Inventory1", "fromSlot": 0, "toContainer": "Inventory2", "toSlot": 0}',
    ),
    Route(GameGate.SORT_BAGS, _bags.SortBagsArgs, _bags.sort_bags, '{"descending": false}'),
    Route(GameGate.GET_TRADE, a.NoArgs, _trade.get_trade),
    Route(GameGate.TRADE_REQUEST, _trade.TradeRequestArgs, _trade.trade_request, '{"player": "Alisaie Leveilleur"}'),
    Route(
        GameGate.TRADE_OFFER,
        _trade.TradeOfferArgs,
        _trade.trade_offer,
        '{"items": [{"itemId": 4554, "count": 2}], "gil": 0}',
    ),
    Route(GameGate.TRADE_CONFIRM, a.NoArgs, _trade.trade_confirm),
    Route(GameGate.TRADE_CANCEL, a.NoArgs, _trade.trade_cancel),
    Route(GameGate.GET_CHARACTERS, a.NoArgs, _travel.characters),
    Route(GameGate.EQUIP_GEARSET, _gearsets.EquipGearsetArgs, _gearsets.equip_gearset, '{"number": 2}'),
    Route(GameGate.ENTER_DUTY, _duties.EnterDutyArgs, _duties.enter_duty, '{"territory": 1194}'),
    Route(GameGate.LEAVE_DUTY, a.NoArgs, _duties.leave_duty),
    Route(GameGate.TRAVEL_TO_WORLD, _travel.TravelArgs, _travel.travel_to_world, '{"world": "Shiva"}'),
    Route(GameGate.SET, a.SetArgs, _setting.set_value, '{"path": "gil", "value": 5000}'),
    Route(GameGate.ADVANCE_CLOCK, a.AdvanceClockArgs, _setting.advance_clock, '{"seconds": 5}'),
    Route(GameGate.SAVE, a.SaveArgs, _setting.save, '{"path": "farm.json"}'),
    Route(GameGate.RESET, a.NoArgs, _setting.reset),
)


def _refused(gate: str, message: str) -> str:
    text = f"{gate}: {message}"
    if len(text) > MAX_ERROR:
        text = text[: MAX_ERROR - 1] + "…"
    return _encode(GameReply(ok=False, error=text)).decode()


class GameGates:
    """The handlers of every route over one engine, the admin gates behind the player key's check."""

    def __init__(self, engine: GameEngine, door: AdminDoor) -> None:
        self.engine = engine
        self.door = door

    def handle(self, route: Route[Any], text: object) -> str:
        """Answer one call of `route`; never raises."""

        def run(text: str | None, caller: str) -> msgspec.Struct:
            if route.gate in ADMIN_GATES:  # F4: before anything else, so a refused call changes nothing
                text = self.door.admit(route.gate, text, caller)
            self.engine.resolve()
            return route.run(self.engine, a.decode_args(route.args, text, route.example), caller)

        return self._answer(route.gate, route.example, text, run)

    def hello(self, text: object) -> str:
        """Answer one call of `Game.AdminHello`; never raises."""
        example = '{"nonce": "3f2a…"}'

        def run(text: str | None, caller: str) -> msgspec.Struct:
            return self.door.hello(a.decode_args(a.AdminHelloArgs, text, example), caller)

        return self._answer(GameGate.ADMIN_HELLO, example, text, run)

    def _answer(
        self, game_gate: GameGate, example: str, text: object, run: Callable[[str | None, str], msgspec.Struct]
    ) -> str:
        gate = game_gate.value
        try:
            if isinstance(text, dict):  # the object itself rather than its JSON (`xivmcp gate call` sends that)
                text = _encode(text).decode()
            elif text is not None and not isinstance(text, str):
                raise Refusal(f"the argument must be a JSON object in a string, such as {example}")
            body = _encode(run(text, current_caller()))
        except Refusal as exc:
            return _refused(gate, str(exc))
        except Exception as exc:  # a bug of the game: the caller still gets an answer, the log the traceback
            log.exception("%s failed", gate)
            return _refused(
                gate, f"the simulated game failed ({type(exc).__name__}: {exc}); this is its bug, not yours"
            )
        if len(body) > _reading.REPLY_BUDGET:
            return _refused(
                gate,
                f"the reply would be {len(body):,} bytes, more than the {_reading.REPLY_BUDGET:,} a reply may have; "
                "read the parts you need (Game.GetInventory, Game.GetZones, ...); the player can write it to a "
                "file with `xivmcp game save FILE`",
            )
        return body.decode()

    def handler(self, route: Route[Any]) -> Callable[[object], str]:
        return lambda text: self.handle(route, text)


def provide_game_gates(pi: PluginInterface, engine: GameEngine, door: AdminDoor) -> GameGates:
    """Serve every game gate on `pi`, the admin gates behind `door`; broadcast each change as
    `Game.Changed`, and a reset as `Game.WorldReset` (a change of the world that records nothing)."""
    gates = GameGates(engine, door)
    changed = pi.get_ipc_provider(CHANGED_MESSAGE, params=(str,))
    was_reset = pi.get_ipc_provider(RESET_MESSAGE, params=(int,))

    def broadcast(change: Change) -> None:
        try:
            changed.send_message(_encode(change).decode())
        except IpcError as exc:  # off the bus for a moment: the change is in the log all the same
            log.warning("could not send %s for change %d: %s", CHANGED_MESSAGE, change.seq, exc)

    def broadcast_reset(seq: int) -> None:
        try:
            was_reset.send_message(seq)
        except IpcError as exc:
            log.warning("could not send %s: %s", RESET_MESSAGE, exc)

    engine.change_listeners.append(broadcast)
    engine.reset_listeners.append(broadcast_reset)
    for route in ROUTES:
        # Declared "any": a caller that sends the object itself, or something else by mistake, gets
        # the gate's own refusal rather than an IPC type error (a gate never raises into its caller).
        pi.get_ipc_provider(route.gate, params=(object | None,), returns=str).register_func(gates.handler(route))
    pi.get_ipc_provider(GameGate.ADMIN_HELLO, params=(object | None,), returns=str).register_func(gates.hello)
    return gates
