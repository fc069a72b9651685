"""A call's arguments bound to a function's parameters, tolerant of what assistants get wrong (P4).

The host passes arguments on as they were sent (T3), so checking them is the plugin's job; the
kit does it for a decorated function, from its signature:

    sent                                   bound
    {"X": 21.4, "openMap": "false"}        x=21.4, open_map=False    names in another case or style
    {"x": "21.4", "tags": "[\\"a\\"]"}       x=21.4, tags=["a"]         numbers, booleans, JSON as strings
    {"currency": "GIL"}                    currency=Currency.GIL     enum and Literal values in any case
    {"zone": 1187}                         zone="1187"               a number where a string is expected
    {"zone": null}                         (zone's default)          null for an optional argument

What stays wrong fails loudly, as an `McpToolError` the assistant reads: an unknown argument
(with the valid ones, and the closest), a missing required one, a value that does not convert
(naming the argument, what was sent and what was expected).
"""

from __future__ import annotations

import difflib
import enum
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec

from gates.contract import QUOTE_LIMIT, encode_json, quote

from ._call import McpToolError
from ._declaration import ToolDeclarationError
from ._schema import describe_schema

__all__ = ["REQUIRED", "ArgumentBinder", "Parameter", "spelling_key"]

REQUIRED: Final = object()
"""The default of a parameter that has none: the assistant must send it."""
_DECODE_JSON: Final = msgspec.json.Decoder()


def spelling_key(name: str) -> str:
    """What two spellings of one name share: "openMap", "open_map" and "OPEN-MAP" are "openmap"."""
    return name.replace("_", "").replace("-", "").lower()


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of a tool: its name, type hint, default (or `REQUIRED`) and property schema."""

    name: str
    hint: Any
    default: object
    schema: dict[str, Any]

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


class ArgumentBinder:
    """Turns one call's arguments into keyword arguments for the function, or raises `McpToolError`."""

    def __init__(
        self,
        function: Callable[..., object],
        tool: str,
        parameters: list[Parameter],
        defs: Mapping[str, Any],
    ) -> None:
        self.tool = tool
        self.parameters = parameters
        self._defs = defs
        self._by_spelling: dict[str, Parameter] = {}
        for parameter in parameters:
            other = self._by_spelling.setdefault(spelling_key(parameter.name), parameter)
            if other is not parameter:
                raise ToolDeclarationError(
                    function,
                    f"the parameters {other.name!r} and {parameter.name!r} differ only in case or underscores, and "
                    "the assistant may send either spelling for either; rename one of them.",
                )
        self._choices = {p.name: _choices(p.hint) for p in parameters}

    def bind(self, arguments: Mapping[str, Any]) -> dict[str, object]:
        """The keyword arguments for this call; parameters left out (or null while optional) get their defaults."""
        sent: dict[str, tuple[str, Any]] = {}
        for key, value in arguments.items():
            parameter = self._by_spelling.get(spelling_key(key))
            if parameter is None:
                raise McpToolError(self._unknown(key))
            if parameter.name in sent:
                first = sent[parameter.name][0]
                raise McpToolError(
                    f"{self.tool} got {quote(parameter.name)} twice, as {quote(first)} and {quote(key)}; send it once."
                )
            sent[parameter.name] = (key, value)
        missing = [p for p in self.parameters if p.required and p.name not in sent]
        if missing:
            needs = "; ".join(f"{quote(p.name)}, {self._expected(p)}" for p in missing)
            raise McpToolError(f"{self.tool} needs {needs}. {self._arguments()}")
        bound: dict[str, object] = {}
        for parameter in self.parameters:
            if parameter.name not in sent:
                continue
            value = sent[parameter.name][1]
            if value is None and not parameter.required and not _accepts_null(parameter.schema):
                continue  # "not given", as assistants often say it: the default applies
            bound[parameter.name] = self._convert(parameter, value)
        return bound

    def _convert(self, parameter: Parameter, value: Any) -> object:
        try:
            return msgspec.convert(value, parameter.hint, strict=False)
        except msgspec.ValidationError as exc:
            first = exc
        for candidate in self._second_readings(parameter, value):
            try:
                return msgspec.convert(candidate, parameter.hint, strict=False)
            except msgspec.ValidationError:
                continue
        detail = str(first)
        # msgspec's words add to ours only deep inside a value, or to say what an object lacks.
        said_already = detail.startswith(("Expected", "Invalid enum value")) and " - at `$" not in detail
        where = "" if said_already else f" ({detail})"
        raise McpToolError(
            f"{self.tool}: {quote(parameter.name)} must be {self._expected(parameter)}; got {_sent(value)}{where}."
        )

    def _second_readings(self, parameter: Parameter, value: Any) -> list[Any]:
        """Other ways to read a value that did not convert as sent: JSON in a string, an enum value in
        another case, a number for a string."""
        readings: list[Any] = []
        if isinstance(value, str):
            try:
                readings.append(_DECODE_JSON.decode(value))
            except msgspec.DecodeError:
                pass
            folded = value.strip().casefold()
            readings += [choice for label, choice in self._choices[parameter.name] if label == folded]
        elif isinstance(value, int | float) and not isinstance(value, bool):
            readings.append(encode_json(value))
        return readings

    def _expected(self, parameter: Parameter) -> str:
        return describe_schema(parameter.schema, self._defs)

    def _arguments(self) -> str:
        """ "Its arguments are x, y (required) and zone, open_map (optional)." """
        required = ", ".join(p.name for p in self.parameters if p.required)
        optional = ", ".join(p.name for p in self.parameters if not p.required)
        if required and optional:
            return f"Its arguments are {required} (required) and {optional} (optional)."
        if required:
            return f"Its arguments are {required} (all required)."
        if optional:
            return f"Its arguments are {optional} (all optional)."
        return "It takes no arguments."

    def _unknown(self, key: str) -> str:
        names = [p.name for p in self.parameters]
        close = difflib.get_close_matches(key, names, n=1)
        hint = f" Did you mean {quote(close[0])}?" if close else ""
        return f"{self.tool} has no argument {quote(key)}.{hint} {self._arguments()}"


def _choices(hint: Any) -> list[tuple[str, object]]:
    """(case-folded label, value to convert) for each enum member and string Literal a hint allows,
    so "GIL" or "Gil" finds the member whose value is "gil", and its name finds it too."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _choices(typing.get_args(hint)[0])
    if origin is Literal:
        return [(v.casefold(), v) for v in typing.get_args(hint) if isinstance(v, str)]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members: list[tuple[str, object]] = []
        for member in hint:
            wire = msgspec.to_builtins(member)
            if isinstance(member.value, str):
                members.append((member.value.casefold(), wire))
            members.append((member.name.casefold(), wire))
        return members
    if origin is typing.Union or origin is types.UnionType:
        return [choice for arg in typing.get_args(hint) for choice in _choices(arg)]
    return []


def _accepts_null(schema: Mapping[str, Any]) -> bool:
    if schema.get("type") == "null":
        return True
    return any(isinstance(s, Mapping) and _accepts_null(s) for s in schema.get("anyOf", ()))


def _sent(value: Any) -> str:
    """What was sent, as JSON (so "5" and 5 differ), cut like every quoted value."""
    try:
        text = encode_json(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else f"{text[:QUOTE_LIMIT]}… ({len(text)} characters)"
