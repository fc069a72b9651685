"""Arguments to call a tool with: some its input schema allows, and some it does not.

Valid ones are generated from the schema by `hypothesis-jsonschema`, derandomized so that two
runs of a check send the same calls (a CI failure can be reproduced). Only the properties the
schema names are sent: the host passes arguments on as they are (T3), and a kit tool refuses a
name it does not know (P4), so an extra one would only test the generator.

Invalid ones are built by hand from one valid example, one fault each: a required argument left
out, a value of the wrong type, a value just past a bound. The wrong values are ones no tolerant
binding reads as right (the kit takes "3" for 3 and "true" for true, P4), so a tool that accepts
them really skipped its check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis_jsonschema import from_schema

__all__ = ["InvalidArguments", "invalid_arguments", "valid_arguments"]

TRIES_PER_EXAMPLE: Final = 4
"""Draws per example wanted: small schemas repeat themselves, and repeats are dropped."""
MAX_PER_FAULT: Final = 4
"""At most this many wrong-type and this many out-of-range calls per tool (a call costs time)."""
_WRONG_VALUES: Final[dict[str, object]] = {
    "string": {"not": "a string"},
    "integer": "not a number",
    "number": "not a number",
    "boolean": "not a boolean",
    "array": "not a list",
    "object": "not an object",
}


@dataclass(frozen=True, slots=True)
class InvalidArguments:
    """Arguments the schema does not allow, and why not (in the words the finding quotes)."""

    arguments: dict[str, Any]
    why: str


def valid_arguments(schema: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """Up to `count` different argument objects the schema allows, the same ones on every run.

    Hypothesis runs in the calling thread and takes about a tenth of a second a schema; call it
    off the event loop (`anyio.to_thread`)."""
    if count <= 0:
        return []
    found: list[dict[str, Any]] = []
    seen: set[str] = set()

    @settings(
        max_examples=count * TRIES_PER_EXAMPLE,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(_named_properties_only(schema)))
    def collect(arguments: dict[str, Any]) -> None:
        key = json.dumps(arguments, sort_keys=True)
        if key not in seen and len(found) < count:
            seen.add(key)
            found.append(arguments)

    collect()
    return found


def invalid_arguments(schema: dict[str, Any], base: dict[str, Any]) -> list[InvalidArguments]:
    """Calls the schema does not allow, each `base` (a valid example) with one fault."""
    properties: dict[str, Any] = schema.get("properties") or {}
    found: list[InvalidArguments] = []
    required = [name for name in schema.get("required") or [] if name in properties]
    if required:
        name = required[0]
        found.append(InvalidArguments(_without(base, name), f"the required '{name}' left out"))
    wrong_types = 0
    for name, prop in properties.items():
        kind = _kind(prop)
        if kind in _WRONG_VALUES and wrong_types < MAX_PER_FAULT:
            wrong_types += 1
            wrong = _WRONG_VALUES[kind]
            found.append(
                InvalidArguments({**base, name: wrong}, f"'{name}' {json.dumps(wrong)} where {kind} is expected")
            )
    out_of_range = [fault for name, prop in properties.items() for fault in _past_bounds(base, name, prop)]
    return found + out_of_range[:MAX_PER_FAULT]


def _named_properties_only(schema: dict[str, Any]) -> dict[str, Any]:
    if "additionalProperties" in schema or "patternProperties" in schema:
        return schema
    return {**schema, "additionalProperties": False}


def _kind(prop: Any) -> str | None:
    """The one JSON type a property allows, or None (several types, or none said)."""
    if not isinstance(prop, dict):
        return None
    kind = prop.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind is None and isinstance(prop.get("anyOf"), list):
        options = [_kind(p) for p in prop["anyOf"] if not (isinstance(p, dict) and p.get("type") == "null")]
        kind = options[0] if len(options) == 1 else None
    return kind if isinstance(kind, str) else None


def _past_bounds(base: dict[str, Any], name: str, prop: Any) -> list[InvalidArguments]:
    """A value just past each bound the property states."""
    if not isinstance(prop, dict):
        return []
    faults: list[InvalidArguments] = []
    kind = _kind(prop)
    step = 1 if kind == "integer" else 0.5
    for key, offset, words in (
        ("minimum", -step, "below the minimum"),
        ("exclusiveMinimum", 0, "at the exclusive minimum"),
        ("maximum", step, "above the maximum"),
        ("exclusiveMaximum", 0, "at the exclusive maximum"),
    ):
        bound = prop.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool):
            value = bound + offset
            faults.append(InvalidArguments({**base, name: value}, f"'{name}' {value} ({words} {bound})"))
    if isinstance(max_length := prop.get("maxLength"), int):
        faults.append(InvalidArguments({**base, name: "x" * (max_length + 1)}, f"'{name}' longer than {max_length}"))
    if isinstance(choices := prop.get("enum"), list) and choices and all(isinstance(c, str) for c in choices):
        faults.append(InvalidArguments({**base, name: "not one of them"}, f"'{name}' not one of {choices}"))
    return faults


def _without(arguments: dict[str, Any], name: str) -> dict[str, Any]:
    return {key: value for key, value in arguments.items() if key != name}
