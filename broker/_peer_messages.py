"""Message subscriptions: the callbacks this process subscribed to gates, and delivering to them.

`_Messages` holds the subscriptions (`_subscriptions`, filled by `CallGateSubscriber.subscribe`)
and runs every callback of a gate when a Message arrives, in the sender's context
(`current_caller`). A callback that raises is logged; it never stops the others.
"""

from __future__ import annotations

import anyio.abc
import msgspec

from . import _wire as w
from ._errors import IpcRefusedError
from ._gate import Handler
from ._peer_link import _caller, _Link, log

_json_decode = msgspec.json.Decoder().decode


class _Messages(_Link):
    """The message callbacks of this process, by gate."""

    def __init__(self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup) -> None:
        super().__init__(endpoint, name, task_group)
        self._subscriptions: dict[str, list[Handler]] = {}

    def _check_subscribe(self, gate: str) -> None:
        """Refuse a subscription past the broker's bound here, where the error reaches the caller (B7)."""
        limit = self._conn.max_subscriptions
        if sum(len(callbacks) for callbacks in self._subscriptions.values()) >= limit:
            raise IpcRefusedError(
                f"{self.name} already holds {limit} subscriptions, the most the bus allows per "
                f"process; the subscription to {gate!r} was not made. Unsubscribe the callbacks it "
                "no longer needs, or start the broker with a higher BrokerConfig.max_subscriptions_per_peer."
            )

    def _on_message(self, msg: w.Message, payload: bytes) -> None:
        callbacks = self._subscriptions.get(msg.gate)
        if not callbacks:
            return
        try:
            args = _json_decode(payload) if payload else []
        except msgspec.DecodeError:
            log.warning("%s: dropped a message on %s that is not JSON", self.name, msg.gate)
            return
        if not isinstance(args, list):
            args = [args]
        token = _caller.set(msg.sender)
        try:
            for callback in list(callbacks):
                self._run_callback(callback, args, f"message {msg.gate}")
        finally:
            _caller.reset(token)
