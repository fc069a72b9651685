"""What a bench prints: progress on stderr, the table on stdout, and the pieces of its `--json`
object that several benches share (the machine, per-setup figures, ratios between setups).

Only presentation lives here; each bench keeps the words of its own table and its targets.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple


def say(text: str) -> None:
    """One line of progress or diagnosis on stderr (stdout is for the table or the JSON)."""
    print(f"bench: {text}", file=sys.stderr, flush=True)


# --- the machine -----------------------------------------------------------------------------


def environment(**versions: str) -> dict[str, Any]:
    """The `config` entries that say where a run ran: Python, the given packages' versions, the
    platform and the CPU count, in that order."""
    return {"python": platform.python_version(), **versions, "platform": platform.platform(), "cpus": os.cpu_count()}


def environment_line(config: Mapping[str, Any], *versions: str) -> str:
    """`python 3.x, pyzmq …, 2 CPUs, Linux-…`: a table's second line, from `environment()`'s entries."""
    parts = [f"python {config['python']}", *(f"{name} {config[name]}" for name in versions)]
    return ", ".join([*parts, f"{config['cpus']} CPUs", config["platform"]])


def machine() -> str:
    """`Linux x86_64, Python 3.x, 2 cores`: the machine in one phrase."""
    return f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores"


# --- tables ----------------------------------------------------------------------------------


class Column(NamedTuple):
    """One column of a printed table."""

    title: str
    width: int | None = None
    """Padded to this many characters (None: as long as it is)."""
    spec: str = ""
    """How a value is formatted, after the alignment and width: ".1f", ",", ….."""
    align: str = ">"
    gap: str = ""
    """What comes before the column."""

    def cell(self, value: object, spec: str | None = None) -> str:
        width = "" if self.width is None else str(self.width)
        return self.gap + format(value, f"{self.align}{width}{self.spec if spec is None else spec}")


def table(
    columns: Sequence[Column], rows: Iterable[Sequence[object]], *, indent: str = "", head: bool = True
) -> list[str]:
    """The lines of a table: a head of the columns' titles (unless `head` is false), then a line a row."""
    lines = [indent + "".join(c.cell(c.title, "") for c in columns)] if head else []
    lines.extend(indent + "".join(c.cell(v) for c, v in zip(columns, row, strict=True)) for row in rows)
    return lines


def rounds_note(values: Sequence[float] | None) -> str:
    """`   rounds: 1.02, 0.97` after a ratio measured in more than one round ("" otherwise)."""
    values = values or []
    return "" if len(values) < 2 else "   rounds: " + ", ".join(f"{v:.2f}" for v in values)


# --- the --json object -----------------------------------------------------------------------


class Field(NamedTuple):
    """One figure of each setup in the summary: `{setup}_{key}`, from figures[figure]."""

    key: str
    figure: str
    digits: int | None = None
    """Rounded to this many decimals (0: an int); None: as it is."""


def flatten(results: Mapping[str, Mapping[str, Any]], setups: Iterable[str], fields: Sequence[Field]) -> dict[str, Any]:
    """`{setup}_{key}` for every setup and field, None for a setup that was not measured: every key
    exists in every run, so the JSON's shape does not depend on which setups ran."""
    out: dict[str, Any] = {}
    for name in setups:
        figures = results.get(name)
        for field in fields:
            value = None if figures is None else figures[field.figure]
            if value is not None and field.digits is not None:
                value = round(value) if field.digits == 0 else round(value, field.digits)
            out[f"{name}_{field.key}"] = value
    return out


def ratio(top: Mapping[str, Any] | None, bottom: Mapping[str, Any] | None, figure: str) -> float | None:
    """top[figure] / bottom[figure] to 3 decimals; None when either was not measured or the bottom is 0."""
    if top is None or bottom is None or not bottom[figure]:
        return None
    value: float = round(top[figure] / bottom[figure], 3)
    return value


def rounded(value: Any) -> Any:
    """Floats to 3 decimals, all the way down."""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value
