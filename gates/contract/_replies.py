"""The replies of host gates: ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``, never an exception (G2).

The host wraps each gate handler with :func:`guard_gate`; a plugin reads a reply with
:func:`decode_host_reply`, which raises :class:`HostReplyError` with the host's message.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, ParamSpec, TypeVar

import msgspec

from ._codec import encode_json
from ._documents import ErrorReply
from ._errors import HostReplyError, InvalidDocumentError, RefusedError

__all__ = [
    "MAX_ERROR_TEXT",
    "decode_host_reply",
    "error_reply",
    "exception_reply",
    "guard_gate",
    "guard_gate_async",
    "ok_reply",
]

_log = logging.getLogger("gates")

T = TypeVar("T")
P = ParamSpec("P")
_ENCODER: Final = msgspec.json.Encoder()


def ok_reply(payload: msgspec.Struct | None = None) -> str:
    """``{"ok": true, ...payload}``: what every host gate answers on success."""
    if payload is None:
        return '{"ok":true}'
    body = _ENCODER.encode(payload)
    if not body.startswith(b"{"):
        raise TypeError(f"A reply payload must encode as a JSON object, not {body[:20]!r}.")
    if body == b"{}":
        return '{"ok":true}'
    return '{"ok":true,' + body[1:].decode()


MAX_ERROR_TEXT: Final = 8 * 1024
"""The longest ``error`` a host gate answers: a reply stays small whatever it was sent (G2)."""


def error_reply(message: str) -> str:
    """``{"ok": false, "error": message}``: what every host gate answers when it refuses."""
    if len(message) > MAX_ERROR_TEXT:
        message = message[: MAX_ERROR_TEXT - 40] + f"… ({len(message)} characters, cut)"
    return encode_json(ErrorReply(error=message))


def exception_reply(exc: BaseException) -> str:
    """A refusal as its own message; anything else as ``"TypeName: message"`` (it is also logged)."""
    if isinstance(exc, RefusedError):
        return error_reply(str(exc))
    _log.error("A host gate failed unexpectedly", exc_info=exc)
    return error_reply(f"{type(exc).__name__}: {exc}")


def guard_gate(fn: Callable[P, str]) -> Callable[P, str]:
    """Wraps a gate handler so it never raises into the caller (G2)."""

    @functools.wraps(fn)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            return exception_reply(exc)

    return guarded


def guard_gate_async(fn: Callable[P, Awaitable[str]]) -> Callable[P, Awaitable[str]]:
    """:func:`guard_gate` for a coroutine handler. Cancellation still propagates."""

    @functools.wraps(fn)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return await fn(*args, **kwargs)
        except Exception as exc:
            return exception_reply(exc)

    return guarded


_OK_ONLY: Final = msgspec.json.Decoder(dict[str, Any])


def decode_host_reply(text: str | bytes, type_: type[T]) -> T:
    """For a plugin: a host gate's reply as ``type_``, or :class:`HostReplyError` with the host's message."""
    try:
        raw = _OK_ONLY.decode(text)
    except msgspec.DecodeError as exc:
        raise InvalidDocumentError(f"XIV MCP's reply is not a JSON object ({exc}).") from exc
    if raw.get("ok") is not True:
        raise HostReplyError(str(raw.get("error") or "XIV MCP refused the request without a message."))
    try:
        return msgspec.convert(raw, type_)
    except msgspec.ValidationError as exc:
        raise InvalidDocumentError(f"XIV MCP's reply does not have the expected shape: {exc}.") from exc
