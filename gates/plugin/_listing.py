"""Lists returned with counts, paged with ``limit`` and ``offset`` (P5).

    @plugin.tool(read_only=True)
    def myplugin_find_spots(query: str = "", limit: Annotated[int, Meta(ge=1, le=100)] = 20,
                            offset: int = 0) -> Listing[Spot]:
        \"\"\"Finds saved spots by name.\"\"\"
        return Listing.page([s for s in SPOTS if query in s.name], limit=limit, offset=offset)

The assistant gets ``{"total": 57, "showing": 20, "offset": 0, "items": [...]}``, the same shape
as XIV MCP's own lists, and knows from the counts that there is more. A tool that returns a
`Listing` must take ``limit`` (with a default and a maximum) and ``offset``: the kit checks it
when the module is imported, and adds "Default 20, max 100." to ``limit``'s description, so the
default and the maximum the assistant reads are the ones the code applies.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Generic, TypeVar

import msgspec

from ._declaration import ToolDeclarationError

__all__ = ["LIMIT", "OFFSET", "Listing", "describe_paging", "returns_listing"]

LIMIT: Final = "limit"
OFFSET: Final = "offset"
_PAGING_EXAMPLE: Final = "limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20, offset: int = 0"

ItemT = TypeVar("ItemT")


class Listing(msgspec.Struct, Generic[ItemT], kw_only=True):
    """One page of a longer list: how many there are in all, how many this page shows, from where."""

    total: int
    """How many items there are in all."""
    showing: int
    """How many items this page holds (``len(items)``)."""
    offset: int = 0
    """How many items come before this page."""
    items: list[ItemT]

    @classmethod
    def page(cls, items: Sequence[ItemT], *, limit: int, offset: int = 0) -> Listing[ItemT]:
        """The page of ``items`` that starts at ``offset`` and holds at most ``limit`` of them."""
        start = max(offset, 0)
        shown = list(items[start : start + max(limit, 0)])
        return cls(total=len(items), showing=len(shown), offset=start, items=shown)


def returns_listing(returns: Any) -> bool:
    """Whether a return type is a `Listing` (``Listing[Spot]`` or a bare ``Listing``)."""
    origin = typing.get_origin(returns) or returns
    return isinstance(origin, type) and issubclass(origin, Listing)


def describe_paging(
    function: Callable[..., object],
    schemas: Mapping[str, dict[str, Any]],
    defaults: Mapping[str, object],
) -> dict[str, dict[str, Any]]:
    """The schemas of ``limit`` and ``offset`` with their default and maximum stated, or a refusal
    that says what to write when a tool returning a `Listing` does not page."""
    limit, offset = schemas.get(LIMIT), schemas.get(OFFSET)
    if limit is None or offset is None:
        raise ToolDeclarationError(
            function, f"it returns a Listing, so it pages: give it the parameters {_PAGING_EXAMPLE}."
        )
    default, most = defaults.get(LIMIT), limit.get("maximum")
    if limit.get("type") != "integer" or not isinstance(default, int) or most is None:
        raise ToolDeclarationError(
            function,
            "its 'limit' needs a whole-number type with a maximum and a default, so the assistant "
            f"knows how much one page holds; write {_PAGING_EXAMPLE}.",
        )
    if offset.get("type") != "integer" or defaults.get(OFFSET) != 0:
        raise ToolDeclarationError(
            function, f"its 'offset' must be a whole number that defaults to 0; write {_PAGING_EXAMPLE}."
        )
    return {
        LIMIT: {
            **limit,
            "description": _with_sentence(limit, "How many items to return.", f"Default {default}, max {most}."),
        },
        OFFSET: {**offset, "description": _with_sentence(offset, "How many items to skip, for paging.", "Default 0.")},
    }


def _with_sentence(schema: Mapping[str, Any], fallback: str, sentence: str) -> str:
    """The author's description (or ``fallback``) ending with ``sentence``, unless it already states a default."""
    text = str(schema.get("description") or fallback).strip()
    if "default" in text.lower():
        return text
    return f"{text.rstrip('.')}. {sentence}"
