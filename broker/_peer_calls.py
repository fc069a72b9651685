"""The caller's side of a call: this process invoking a gate that another process provides.

`_Calls` numbers each outgoing Call, keeps its future until the broker's Result arrives (the
frame dispatch in `_peer.py` resolves it), turns an error Result into the matching `IpcError`,
and fails every call still waiting when the connection is lost, renewed or closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio.abc
import msgspec

from . import _wire as w
from ._config import MAX_ARGS
from ._errors import IpcDisconnectedError, IpcLengthMismatchError, IpcTypeMismatchError, error_from_wire
from ._peer_link import _Link

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


class _Calls(_Link):
    """The calls this process has in flight, by call id."""

    def __init__(self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup) -> None:
        super().__init__(endpoint, name, task_group)
        self._calls: dict[int, asyncio.Future[w.Result]] = {}
        self._next_call = 0

    async def _invoke(self, gate: str, kind: w.Kind, args: tuple[object, ...]) -> Any:
        if len(args) > MAX_ARGS:
            raise IpcLengthMismatchError(
                f"{gate} was called with {len(args)} arguments; a gate takes at most {MAX_ARGS}."
            )
        try:
            payload = _json_encode(args)
        except (TypeError, msgspec.EncodeError) as exc:
            raise IpcTypeMismatchError(f"The arguments for {gate} cannot be sent as JSON: {exc}.") from None
        self._check_size(gate, payload)
        self._next_call += 1
        call_id = self._next_call
        future: asyncio.Future[w.Result] = self._loop.create_future()
        self._calls[call_id] = future
        try:
            self._send([w.encode(w.Call(id=call_id, gate=gate, kind=kind, payload=payload))])
            result = await future
        finally:
            self._calls.pop(call_id, None)
        if result.error is not None:
            e = result.error
            raise error_from_wire(e.kind, e.message, e.type_name, e.detail)
        return _json_decode(result.payload) if result.payload else None

    def _fail_calls(self, why: str) -> None:
        calls, self._calls = self._calls, {}
        for future in calls.values():
            if not future.done():
                future.set_exception(IpcDisconnectedError(f"The call was lost: {why}."))
