"""Gate signatures: the JSON types of a gate's arguments and result.

A provider declares its signature with Python types, as the framework does with generic
parameters: `params=(str, int, str | None), returns=str`. On the wire each becomes a JSON type
name ("string", "integer", "number", "boolean", "object", "array", "any"), with a trailing "?"
when null is allowed. The provider's side checks every call against it before the handler runs.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any, Final, Union, get_args, get_origin

from ._errors import IpcLengthMismatchError, IpcRefusedError, IpcTypeMismatchError, IpcValueNullError

_PY_TO_JSON: Final[dict[object, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    object: "any",
    Any: "any",
}


def json_type_name(py_type: object) -> str:
    """Map a Python annotation to its wire name; `T | None` becomes "T?"."""
    if py_type is None or py_type is type(None):
        raise IpcRefusedError("A gate parameter cannot be of type None; use `T | None`.")
    origin = get_origin(py_type)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(py_type) if a is not type(None)]
        if len(members) == 1 and len(members) < len(get_args(py_type)):
            return json_type_name(members[0]).rstrip("?") + "?"
        return "any?" if type(None) in get_args(py_type) else "any"
    if origin is not None:
        py_type = origin
    try:
        return _PY_TO_JSON[py_type]
    except (KeyError, TypeError):
        raise IpcRefusedError(
            f"{py_type!r} is not a type the bus carries; use str, int, float, bool, dict, list, "
            "object, or one of those with `| None`."
        ) from None


def describe(value: object) -> str:
    """The JSON type of a decoded value, as a message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


_EXACT: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
"""The JSON type of each type the JSON decoder returns: one lookup on the hot path."""


def matches(type_name: str, value: object) -> bool:
    """True if `value` (decoded JSON) is acceptable for `type_name` (null handled by caller)."""
    if _EXACT.get(type(value)) == type_name:
        return True  # the usual case (a string for a string), without `describe`'s tests
    base = type_name.rstrip("?")
    if base == "any":
        return True
    actual = describe(value)
    if base == "number":
        return actual in ("number", "integer")
    return actual == base


def check_args(gate: str, params: Sequence[str], args: Sequence[object]) -> None:
    """Raise the framework's error for a call that does not fit the signature."""
    if len(args) != len(params):
        raise IpcLengthMismatchError(
            f"{gate} takes {len(params)} argument{'s' if len(params) != 1 else ''} "
            f"({', '.join(params) or 'none'}), but was called with {len(args)}."
        )
    for index, (type_name, value) in enumerate(zip(params, args, strict=True)):
        if value is None:
            if not type_name.endswith("?"):
                raise IpcValueNullError(f"Argument {index} of {gate} is null, but it must be a {type_name}.")
            continue
        if not matches(type_name, value):
            raise IpcTypeMismatchError(
                f"Argument {index} of {gate} must be a {type_name.rstrip('?')}, got {describe(value)} {_short(value)}."
            )


def check_result(gate: str, returns: str | None, value: object) -> None:
    if returns is None:
        return
    if value is None:
        if not returns.endswith("?") and returns != "any":
            raise IpcValueNullError(f"The handler of {gate} returned null, but it returns {returns}.")
        return
    if not matches(returns, value):
        raise IpcTypeMismatchError(
            f"The handler of {gate} returned {describe(value)} {_short(value)}, "
            f"but the gate returns {returns.rstrip('?')}."
        )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
