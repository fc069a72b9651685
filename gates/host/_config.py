"""How the host runs: one frozen object with named defaults. Only the command line reads the environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = ["DEFAULT_TICK", "HostConfig"]

DEFAULT_TICK: Final = 0.25
"""How often deadlines (approval windows, cancelled calls, P7) are checked, in real seconds."""


@dataclass(frozen=True, slots=True)
class HostConfig:
    """How to run the host (its MCP front has settings of its own, `gates.mcp.McpSettings`)."""

    bus: str | None = None
    """The broker's endpoint; None: the bus default (`broker.DEFAULT_ENDPOINT`, or $XIVMCP_BUS via the CLI)."""
    data_dir: Path = field(default_factory=lambda: Path(".xivmcp-data"))
    """Where the player's decisions (SQLite), the audit log and the secrets live."""
    auto_enable: bool = False
    """Enable every plugin and allow its capabilities (tests and CI); critical ones stay asked."""
    test_clock: bool = False
    """Use a manual clock that only `advance_clock` moves (tests only)."""
    tick: float = DEFAULT_TICK
    """How often deadlines are checked, in real seconds."""
