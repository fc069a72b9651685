"""Text from others, shown to a person (S3): control characters escaped, never obeyed.

A plugin, the game or any peer on the bus chooses the strings the host keeps (a summary, a
progress line, a job name, a tool's result, a chat line). A terminal obeys the control characters
in them: `\\r\\x1b[2K` erases the line it is on, so a summary could hide what an approval really
does, and a bidi override reverses what follows it. Whatever prints such a string (the command
line, `xivmcp check`'s reports) passes it through `escaped`; the host refuses control characters
outright where they have no business (`control_characters_in`).

The contract holds this because everything that shows text may import it: the command line, the
checker and the host.
"""

from __future__ import annotations

import logging
import re
from typing import Final

from ._errors import RefusedError

__all__ = [
    "BIDI_CONTROLS",
    "EscapedLogFormatter",
    "control_characters_in",
    "escaped",
    "escaped_json",
    "refuse_control_characters",
]

BIDI_CONTROLS: Final = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""The characters that reorder the text after them (Trojan Source, CVE-2021-42574): shown escaped."""

_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
"""C0, DEL and C1: what a host refuses in a summary, a progress line or a job name."""
_SHORT: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NOT_TEXT: Final = "\ud800-\udfff\ufffe\uffff"
"""Lone surrogates (no encoder writes them) and the two non-characters XML refuses."""
_SHOWN_ESCAPED: Final = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}{_NOT_TEXT}]")


def _escape_char(char: str) -> str:
    if char in _SHORT:  # the escapes a reader knows; a `\n` never starts a line of its own
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _escape(match: re.Match[str]) -> str:
    return _escape_char(match.group())


def escaped(text: str) -> str:
    """`text` with every C0, C1, DEL and bidi control shown as an escape (`\\x1b`, `\\u202e`).

    So are lone surrogates and U+FFFE/U+FFFF, so the result is always valid XML 1.0 text and
    encodes as UTF-8. Everything else, accents and emoji included, is shown as it is."""
    return _SHOWN_ESCAPED.sub(_escape, text)


def control_characters_in(text: str) -> str:
    """The C0/C1/DEL characters of `text`, escaped and in order of appearance ("" when there is none)."""
    found = dict.fromkeys(_CONTROL.findall(text))
    return ", ".join(_escape_char(c) for c in found)


_RAW_IN_JSON: Final = re.compile(f"[\x7f-\x9f{BIDI_CONTROLS}]")
"""What `json.dumps(…, ensure_ascii=False)` leaves raw (it escapes C0 itself)."""


def escaped_json(text: str) -> str:
    """JSON text with DEL, C1 and bidi controls written as `\\uXXXX`: the same JSON, safe to print."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def refuse_control_characters(gate: str, field: str, text: str) -> None:
    """RefusedError, naming the gate and the field, when `text` holds a C0, C1 or DEL character.

    For the text the player reads as a line of its own (a summary, a progress line, a job's name):
    a control character there can only hide or rewrite what the player sees."""
    found = control_characters_in(text)
    if found:
        raise RefusedError(
            f"{gate} refused the {field}: it holds control characters ({found}), which would let it hide "
            f"or rewrite what the player reads. Send plain text on one line, without escape sequences."
        )


class EscapedLogFormatter(logging.Formatter):
    """Log lines whose message shows control characters escaped: a process's log quotes plugins'
    names, tools and errors, and whoever reads its stderr must not have the terminal obey them (S3).
    Tracebacks are the process's own and keep their lines. Used by every program's logging: the
    command line, the game, the kit's plugins."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escaped(super().formatMessage(record))
