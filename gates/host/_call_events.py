"""A running call's events for the player's `xivmcp call`: its approvals and progress, in order.

The command line provides an action gate of its own; the desk sends it each event before the
call's result, so `xivmcp call` can say on stderr what the call waits for.
"""

from __future__ import annotations

import contextlib
from typing import Final

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream

from broker import CallGateSubscriber, IpcError
from gates.contract import encode_json
from gates.player import ApprovalEvent, CallEvent, ProgressEvent

from .policy._approvals import Approval

__all__ = ["EVENT_BUFFER", "NOTIFY_SECONDS", "CallEvents"]

EVENT_BUFFER: Final = 256
"""Events of one call waiting to reach the player's command."""
NOTIFY_SECONDS: Final = 2.0
"""How long the host tries to hand one call event to the player's command."""


class CallEvents:
    """A call's events for the player's command, delivered in order, each before the call's result."""

    def __init__(self, gate: CallGateSubscriber, task_group: anyio.abc.TaskGroup) -> None:
        self._gate = gate
        self._send, receive = anyio.create_memory_object_stream[CallEvent](EVENT_BUFFER)
        self._delivered = anyio.Event()
        task_group.start_soon(self._deliver, receive)

    def progress(self, text: str) -> None:
        self._put(ProgressEvent(text=text))

    def approval(self, approval: Approval) -> None:
        self._put(
            ApprovalEvent(approval_id=approval.id, tool=approval.tool, plugin=approval.plugin, summary=approval.summary)
        )

    def _put(self, event: CallEvent) -> None:
        with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
            self._send.send_nowait(event)  # a burst beyond the buffer is dropped: events are advisory

    async def _deliver(self, receive: MemoryObjectReceiveStream[CallEvent]) -> None:
        try:
            async with receive:
                async for event in receive:
                    with anyio.move_on_after(NOTIFY_SECONDS), contextlib.suppress(IpcError):
                        await self._gate.invoke_action(encode_json(event))
        finally:
            self._delivered.set()

    async def aclose(self) -> None:
        self._send.close()
        with anyio.move_on_after(NOTIFY_SECONDS), anyio.CancelScope(shield=True):
            await self._delivered.wait()
