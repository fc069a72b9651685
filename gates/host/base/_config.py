"""How the host runs: one frozen object with named defaults. Only the command line reads the environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from broker import CurveClient

__all__ = ["DEFAULT_TICK", "HostConfig", "HostLimits"]

DEFAULT_TICK: Final = 0.25
"""How often deadlines (approval windows, cancelled calls, P7) are checked, in real seconds."""


@dataclass(frozen=True, slots=True)
class HostLimits:
    """The host's bounds (B7): no plugin makes it keep or do more than these. Each refusal says which."""

    max_tools_per_plugin: int = 256
    """Tools one plugin may have registered at once (the real host's plugins have a few dozen)."""
    max_description: int = 4096
    """Characters of a tool's description: what the assistant reads, so a paragraph, not a manual."""
    max_schema_bytes: int = 64 * 1024
    """Bytes of a tool's inputSchema, as JSON."""
    max_pending_approvals: int = 16
    """Approvals one plugin may have waiting for the player at once."""
    max_capability_text: int = 64
    """Characters of an approval request's capability kept (longer ones are no capability id anyway)."""
    audit_max_bytes: int = 16 * 1024 * 1024
    """The audit log's size before it is rotated to audit.jsonl.1."""
    audit_keep: int = 3
    """Rotated audit files kept (audit.jsonl.1 to .3)."""
    audit_lines_per_minute: int = 600
    """Audit lines one plugin may cause a minute; the rest are counted and summarised in one line."""


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
    simulator_extensions: bool = False
    """Pass on what this simulator adds to what the real host shows the assistant (F3): a tool's
    outputSchema and a result's structuredContent (P5), a plugin's string result as plain text,
    and progress lines as notifications/progress. Off, as the real host: a plugin's outputSchema
    is dropped when it registers (the real host ignores the field), results are text alone, and
    progress goes to the job log only. On for MCP conformance runs and tests of the extensions."""
    limits: HostLimits = field(default_factory=HostLimits)
    bus_curve: CurveClient | None = None
    """The CURVE pair to join the bus with (S4), and the broker's public key that the runtime file
    then names; None: a bus without CURVE."""
