"""The provider's side of a call: the gates this process provides, and answering their Invokes.

`Serving` owns what this process provides (a `Slot` per func and action of each gate, set by
`CallGateProvider` through `set_slot`, which tells the broker) and says it all again after every
Welcome (`restore`). For an Invoke it checks the arguments against the registered signature,
runs the handler (sync or async) in the caller's context (`current_caller`), checks the result
and sends the Reply. A handler's exception becomes an error Reply, never an exception in the
frame loop. A slot registered for given callers answers anyone else with `IpcRefusedError`
before it decodes a single argument: the caller's name is the broker's, carried by every Invoke.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

import msgspec

from . import _wire as w
from ._errors import IpcError, IpcHandlerError, IpcNotReadyError, IpcRefusedError, IpcTypeMismatchError
from ._peer_link import Handler, Link, _caller
from ._signature import check_args, check_result

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode
_PLAIN: frozenset[type] = frozenset({str, int, float, bool, list, dict, type(None)})
"""What sync handlers return, never awaitable: one set lookup instead of `inspect.isawaitable`'s
three checks (its last an ABC `isinstance`), on every call a sync handler answers."""


@dataclass(slots=True)
class Slot:
    """A func or action this process serves: its handler, its declared signature, and the only
    processes it answers (None: every process)."""

    handler: Handler
    params: tuple[str, ...]
    returns: str | None
    callers: frozenset[str] | None = None


@dataclass(slots=True)
class _Provided:
    func: Slot | None = None
    action: Slot | None = None


class Serving:
    """The gates this process provides, and the handling of Invokes for them."""

    def __init__(self, link: Link) -> None:
        self._link = link
        self._provided: dict[str, _Provided] = {}

    def set_slot(self, gate: str, kind: w.Kind, slot: Slot | None) -> None:
        """Serve `gate`'s func or action with `slot`, or stop (None), and tell the broker. A new
        gate past the broker's bound is refused here, where the error reaches the caller (B7)."""
        if slot is not None:
            limit = self._link.max_gates
            if gate not in self._provided and len(self._provided) >= limit:
                raise IpcRefusedError(
                    f"{self._link.name} already provides {limit} gates, the most the bus allows per process; "
                    f"{gate!r} was not registered. Unregister the gates it no longer needs "
                    "(unregister_func, unregister_action), or start the broker with a higher "
                    "BrokerConfig.max_gates_per_peer."
                )
        provided = self._provided.setdefault(gate, _Provided())
        if kind == "func":
            provided.func = slot
        else:
            provided.action = slot
        if slot is None:
            if provided.func is None and provided.action is None:
                del self._provided[gate]
            msg: w.Provide | w.Withdraw = w.Withdraw(gate=gate, kind=kind)
        else:
            msg = w.Provide(gate=gate, kind=kind, params=slot.params, returns=slot.returns)
        self._link.send_quietly(w.encode(msg))  # restored on reconnect if this is lost

    def restore(self) -> None:
        """Provide everything again: the broker has just welcomed this process (anew)."""
        send = self._link.send_quietly
        for gate, provided in self._provided.items():
            slots: tuple[tuple[w.Kind, Slot | None], ...] = (("func", provided.func), ("action", provided.action))
            for kind, slot in slots:
                if slot is not None:
                    send(w.encode(w.Provide(gate=gate, kind=kind, params=slot.params, returns=slot.returns)))

    # --- an Invoke -------------------------------------------------------------------------

    def on_invoke(self, msg: w.Invoke) -> None:
        provided = self._provided.get(msg.gate)
        slot = None if provided is None else (provided.func if msg.kind == "func" else provided.action)
        if slot is None:
            self._reply_error(msg.id, IpcNotReadyError.for_gate(msg.gate, msg.kind))
            return
        if slot.callers is not None and msg.caller not in slot.callers:
            self._reply_error(msg.id, IpcRefusedError.for_caller(msg.gate, msg.kind, msg.caller, slot.callers))
            return
        payload = msg.payload
        try:
            args = _json_decode(payload) if payload else []
            if not isinstance(args, list):
                raise IpcTypeMismatchError(f"The arguments for {msg.gate} must be a JSON array.")
            check_args(msg.gate, slot.params, args)
        except IpcError as exc:
            self._reply_error(msg.id, exc)
            return
        except msgspec.DecodeError as exc:
            self._reply_error(msg.id, IpcTypeMismatchError(f"The arguments for {msg.gate} are not JSON: {exc}."))
            return
        token = _caller.set(msg.caller)
        try:
            try:
                outcome = slot.handler(*args)
            except Exception as exc:
                self._reply_error(msg.id, _handler_error(msg.gate, exc))
                return
            if type(outcome) not in _PLAIN and inspect.isawaitable(outcome):
                # start_task keeps the context of now, so the task still sees the caller.
                self._link.start_task(self._finish_async, msg, slot, outcome)
            else:
                self._reply_value(msg, slot, outcome)
        finally:
            _caller.reset(token)

    async def _finish_async(self, msg: w.Invoke, slot: Slot, outcome: Awaitable[Any]) -> None:
        try:
            value = await outcome
        except Exception as exc:
            self._reply_error(msg.id, _handler_error(msg.gate, exc))
            return
        self._reply_value(msg, slot, value)

    def _reply_value(self, msg: w.Invoke, slot: Slot, value: Any) -> None:
        if msg.kind == "action":
            value = None
        try:
            check_result(msg.gate, slot.returns, value)
            body = b"" if value is None else _json_encode(value)
            # A reply over the bus's limit is refused here, with a message: sent, it would be
            # over the broker's frame ceiling and cost this process its connection.
            self._link.check_size(f"the result of {msg.gate}", body)
        except IpcError as exc:
            self._reply_error(msg.id, exc)
            return
        except (TypeError, msgspec.EncodeError) as exc:
            self._reply_error(
                msg.id, IpcTypeMismatchError(f"The result of {msg.gate} is not JSON-serialisable: {exc}.")
            )
            return
        self._link.send_quietly(w.encode(w.Reply(id=msg.id, payload=body)))

    def _reply_error(self, call_id: int, exc: IpcError) -> None:
        info = w.ErrorInfo(kind=type(exc).__name__, message=exc.message)
        if isinstance(exc, IpcHandlerError):
            info = w.ErrorInfo(kind="IpcHandlerError", message=exc.message, type_name=exc.type_name, detail=exc.detail)
        self._link.send_quietly(w.encode(w.Reply(id=call_id, error=info)))


def _handler_error(gate: str, exc: Exception) -> IpcError:
    if isinstance(exc, IpcError):
        return exc
    type_name = type(exc).__name__
    detail = str(exc)
    return IpcHandlerError(f"{type_name}: {detail}" if detail else type_name, type_name, detail)
