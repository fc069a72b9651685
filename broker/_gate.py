"""The two sides of a gate, as the framework names them: `CallGateProvider` and `CallGateSubscriber`.

Both are thin views on a `PluginInterface` (`_peer.py`), which owns the connection, the mirror
of the broker's gate table, and what this process provides and subscribes to. They see it
through `GatePeer`, the few members they use, so this module does not import `_peer.py`: the
peer imports the gates, not the other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from . import _wire as w
from ._errors import IpcTypeMismatchError

Handler = Callable[..., Any]
"""A gate handler or message callback: called with the gate's arguments; may be async."""

_json_encode = msgspec.json.Encoder().encode


@dataclass(slots=True)
class _Slot:
    handler: Handler
    params: tuple[str, ...]
    returns: str | None


@dataclass(slots=True)
class _Provided:
    func: _Slot | None = None
    action: _Slot | None = None


class GatePeer(Protocol):
    """What a gate view uses of its `PluginInterface`."""

    _provided: dict[str, _Provided]
    _subscriptions: dict[str, list[Handler]]
    _gates: dict[str, w.GateInfo]

    def _check_size(self, gate: str, payload: bytes) -> None: ...

    def _check_provide(self, gate: str) -> None: ...

    def _check_subscribe(self, gate: str) -> None: ...

    def _send(self, frame: bytes) -> None: ...

    def _send_quietly(self, frame: bytes) -> None: ...

    async def _invoke(self, gate: str, kind: w.Kind, args: tuple[object, ...]) -> Any: ...

    async def wait_until(self, condition: Callable[[], bool]) -> None: ...


class CallGateProvider:
    """The provider side of a gate (`ICallGateProvider`)."""

    def __init__(self, pi: GatePeer, name: str, params: tuple[str, ...], returns: str | None) -> None:
        self._pi = pi
        self.name = name
        self.params = params
        self.returns = returns

    def _set(self, kind: w.Kind, handler: Handler | None) -> None:
        if handler is not None:
            self._pi._check_provide(self.name)
        provided = self._pi._provided.setdefault(self.name, _Provided())
        slot = None if handler is None else _Slot(handler, self.params, self.returns if kind == "func" else None)
        if kind == "func":
            provided.func = slot
        else:
            provided.action = slot
        if slot is None:
            if provided.func is None and provided.action is None:
                del self._pi._provided[self.name]
            msg: w.Provide | w.Withdraw = w.Withdraw(gate=self.name, kind=kind)
        else:
            msg = w.Provide(gate=self.name, kind=kind, params=slot.params, returns=slot.returns)
        self._pi._send_quietly(w.encode(msg))  # restored on reconnect if this is lost

    def register_func(self, handler: Handler) -> None:
        """Serve this gate's func with `handler` (sync or async); raises `IpcRefusedError` if this
        process already provides as many gates as the bus allows."""
        self._set("func", handler)

    def register_action(self, handler: Handler) -> None:
        self._set("action", handler)

    def unregister_func(self) -> None:
        self._set("func", None)

    def unregister_action(self) -> None:
        self._set("action", None)

    def send_message(self, *args: object) -> None:
        """Deliver `args` to every subscriber of this gate, in every process."""
        try:
            payload = _json_encode(args)
        except (TypeError, msgspec.EncodeError) as exc:
            raise IpcTypeMismatchError(f"The message for {self.name} cannot be sent as JSON: {exc}.") from None
        self._pi._check_size(self.name, payload)
        self._pi._send(w.encode(w.Send(gate=self.name, payload=payload)))

    @property
    def subscription_count(self) -> int:
        info = self._pi._gates.get(self.name)
        return 0 if info is None else info.subscriptions


class CallGateSubscriber:
    """The caller/subscriber side of a gate (`ICallGateSubscriber`)."""

    def __init__(self, pi: GatePeer, name: str) -> None:
        self._pi = pi
        self.name = name

    async def invoke_func(self, *args: object) -> Any:
        return await self._pi._invoke(self.name, "func", args)

    async def invoke_action(self, *args: object) -> None:
        await self._pi._invoke(self.name, "action", args)

    def has_function(self) -> bool:
        info = self._pi._gates.get(self.name)
        return info is not None and info.func is not None

    def has_action(self) -> bool:
        info = self._pi._gates.get(self.name)
        return info is not None and info.action is not None

    async def wait_ready(self, kind: w.Kind = "func") -> None:
        """Wait until the gate's func (or action) is registered somewhere on the bus."""
        await self._pi.wait_until(self.has_function if kind == "func" else self.has_action)

    def subscribe(self, callback: Handler) -> None:
        self._pi._check_subscribe(self.name)
        self._pi._subscriptions.setdefault(self.name, []).append(callback)
        self._pi._send_quietly(w.encode(w.Subscribe(gate=self.name)))

    def unsubscribe(self, callback: Handler) -> None:
        callbacks = self._pi._subscriptions.get(self.name, [])
        if callback in callbacks:
            callbacks.remove(callback)
            if not callbacks:
                del self._pi._subscriptions[self.name]
            self._pi._send_quietly(w.encode(w.Unsubscribe(gate=self.name)))
