"""The arguments of the game's gates: one msgspec Struct per gate, decoded from the gate's one string.

Arguments are strict (unknown fields refused, no type coercion), so a typo is an error that says
what the gate takes, not a default silently used. `decode_args` turns msgspec's messages into the
gate's own refusal, naming the argument and showing a call that works.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

import msgspec

from ._errors import Refusal

__all__ = [
    "AdminHelloArgs",
    "AdvanceClockArgs",
    "AnswerDialogArgs",
    "ChangesArgs",
    "ChatArgs",
    "InteractArgs",
    "ItemArgs",
    "LoginArgs",
    "MoveToArgs",
    "MoveToMapArgs",
    "NoArgs",
    "OpenWindowArgs",
    "SaveArgs",
    "SelectMenuArgs",
    "SendChatArgs",
    "SetArgs",
    "SetFlagArgs",
    "SetPositionArgs",
    "SetTargetArgs",
    "TeleportArgs",
    "TradeArgs",
    "TradeItem",
    "WindowArgs",
    "decode_args",
]

A = TypeVar("A", bound=msgspec.Struct)


class _Args(msgspec.Struct, rename="camel", kw_only=True, forbid_unknown_fields=True):
    """Base of the gates' arguments: camelCase on the wire, nothing unknown accepted."""


class NoArgs(_Args):
    pass


class ChatArgs(_Args):
    limit: int | None = None


class ChangesArgs(_Args):
    since: int
    limit: int | None = None


class MoveToArgs(_Args):
    x: float
    z: float
    y: float | None = None


class MoveToMapArgs(_Args):
    x: float
    y: float


class SetPositionArgs(_Args):
    x: float
    z: float
    y: float | None = None
    territory: int | None = None


class TeleportArgs(_Args):
    aetheryte: str | int
    """The aetheryte's name (any case) or id."""


class ItemArgs(_Args):
    item_id: int
    count: int = 1


class TradeItem(_Args):
    """One item of a trade: `{"itemId": 4554, "count": 2}`."""

    item_id: int
    count: int = 1


class TradeArgs(_Args):
    to: str
    items: list[TradeItem] = []
    gil: int = 0


class SendChatArgs(_Args):
    text: str
    channel: str = "say"


class OpenWindowArgs(_Args):
    name: str
    kind: Literal["window", "yesno"] = "window"
    text: str = ""


class WindowArgs(_Args):
    name: str


class AnswerDialogArgs(_Args):
    name: str
    yes: bool


class InteractArgs(_Args):
    name: str


class SelectMenuArgs(_Args):
    index: int


class LoginArgs(_Args):
    name: str | None = None


class SetFlagArgs(_Args):
    x: float
    y: float
    territory: int | None = None
    zone: str | None = None
    name: str | None = None


class SetTargetArgs(_Args):
    name: str | None = None
    """Who to target; null (or left out) clears the target."""


class SetArgs(_Args):
    path: str
    value: Any
    """Any JSON value; each path says which it takes."""


class AdvanceClockArgs(_Args):
    seconds: float


class SaveArgs(_Args):
    path: str | None = None
    """A file name in the world folder (`DATA_DIR/worlds`), such as "farm.json"; none: the --save file."""


class AdminHelloArgs(_Args):
    nonce: str
    """The caller's own random nonce, which the game's proof covers."""


_AT = re.compile(r"^(?P<what>.*) - at `\$(?P<path>.*)`$")
_decoders: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def decode_args(args_type: type[A], text: str | None, example: str) -> A:
    """The arguments in `text` (a JSON object; "" or null for none), or a `Refusal` saying what to send."""
    if text is None or not text.strip():
        text = "{}"
    decoder = _decoders.get(args_type)
    if decoder is None:
        decoder = _decoders[args_type] = msgspec.json.Decoder(args_type)
    usage = f"Send one JSON object of arguments, such as {example}."
    try:
        decoded: A = decoder.decode(text)
    except msgspec.ValidationError as exc:
        raise Refusal(f"{_readable(str(exc), args_type)} {usage}") from None
    except msgspec.DecodeError as exc:
        raise Refusal(f"the argument is not valid JSON ({exc}). {usage}") from None
    return decoded


def _readable(message: str, args_type: type[Any]) -> str:
    """msgspec's message, with the argument named as the caller wrote it."""
    fields = ", ".join(f"`{name}`" for name in args_type.__struct_encode_fields__) or "none"
    if message.startswith("Object contains unknown field"):
        return f"{message.replace('Object contains unknown field', 'unknown argument')}; this gate takes {fields}."
    if message.startswith("Object missing required field"):
        return f"{message.replace('Object missing required field', 'missing argument')}."
    match = _AT.match(message)
    if match is None:
        if message.startswith("Expected `object`"):
            return f"the argument must be a JSON object: {message.replace('Expected `object`, got', 'got')}."
        return f"{message}."
    path = match["path"].lstrip(".")
    return f"argument `{path}`: {match['what']}."
