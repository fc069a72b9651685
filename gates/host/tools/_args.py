"""A core tool's arguments as its handler reads them: names matched ignoring case, unknown names
refused, values checked with messages written for the assistant (P4, P6)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from gates.contract import RefusedError, quote

__all__ = ["ToolArgs", "ToolHandler"]


class ToolArgs:
    """A core tool's arguments: names matched case-insensitively, unknown names refused (P4)."""

    def __init__(self, tool: str, args: dict[str, Any], params: tuple[str, ...]) -> None:
        by_lower = {p.lower(): p for p in params}
        self.tool = tool
        self.values: dict[str, Any] = {}
        for key, value in args.items():
            param = by_lower.get(key.lower())
            if param is None:
                known = ", ".join(params) or "none"
                raise RefusedError(f"{tool} has no argument {quote(key)}; its arguments are: {known}.")
            self.values[param] = value

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.values.get(name)
        if value is None:
            if required:
                raise RefusedError(f"{self.tool} needs {quote(name)}, a string.")
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, name: str, default: int, low: int, high: int | None = None) -> int:
        value = self.values.get(name, default)
        try:
            number = int(value) if not isinstance(value, bool) and float(value) == int(float(value)) else None
        except (TypeError, ValueError, OverflowError):
            number = None
        if number is None or number < low or (high is not None and number > high):
            bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise RefusedError(f"{quote(name)} must be a whole number {bounds}; got {quote(value)}.")
        return number

    def object(self, name: str) -> dict[str, Any]:
        value = self.values.get(name) or {}
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise RefusedError(f"{quote(name)} must be a JSON object of arguments; got {quote(value)}.") from None
        if not isinstance(value, dict):
            raise RefusedError(f'{quote(name)} must be an object of arguments, such as {{"x": 21.4}}.')
        return value

    def boolean(self, name: str, default: bool) -> bool:
        value = self.values.get(name, default)
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise RefusedError(f"{quote(name)} must be true or false; got {quote(value)}.")
        return value

    def items(self, name: str) -> list[Any]:
        """A list argument (a JSON-encoded string of one is taken too); [] if left out."""
        value = self.values.get(name)
        if value is None:
            return []
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise RefusedError(f"{quote(name)} must be a list; got {quote(value)}.") from None
        if not isinstance(value, list):
            raise RefusedError(f"{quote(name)} must be a list; got {quote(value)}.")
        return value


ToolHandler = Callable[[ToolArgs, Callable[[str], None] | None], Awaitable[Any]]
"""A core tool's handler: its arguments and, for a long one, where its progress lines go."""
