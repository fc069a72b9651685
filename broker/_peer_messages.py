"""Message subscriptions: the callbacks this process subscribed to gates, and delivering to them.

`Subscriptions` owns the callbacks by gate (added by `CallGateSubscriber.subscribe`, which tells
the broker), says every subscription again after each Welcome (`restore`), and runs every
callback of a gate when a Message arrives, in the sender's context (`current_caller`). A
callback that raises is logged; it never stops the others.
"""

from __future__ import annotations

import msgspec

from . import _wire as w
from ._errors import IpcRefusedError
from ._peer_link import Handler, Link, _caller, log

_json_decode = msgspec.json.Decoder().decode


class Subscriptions:
    """The message callbacks of this process, by gate."""

    def __init__(self, link: Link) -> None:
        self._link = link
        self._callbacks: dict[str, list[Handler]] = {}

    def subscribe(self, gate: str, callback: Handler) -> None:
        """Add `callback` to `gate`'s, and tell the broker. A subscription past the broker's
        bound is refused here, where the error reaches the caller (B7)."""
        limit = self._link.max_subscriptions
        if sum(len(callbacks) for callbacks in self._callbacks.values()) >= limit:
            raise IpcRefusedError(
                f"{self._link.name} already holds {limit} subscriptions, the most the bus allows per "
                f"process; the subscription to {gate!r} was not made. Unsubscribe the callbacks it "
                "no longer needs, or start the broker with a higher BrokerConfig.max_subscriptions_per_peer."
            )
        self._callbacks.setdefault(gate, []).append(callback)
        self._link.send_quietly(w.encode(w.Subscribe(gate=gate)))

    def unsubscribe(self, gate: str, callback: Handler) -> None:
        callbacks = self._callbacks.get(gate, [])
        if callback in callbacks:
            callbacks.remove(callback)
            if not callbacks:
                del self._callbacks[gate]
            self._link.send_quietly(w.encode(w.Unsubscribe(gate=gate)))

    def restore(self) -> None:
        """Subscribe everything again: the broker has just welcomed this process (anew)."""
        send = self._link.send_quietly
        for gate, callbacks in self._callbacks.items():
            for _ in callbacks:
                send(w.encode(w.Subscribe(gate=gate)))

    def on_message(self, msg: w.Message) -> None:
        callbacks = self._callbacks.get(msg.gate)
        if not callbacks:
            return
        link = self._link
        try:
            args = _json_decode(msg.payload) if msg.payload else []
        except msgspec.DecodeError:
            log.warning("%s: dropped a message on %s that is not JSON", link.name, msg.gate)
            return
        if not isinstance(args, list):
            args = [args]
        token = _caller.set(msg.sender)
        try:
            for callback in list(callbacks):
                link.run_callback(callback, args, f"message {msg.gate}")
        finally:
            _caller.reset(token)
