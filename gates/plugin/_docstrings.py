"""A tool's docstring as the assistant reads it: the description, and each parameter's.

    def myplugin_set_flag(x: float, zone: str | None = None) -> FlagPlaced:
        \"\"\"Places the flag on the player's map. Only marks the spot: nothing moves.

        Args:
            x: Map X coordinate, as the in-game map shows it (about 1 to 42).
            zone: Zone name or territory id. Default: the zone you are in.

        Returns:
            Where the flag is, and whether the map was opened.
        \"\"\"

Google, NumPy and reST (``:param x:``) docstrings are parsed by ``docstring-parser``, which
tells the styles apart by itself. Lines a docstring wraps for the source's width are joined,
so the assistant reads sentences, not the author's line breaks; list items stay on lines of
their own. A ``Returns`` section ends the description ("Returns: …"): the description is the
interface, and what a tool returns is part of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

import docstring_parser

__all__ = ["ToolDocs", "parse_docstring", "unwrap"]

_LIST_ITEM: Final = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")
"""A line that starts a list item, which keeps its own line when paragraphs are unwrapped."""


@dataclass(frozen=True, slots=True)
class ToolDocs:
    """What a docstring says: the tool's description and each parameter's (by parameter name)."""

    description: str
    parameters: dict[str, str] = field(default_factory=dict)


def parse_docstring(docstring: str | None) -> ToolDocs:
    """The description and parameter docs of a docstring; an empty description if there is none."""
    if not docstring or not docstring.strip():
        return ToolDocs("")
    parsed = docstring_parser.parse(docstring)
    paragraphs = [unwrap(parsed.description or "")]
    if parsed.returns is not None and parsed.returns.description:
        paragraphs.append(f"Returns: {unwrap(parsed.returns.description)}")
    # `params` also holds a class's attributes (reST `:attribute:`), which are no parameters.
    parameters = {p.arg_name: unwrap(p.description or "") for p in parsed.params if p.args[0] != "attribute"}
    return ToolDocs("\n\n".join(p for p in paragraphs if p), parameters)


def unwrap(text: str) -> str:
    """``text`` with the lines of each paragraph joined by spaces; blank lines and list items kept."""
    paragraphs: list[str] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for raw in block.splitlines():
            line = raw.strip()
            if lines and not _LIST_ITEM.match(raw):
                lines[-1] = f"{lines[-1]} {line}"
            else:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(p for p in paragraphs if p)
