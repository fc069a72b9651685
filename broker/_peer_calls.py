"""The caller's side of a call: this process invoking a gate that another process provides.

`OutgoingCalls` numbers each outgoing Call, keeps its future until the broker's Result arrives
(`on_result`), turns an error Result into the matching `IpcError`, and fails every call still
waiting when the connection is lost, renewed or closed (`fail_all`). A call the caller gives up
on (cancelled, timed out) after sending it is Abandoned at the broker, which frees its place in
the in-flight limits at once (B6). The broker's statistics are asked for the same way, by id
(`broker_stats`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from . import _wire as w
from ._config import MAX_ARGS
from ._errors import IpcDisconnectedError, IpcLengthMismatchError, IpcTypeMismatchError, error_from_wire
from ._peer_link import Link

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


class OutgoingCalls:
    """The calls this process has in flight, by call id."""

    def __init__(self, link: Link) -> None:
        self._link = link
        self._loop = link.loop
        self._waiting: dict[int, asyncio.Future[w.Result]] = {}
        self._stats: dict[int, asyncio.Future[w.BrokerStats]] = {}
        self._next_id = 0
        """The last id given to a call or a request for statistics."""

    async def invoke(self, gate: str, kind: w.Kind, args: tuple[object, ...]) -> Any:
        if len(args) > MAX_ARGS:
            raise IpcLengthMismatchError(
                f"{gate} was called with {len(args)} arguments; a gate takes at most {MAX_ARGS}."
            )
        try:
            payload = _json_encode(args)
        except (TypeError, msgspec.EncodeError) as exc:
            raise IpcTypeMismatchError(f"The arguments for {gate} cannot be sent as JSON: {exc}.") from None
        link = self._link
        link.check_size(gate, payload)
        self._next_id += 1
        call_id = self._next_id
        future: asyncio.Future[w.Result] = self._loop.create_future()
        self._waiting[call_id] = future
        try:
            link.send(w.encode(w.Call(id=call_id, gate=gate, kind=kind, payload=payload)), future)
            try:
                result = await future
            except BaseException:
                # Cancelled, or failed here: nobody will read the answer, so free the call at
                # the broker now rather than when (if ever) the provider replies.
                link.send_quietly(w.encode(w.Abandon(id=call_id)))
                raise
        finally:
            self._waiting.pop(call_id, None)
        if result.error is not None:
            e = result.error
            raise error_from_wire(e.kind, e.message, e.type_name, e.detail)
        return _json_decode(result.payload) if result.payload else None

    def on_result(self, msg: w.Result) -> None:
        future = self._waiting.get(msg.id)
        if future is not None and not future.done():
            future.set_result(msg)

    async def broker_stats(self) -> w.BrokerStats:
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[w.BrokerStats] = self._loop.create_future()
        self._stats[request_id] = future
        try:
            self._link.send(w.encode(w.Stats(id=request_id)), future)
            return await future
        finally:
            self._stats.pop(request_id, None)

    def on_stats(self, msg: w.StatsReply) -> None:
        future = self._stats.get(msg.id)
        if future is not None and not future.done():
            future.set_result(msg.stats)

    def stats_refused(self, error: Exception) -> None:
        """The broker dropped this process's Stats requests (too many, S2): their waiters fail."""
        stats, self._stats = self._stats, {}
        for waiter in stats.values():
            if not waiter.done():
                waiter.set_exception(error)

    def fail_all(self, why: str) -> None:
        """The connection was lost, renewed or closed: every call still waiting fails."""
        calls, self._waiting = self._waiting, {}
        for future in calls.values():
            if not future.done():
                future.set_exception(IpcDisconnectedError(f"The call was lost: {why}."))
        stats, self._stats = self._stats, {}
        for waiter in stats.values():
            if not waiter.done():
                waiter.set_exception(IpcDisconnectedError(f"The request for the broker's statistics was lost: {why}."))
