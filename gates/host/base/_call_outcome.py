"""How a call of a tool ended, as the call path, the core tools and the job runner see it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CallOutcome"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """How a call ended: a result, or an error message written for the assistant."""

    result: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None
