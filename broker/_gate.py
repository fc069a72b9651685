"""The two sides of a gate, as the framework names them: `CallGateProvider` and `CallGateSubscriber`.

Both are thin views that `PluginInterface.get_ipc_provider` and `get_ipc_subscriber` hand out.
Each holds the parts of the `PluginInterface` it acts through, and nothing else: the provider
the gates served (`_peer_serve.Serving`), the link it sends messages on and the mirror of the
broker's table; the subscriber the calls in flight (`_peer_calls.OutgoingCalls`), the
subscriptions and the mirror. An `invoke_func` is one step from the call it makes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from . import _wire as w
from ._errors import IpcTypeMismatchError
from ._peer_calls import OutgoingCalls
from ._peer_link import Handler, Link
from ._peer_messages import Subscriptions
from ._peer_mirror import Mirror
from ._peer_serve import Serving, Slot

_json_encode = msgspec.json.Encoder().encode


class CallGateProvider:
    """The provider side of a gate (`ICallGateProvider`)."""

    def __init__(
        self,
        name: str,
        params: tuple[str, ...],
        returns: str | None,
        *,
        serving: Serving,
        link: Link,
        mirror: Mirror,
    ) -> None:
        self.name = name
        self.params = params
        self.returns = returns
        self._serving = serving
        self._link = link
        self._mirror = mirror

    def register_func(self, handler: Handler, *, callers: Iterable[str] | None = None) -> None:
        """Serve this gate's func with `handler` (sync or async); raises `IpcRefusedError` if this
        process already provides as many gates as the bus allows.

        With `callers` (InternalNames), the gate answers only those processes: any other caller
        gets `IpcRefusedError` and `handler` does not run. The caller's name is the one the
        broker knows it by, so no process can pass for another."""
        self._serving.set_slot(self.name, "func", Slot(handler, self.params, self.returns, _only(callers)))

    def register_action(self, handler: Handler, *, callers: Iterable[str] | None = None) -> None:
        """Serve this gate's action with `handler`; `callers` as for `register_func`."""
        self._serving.set_slot(self.name, "action", Slot(handler, self.params, None, _only(callers)))

    def unregister_func(self) -> None:
        """Stop serving this gate's func: a call from now on raises `IpcNotReadyError` for its caller."""
        self._serving.set_slot(self.name, "func", None)

    def unregister_action(self) -> None:
        """Stop serving this gate's action, as `unregister_func` does for the func."""
        self._serving.set_slot(self.name, "action", None)

    def send_message(self, *args: object) -> None:
        """Deliver `args` to every subscriber of this gate, in every process."""
        try:
            payload = _json_encode(args)
        except (TypeError, msgspec.EncodeError) as exc:
            raise IpcTypeMismatchError(f"The message for {self.name} cannot be sent as JSON: {exc}.") from None
        self._link.check_size(self.name, payload)
        self._link.send(w.encode(w.Send(gate=self.name, payload=payload)))

    @property
    def subscription_count(self) -> int:
        """How many subscriptions this gate has on the bus, all processes together (no round trip)."""
        info = self._mirror.gate(self.name)
        return 0 if info is None else info.subscriptions


def _only(callers: Iterable[str] | None) -> frozenset[str] | None:
    if callers is None:
        return None
    if isinstance(callers, str):  # register_func(h, callers="XivMcp") would allow "X", "i", "v", …
        raise TypeError(f"callers takes a collection of InternalNames, such as callers=({callers!r},), not a str.")
    return frozenset(callers)


class CallGateSubscriber:
    """The caller/subscriber side of a gate (`ICallGateSubscriber`)."""

    def __init__(
        self, name: str, *, calls: OutgoingCalls, subscriptions: Subscriptions, mirror: Mirror, link: Link
    ) -> None:
        self.name = name
        self._calls = calls
        self._subscriptions = subscriptions
        self._mirror = mirror
        self._link = link

    async def invoke_func(self, *args: object) -> Any:
        """Call the gate's func with `args` (JSON values) and return what its handler returned.

        Raises `IpcNotReadyError` if no process provides the func, `IpcLengthMismatchError`,
        `IpcTypeMismatchError` or `IpcValueNullError` if `args` do not fit its declared parameters,
        `IpcHandlerError` if the handler raised, `IpcPeerLeftError` if its process left before
        answering, `IpcRefusedError` if the provider does not answer this process or a limit was
        reached, and `IpcDisconnectedError` without a bus. Cancelling the await gives the call up.
        """
        return await self._calls.invoke(self.name, "func", args)

    async def invoke_action(self, *args: object) -> None:
        """Call the gate's action with `args` and wait until it ran; it raises as `invoke_func` does."""
        await self._calls.invoke(self.name, "action", args)

    def has_function(self) -> bool:
        """Whether some process provides this gate's func right now (no round trip)."""
        info = self._mirror.gate(self.name)
        return info is not None and info.func is not None

    def has_action(self) -> bool:
        """Whether some process provides this gate's action right now (no round trip)."""
        info = self._mirror.gate(self.name)
        return info is not None and info.action is not None

    async def wait_ready(self, kind: w.Kind = "func") -> None:
        """Wait until the gate's func (or action) is registered somewhere on the bus."""
        await self._link.wait_until(self.has_function if kind == "func" else self.has_action)

    def subscribe(self, callback: Handler) -> None:
        """Call `callback(*args)` (sync or async) for each message sent on this gate from now on.

        The subscription outlives a broker restart. Raises `IpcRefusedError` if this process already
        holds as many subscriptions as the bus allows.
        """
        self._subscriptions.subscribe(self.name, callback)

    def unsubscribe(self, callback: Handler) -> None:
        """Stop calling `callback` for this gate's messages; nothing happens if it was not subscribed."""
        self._subscriptions.unsubscribe(self.name, callback)
