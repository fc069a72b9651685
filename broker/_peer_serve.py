"""The provider's side of a call: running this process's handler for an Invoke, and replying.

`_Serving` holds what this process provides (`_provided`, filled by `CallGateProvider`), checks
an Invoke's arguments against the registered signature, runs the handler (sync or async) in
the caller's context (`current_caller`), checks the result and sends the Reply. A handler's
exception becomes an error Reply, never an exception in the frame loop.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import Any

import anyio.abc
import msgspec

from . import _wire as w
from ._errors import IpcError, IpcHandlerError, IpcNotReadyError, IpcRefusedError, IpcTypeMismatchError
from ._gate import _Provided, _Slot
from ._peer_link import _caller, _Link
from ._signature import check_args, check_result

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode
_PLAIN: frozenset[type] = frozenset({str, int, float, bool, list, dict, type(None)})
"""What sync handlers return, never awaitable: one set lookup instead of `inspect.isawaitable`'s
three checks (its last an ABC `isinstance`), on every call a sync handler answers."""


class _Serving(_Link):
    """The gates this process provides, and the handling of Invokes for them."""

    def __init__(self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup) -> None:
        super().__init__(endpoint, name, task_group)
        self._provided: dict[str, _Provided] = {}

    def _check_provide(self, gate: str) -> None:
        """Refuse a new gate past the broker's bound here, where the error reaches the caller (B7)."""
        limit = self._conn.max_gates
        if gate not in self._provided and len(self._provided) >= limit:
            raise IpcRefusedError(
                f"{self.name} already provides {limit} gates, the most the bus allows per process; "
                f"{gate!r} was not registered. Unregister the gates it no longer needs "
                "(unregister_func, unregister_action), or start the broker with a higher "
                "BrokerConfig.max_gates_per_peer."
            )

    def _on_invoke(self, msg: w.Invoke, payload: bytes) -> None:
        provided = self._provided.get(msg.gate)
        slot = None if provided is None else (provided.func if msg.kind == "func" else provided.action)
        if slot is None:
            self._reply_error(msg.id, IpcNotReadyError.for_gate(msg.gate, msg.kind))
            return
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
                # _start_task keeps the context of now, so the task still sees the caller.
                self._start_task(self._finish_async, msg, slot, outcome)
            else:
                self._reply_value(msg, slot, outcome)
        finally:
            _caller.reset(token)

    async def _finish_async(self, msg: w.Invoke, slot: _Slot, outcome: Awaitable[Any]) -> None:
        try:
            value = await outcome
        except Exception as exc:
            self._reply_error(msg.id, _handler_error(msg.gate, exc))
            return
        self._reply_value(msg, slot, value)

    def _reply_value(self, msg: w.Invoke, slot: _Slot, value: Any) -> None:
        if msg.kind == "action":
            value = None
        try:
            check_result(msg.gate, slot.returns, value)
            body = b"" if value is None else _json_encode(value)
            # A reply over the bus's limit is refused here, with a message: sent, it would be
            # over the broker's frame ceiling and cost this process its connection.
            self._check_size(f"the result of {msg.gate}", body)
        except IpcError as exc:
            self._reply_error(msg.id, exc)
            return
        except (TypeError, msgspec.EncodeError) as exc:
            self._reply_error(
                msg.id, IpcTypeMismatchError(f"The result of {msg.gate} is not JSON-serialisable: {exc}.")
            )
            return
        self._send_quietly(w.encode(w.Reply(id=msg.id, payload=body)))

    def _reply_error(self, call_id: int, exc: IpcError) -> None:
        info = w.ErrorInfo(kind=type(exc).__name__, message=exc.message)
        if isinstance(exc, IpcHandlerError):
            info = w.ErrorInfo(kind="IpcHandlerError", message=exc.message, type_name=exc.type_name, detail=exc.detail)
        self._send_quietly(w.encode(w.Reply(id=call_id, error=info)))


def _handler_error(gate: str, exc: Exception) -> IpcError:
    if isinstance(exc, IpcError):
        return exc
    type_name = type(exc).__name__
    detail = str(exc)
    return IpcHandlerError(f"{type_name}: {detail}" if detail else type_name, type_name, detail)
