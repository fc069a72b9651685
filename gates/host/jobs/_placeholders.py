"""Placeholders in a job step's arguments, filled from the results of earlier steps (J9).

A pure module: it knows no job, runner or tool, only JSON values. The rules, the real XIV MCP
host's:

* A placeholder is ``{{step.path}}``, with optional spaces (U+0020 only) inside the braces:
  ``{{ farm.kills }}``. ``step`` is a step id (ASCII letters, digits, ``_``, ``-``); the path is
  zero or more segments, each after a ``.``, of one or more characters other than ``.``, ``{``,
  ``}`` and whitespace. ``{{farm}}`` is the whole result. Anything else (``{{}}``, ``{{ .x }}``,
  single braces) is text and stays as it is.
* Placeholders are filled in every string of the arguments (values of objects, items of lists,
  nested); object keys are not touched. The arguments are copied, never changed.
* A string that is exactly one placeholder (no outer whitespace) becomes the value itself, of its
  own type: ``"{{farm.kills}}"`` gives ``31``; an object or list stays one (a copy).
* Inside a longer string a placeholder becomes text: null ``""``, a string itself, anything else
  compact JSON (``true``, ``[1,2]``, ``{"a":1}``).
* A segment on an object names a key, ignoring case (``str.casefold``): an exact match wins, else
  the first matching key in the object's order. On a list, a segment of ASCII digits is an index
  (``{{search.items.0.id}}``; leading zeros allowed). Anything else has no value.

Errors, each a :class:`PlaceholderError` (a ``RefusedError``); the first placeholder that cannot
be filled, in the order the arguments are written, fails the step:

* ``No step 'nope' for {{nope.kills}}.``: not a step of the job, or not an earlier one;
* ``Step 'farm' has no result yet for {{farm.kills}}.``: an earlier step without a result;
* ``Step 'farm' result has no 'kils'.``: the path cannot be followed (the whole path is quoted).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, Final, Literal

from gates.contract import RefusedError, quote

__all__ = ["PlaceholderError", "referenced_steps", "resolve"]

_PLACEHOLDER: Final = re.compile(r"\{\{ *(?P<step>[A-Za-z0-9_-]+)(?P<path>(?:\.[^\s.{}]+)*) *\}\}")
_INDEX: Final = re.compile(r"[0-9]+")
_MISSING: Final = object()

_Reason = Literal["unknown step", "later step", "no result", "no path"]


class PlaceholderError(RefusedError):
    """Raised when a placeholder in a step's arguments cannot be filled; the step fails with it.

    ``reason`` tells the cases apart: ``"unknown step"`` (no step of the job has the id),
    ``"later step"`` (a step of the job that does not come earlier; same message), ``"no result"``
    and ``"no path"``. ``placeholder`` is the placeholder as written, ``path`` its dotted path.
    """

    def __init__(self, reason: _Reason, step: str, path: str, placeholder: str) -> None:
        self.reason: _Reason = reason
        self.step = step
        self.path = path
        self.placeholder = placeholder
        if reason == "no result":
            message = f"Step {quote(step)} has no result yet for {placeholder}."
        elif reason == "no path":
            message = f"Step {quote(step)} result has no {quote(path)}."
        else:
            message = f"No step {quote(step)} for {placeholder}."
        super().__init__(message)


def resolve(args: Any, results: Mapping[str, Any], earlier: Collection[str], ids: Collection[str] | None = None) -> Any:
    """A copy of ``args`` with every placeholder filled from ``results``.

    ``results`` maps each finished step's id to its result; ``earlier`` holds the ids of the steps
    before the current one (the only ones a placeholder may name); ``ids`` all step ids of the job
    (default ``earlier``), which only sets the error's ``reason``. Raises :class:`PlaceholderError`.
    """
    steps = earlier if ids is None else ids

    def value_of(match: re.Match[str]) -> Any:
        step, dotted = match["step"], match["path"][1:]
        if step not in earlier:
            reason: _Reason = "later step" if step in steps else "unknown step"
            raise PlaceholderError(reason, step, dotted, match[0])
        if step not in results:
            raise PlaceholderError("no result", step, dotted, match[0])
        value = results[step]
        for segment in dotted.split(".") if dotted else ():
            value = _child(value, segment)
            if value is _MISSING:
                raise PlaceholderError("no path", step, dotted, match[0])
        return value

    def fill(text: str) -> Any:
        whole = _PLACEHOLDER.fullmatch(text)
        if whole is not None:
            return copy.deepcopy(value_of(whole))
        return _PLACEHOLDER.sub(lambda match: _as_text(value_of(match)), text)

    return _map_strings(args, fill)


def referenced_steps(args: Any) -> list[str]:
    """The step ids the placeholders in ``args`` name, each once, in order of first appearance."""
    named: dict[str, None] = {}
    for text in _strings(args):
        for match in _PLACEHOLDER.finditer(text):
            named.setdefault(match["step"])
    return list(named)


def _map_strings(value: Any, fill: Callable[[str], Any]) -> Any:
    """``value`` copied, each string in a value position replaced by ``fill(string)``."""
    if isinstance(value, str):
        return fill(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, fill) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, fill) for item in value]
    return value


def _strings(value: Any) -> Iterator[str]:
    """Every string in a value position of ``value``, in the order it is written."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _child(value: Any, segment: str) -> Any:
    """What ``segment`` names in ``value``, or ``_MISSING``."""
    if isinstance(value, dict):
        if segment in value:
            return value[segment]
        folded = segment.casefold()
        return next(
            (item for key, item in value.items() if isinstance(key, str) and key.casefold() == folded), _MISSING
        )
    if isinstance(value, list) and _INDEX.fullmatch(segment):
        digits = segment.lstrip("0") or "0"
        # int() refuses more than 4300 digits; no list is that long anyway.
        if len(digits) <= len(str(len(value))) and int(digits) < len(value):
            return value[int(digits)]
    return _MISSING


def _as_text(value: Any) -> str:
    """A value written into a longer string: null as nothing, a string as itself, else compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
