"""What a check found: each finding, the checks each tool went through, and the report as a whole.

The report is a msgspec Struct so that `--json` is the report itself, field for field, and a CI
script can decode it with the same types (`msgspec.json.decode(text, type=CheckReport)`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from gates.contract import REAL_HOST_READ, RealHostRead

__all__ = ["Check", "CheckReport", "Finding", "Rule", "Severity", "ToolChecked"]


class Severity(StrEnum):
    """An error is what the real host would refuse, pause or suspend (the check exits 1); a
    warning is what makes the tool worse for the assistant without the host stepping in."""

    ERROR = "error"
    WARNING = "warning"


class Check(StrEnum):
    """The checks a tool goes through; JUnit XML has one testcase per tool and check."""

    DEFINITION = "definition"
    """The definition as the real host judges it, and what the assistant reads of it."""
    VALID_ARGUMENTS = "valid_arguments"
    """Calls with arguments the input schema allows, generated from it."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """Calls with arguments it does not allow: a required one missing, a wrong type, out of range."""
    CANCEL = "cancel"
    """A long-running call cancelled mid-call: does it stop within the two minutes?"""
    REGISTRATION = "registration"
    """Tools registered after the plugin was enabled (the player would be asked again)."""


class Rule(StrEnum):
    """What a finding is about; the contract's rule (docs/rules.md) is in each finding's `spec`."""

    REFUSED_DEFINITION = "refused_definition"
    HOST_TOOL_NAME = "host_tool_name"
    DESCRIPTION_WITHOUT_RESULT = "description_without_result"
    PARAMETER_WITHOUT_DESCRIPTION = "parameter_without_description"
    UNDECLARED_EFFECT = "undeclared_effect"
    CHANGED_ON_ERROR = "changed_on_error"
    EXCEPTION_REACHED_ASSISTANT = "exception_reached_assistant"
    ACCEPTED_INVALID_ARGUMENTS = "accepted_invalid_arguments"
    SLOW_QUICK_TOOL = "slow_quick_tool"
    IGNORES_CANCEL = "ignores_cancel"
    PROGRESS_CUT = "progress_cut"
    REGISTERED_AFTER_START = "registered_after_start"
    OUTPUT_SCHEMA_NOT_PASSED = "output_schema_not_passed"
    OPEN_PRIVATE_GATE = "open_private_gate"


class Finding(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One thing the check found, written for the plugin's author: what was wrong, what to do instead."""

    severity: Severity
    tool: str
    """The tool it is about (for a refused definition, the name it was sent with, or "?")."""
    rule: Rule
    check: Check
    message: str
    spec: str = ""
    """The contract's rule ids (docs/rules.md), e.g. "T2, W4"."""
    arguments: dict[str, Any] | None = None
    """The arguments of the call that showed it, to reproduce it with `xivmcp call`."""


class ToolChecked(msgspec.Struct, kw_only=True):
    """One tool as the check saw it."""

    name: str
    checks: list[Check] = []
    calls: int = 0
    long_running: bool = False
    """Its Invoke answered {"pending": true} at least once."""


class CheckReport(msgspec.Struct, kw_only=True):
    """Everything one `xivmcp check` found about one plugin."""

    target: str
    """The plugin as it was named on the command line."""
    plugin: str
    """Its InternalName on the bus ("" when it never registered)."""
    tools: list[ToolChecked] = []
    findings: list[Finding] = []
    notes: list[str] = []
    """What the check could not look at, and why (for example refusals of a plugin run as a command line)."""
    seconds: float = 0.0
    real_host: RealHostRead = REAL_HOST_READ
    """The real XIV MCP whose verdicts these are: its version and the commits the simulator was
    checked against (`xivmcp --version` lists them), so a CI log says when to check again."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.WARNING]

    @property
    def exit_code(self) -> int:
        """1 when anything would be refused, paused or suspended; 0 with warnings only."""
        return 1 if self.errors else 0
