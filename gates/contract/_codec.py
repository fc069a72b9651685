"""Decoding the documents a gate is sent, with errors that say what to send instead, and encoding.

One decoder per input document, built once (msgspec's typed decoders are fastest reused).
"""

from __future__ import annotations

from typing import Final, Generic, TypeVar

import msgspec

from ._documents import (
    ApprovalRequest,
    DependencyDeclaration,
    InvokeError,
    InvokePending,
    InvokeReply,
    InvokeResult,
    Job,
    ToolDefinition,
)
from ._errors import InvalidDocumentError

__all__ = [
    "DocumentDecoder",
    "decode_approval_request",
    "decode_dependency_declaration",
    "decode_invoke_reply",
    "decode_job",
    "decode_tool_definition",
    "encode_json",
]

T = TypeVar("T")


class DocumentDecoder(Generic[T]):
    """A decoder built once for one input document, with errors that say what to send instead."""

    def __init__(self, type_: type[T], what: str, example: str) -> None:
        self._decoder = msgspec.json.Decoder(type_)
        self.what = what
        self.example = example

    def decode(self, text: str | bytes) -> T:
        if not text or not text.strip():
            raise InvalidDocumentError(f"The {self.what} is empty. Send {self.example}.")
        try:
            return self._decoder.decode(text)
        except msgspec.ValidationError as exc:
            raise InvalidDocumentError(f"The {self.what} is not valid: {exc}. Send {self.example}.") from exc
        except msgspec.DecodeError as exc:
            raise InvalidDocumentError(f"The {self.what} is not valid JSON ({exc}). Send {self.example}.") from exc


_TOOL_DEFINITION: Final = DocumentDecoder(
    ToolDefinition,
    "tool definition",
    'a JSON object like {"name": "myplugin_do_thing", "description": "What it does.", "capabilities": ["game_ui"]}',
)
_DEPENDENCY_DECLARATION: Final = DocumentDecoder(
    DependencyDeclaration,
    "dependency declaration",
    '{"tools": [{"tool": "navigate_to"}, {"tool": "otherplugin_announce", "plugin": "OtherPlugin", '
    '"name": "Other Plugin", "repo": "https://example.com/repo.json", "minVersion": "1.2.0"}]}',
)
_APPROVAL_REQUEST: Final = DocumentDecoder(
    ApprovalRequest, "approval request", '{"capability": "spend_gil", "summary": "Repair for 3,200 gil"}'
)
_JOB: Final = DocumentDecoder(
    Job,
    "job",
    '{"name": "Farm, then report", "steps": [{"id": "farm", "tool": "myplugin_farm", "args": {"minutes": 90}}]}',
)
_ANY: Final = msgspec.json.Decoder()
_ENCODER: Final = msgspec.json.Encoder()


def decode_tool_definition(text: str | bytes) -> ToolDefinition:
    return _TOOL_DEFINITION.decode(text)


def decode_dependency_declaration(text: str | bytes) -> DependencyDeclaration:
    return _DEPENDENCY_DECLARATION.decode(text)


def decode_approval_request(text: str | bytes) -> ApprovalRequest:
    return _APPROVAL_REQUEST.decode(text)


def decode_job(text: str | bytes) -> Job:
    return _JOB.decode(text)


def decode_invoke_reply(text: str | bytes | None, plugin: str) -> InvokeReply:
    """A plugin's ``Invoke`` reply. Blank is a null result; ``error`` wins over ``pending``, then ``result``.
    `plugin` is the name the messages give: the plugin's display name, as the real host's."""
    expected = f'{plugin} returned an invalid reply: expected {{"result": …}}, {{"error": "…"}} or {{"pending": true}}.'
    if text is None or not text.strip():
        return InvokeResult(result=None)
    try:
        reply = _ANY.decode(text)
    except msgspec.DecodeError as exc:
        raise InvalidDocumentError(f"{plugin} returned invalid JSON: {exc}") from exc
    if not isinstance(reply, dict):
        raise InvalidDocumentError(expected)
    if "error" in reply:
        error = reply["error"]
        if error is None:
            return InvokeError(error="Failed.")
        return InvokeError(error=error if isinstance(error, str) else encode_json(error))
    if reply.get("pending") is True:
        return InvokePending()
    if "result" in reply:
        return InvokeResult(result=reply["result"])
    raise InvalidDocumentError(expected)


def encode_json(value: object) -> str:
    """Any JSON-able value (Structs and StrEnums included) as a compact JSON string."""
    return _ENCODER.encode(value).decode()
