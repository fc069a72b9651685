"""What a running `call` tells the player on the way: its progress lines and the approvals it waits for.

`CallTool(notify=GATE)` names an action gate of the sender's own; the host invokes it with one
event (JSON, tagged by "kind") for each, in order, each before the call's result. Events are
advisory: one the sender cannot decode (a newer kind) is skipped, and a burst is cut short.
"""

from __future__ import annotations

from typing import Final

import msgspec

from gates.contract import Wire

__all__ = ["ApprovalEvent", "CallEvent", "ProgressEvent", "decode_call_event"]


class _Event(Wire, kw_only=True, tag_field="kind"):
    pass


class ProgressEvent(_Event, kw_only=True, tag="progress"):
    """A progress line of the call (its plugin's `ReportProgress`, or a core tool's)."""

    text: str


class ApprovalEvent(_Event, kw_only=True, tag="approval"):
    """The call waits for the player: `xivmcp approve APPROVAL_ID` (or `decline`) answers it."""

    approval_id: str
    tool: str
    plugin: str
    summary: str


CallEvent = ProgressEvent | ApprovalEvent

_DECODER: Final = msgspec.json.Decoder(CallEvent)


def decode_call_event(text: str | bytes) -> CallEvent | None:
    """One event as the host sent it; None for one this version does not know (events are advisory)."""
    try:
        return _DECODER.decode(text)
    except msgspec.DecodeError:  # a ValidationError too: a newer kind, or a shape from another version
        return None
