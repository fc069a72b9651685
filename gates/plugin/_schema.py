"""JSON schemas from type hints: a tool's inputSchema from its parameters, its outputSchema from
its return type, and a few words for a schema ("a number from 1 to 42") for binding's messages.

msgspec writes the schemas (``msgspec.json.schema_components``), so whatever msgspec can decode a
parameter into has a schema that says the same: Structs, enums, ``Literal``, ``list``, ``dict``,
``X | None``, ``Annotated[float, Meta(ge=1, le=42)]``, datetimes, UUIDs. Named types (Structs,
enums) are ``$ref``s into the schema's own ``$defs``, so every schema is one self-contained
object with ``"type": "object"`` at its root, as MCP wants for both schemas.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

from gates.contract import encode_json

from ._declaration import ToolDeclarationError

__all__ = ["describe_schema", "input_schema", "output_schema_of", "parameter_schemas"]

_JSON_TYPES: Final = (
    "use a type with a JSON form: str, int, float, bool, a list or dict of those, Literal[...], an Enum, "
    "a msgspec Struct, X | None, or Annotated[X, msgspec.Meta(...)] for bounds"
)
_REF_PREFIX: Final = "#/$defs/"


def parameter_schemas(
    function: Callable[..., object], hints: Mapping[str, Any]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Each parameter's schema, by name, and the ``$defs`` they refer to.

    Each hint is tried alone first, so a refusal names the one parameter with no JSON form.
    """
    for name, hint in hints.items():
        try:
            msgspec.json.schema(hint)
        except (TypeError, ValueError) as exc:
            raise ToolDeclarationError(
                function,
                f"parameter {name!r} has the type {_type_name(hint)}, which has no JSON form ({_summary(exc)}); "
                f"{_JSON_TYPES}.",
            ) from exc
    schemas, defs = msgspec.json.schema_components(list(hints.values()), ref_template=_REF_PREFIX + "{name}")
    return dict(zip(hints, (dict(s) for s in schemas), strict=True)), dict(defs)


def input_schema(
    properties: Mapping[str, dict[str, Any]], required: list[str], defs: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    """The object schema of a tool's arguments, with its ``$defs`` when a parameter refers to any."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = required
    if defs:
        schema["$defs"] = dict(defs)
    return schema


def output_schema_of(function: Callable[..., object], returns: Any) -> dict[str, Any] | None:
    """The outputSchema a return type advertises: a named shape (a msgspec Struct, a TypedDict or a
    dataclass) does; anything else (``dict``, ``list``, ``str``, ``None``, no annotation) does not."""
    if not _is_named_shape(returns):
        return None
    try:
        (root,), defs = msgspec.json.schema_components([returns], ref_template=_REF_PREFIX + "{name}")
    except (TypeError, ValueError) as exc:
        raise ToolDeclarationError(
            function,
            f"its return type {_type_name(returns)} has no JSON form ({_summary(exc)}); give its fields "
            "types with a JSON form, or return a plain dict (then no outputSchema is advertised).",
        ) from exc
    schema = dict(root)
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref.removeprefix(_REF_PREFIX)
        schema = dict(defs[name])
        if f'"{ref}"' not in encode_json(defs):  # kept when the shape refers to itself
            defs = {k: v for k, v in defs.items() if k != name}
    if schema.get("type") != "object":
        raise ToolDeclarationError(
            function,
            f"its return type {_type_name(returns)} is encoded as JSON {schema.get('type', 'other')}, not "
            "as an object, so it cannot be a structured result; return a Struct without array_like=True, a "
            "TypedDict or a dataclass.",
        )
    if defs:
        schema["$defs"] = dict(defs)
    return schema


def _is_named_shape(returns: Any) -> bool:
    origin = typing.get_origin(returns) or returns  # Listing[Item] is a Listing
    if not isinstance(origin, type):
        return False
    return issubclass(origin, msgspec.Struct) or typing.is_typeddict(origin) or dataclasses.is_dataclass(origin)


def describe_schema(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> str:
    """A few words for what a schema accepts, for a message to the assistant: "a number from 1 to 42"."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX) and ref.removeprefix(_REF_PREFIX) in defs:
        return describe_schema(
            {**defs[ref.removeprefix(_REF_PREFIX)], **{k: v for k, v in schema.items() if k != "$ref"}}, defs
        )
    if "enum" in schema:
        return "one of " + ", ".join(encode_json(v) for v in schema["enum"])
    if "const" in schema:
        return encode_json(schema["const"])
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            parts = [describe_schema(s, defs) for s in schema[combinator]]
            return " or ".join(dict.fromkeys(parts))
    kind = schema.get("type")
    if kind == "integer":
        return "a whole number" + _bounds(schema)
    if kind == "number":
        return "a number" + _bounds(schema)
    if kind == "boolean":
        return "true or false"
    if kind == "null":
        return "null"
    if kind == "string":
        return "a string" + _string_form(schema)
    if kind == "array":
        items = schema.get("items")
        return "a list" + (
            f" of {_plural(describe_schema(items, defs))}" if isinstance(items, Mapping) and items else ""
        )
    if kind == "object":
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and properties:
            required = set(schema.get("required", ()))
            fields = ", ".join(f"{n!r}" + ("" if n in required else " (optional)") for n in properties)
            return f"an object with {fields}"
        return "an object"
    return "any JSON value"


def _bounds(schema: Mapping[str, Any]) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    parts = []
    if low is not None:
        parts.append(f"of at least {low:g}")
    if (above := schema.get("exclusiveMinimum")) is not None:
        parts.append(f"greater than {above:g}")
    if high is not None:
        parts.append(f"of at most {high:g}")
    if (below := schema.get("exclusiveMaximum")) is not None:
        parts.append(f"less than {below:g}")
    return (" " + " and ".join(parts)) if parts else ""


def _string_form(schema: Mapping[str, Any]) -> str:
    shape = schema.get("format")
    low, high = schema.get("minLength"), schema.get("maxLength")
    if shape:
        return f" ({shape})"
    if low is not None and high is not None:
        return f" of {low} to {high} characters"
    if low is not None:
        return f" of at least {low} characters"
    if high is not None:
        return f" of at most {high} characters"
    return ""


def _plural(phrase: str) -> str:
    """ "a number from 1 to 5" -> "numbers from 1 to 5", for "a list of …"."""
    for single, many in (("a whole number", "whole numbers"), ("a number", "numbers"), ("a string", "strings")):
        if phrase.startswith(single):
            return many + phrase.removeprefix(single)
    if phrase.startswith("one of"):
        return "values, each " + phrase
    if phrase.startswith(("an object", "a list")):
        return phrase.replace("an object", "objects", 1).replace("a list", "lists", 1)
    return phrase


def _type_name(hint: Any) -> str:
    return hint.__qualname__ if isinstance(hint, type) else repr(hint).replace("typing.", "")


def _summary(exc: BaseException) -> str:
    """The line of a msgspec error that names the type (its first lines say how to add a schema hook)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__
