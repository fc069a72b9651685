"""Findings about tool definitions: what the real host refused, and what the assistant would read.

The host answers a refused definition to the plugin alone, so refusals come from what the
plugin's process sent and was told (`RegistrationRecord`, written down inside it by
`_record_registrations.py`); the definitions the host took come from `search_tools`, as an
assistant reads them. Two warnings are heuristics about those: a description that never says
what the tool gives back, and parameters the assistant must guess. One warning is about what
the plugin sent that the real host does not pass on: an outputSchema (F3).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

import msgspec

from gates.contract import BUILTIN_TOOL_NAMES, quote

from ._report import Check, Finding, Rule, Severity

__all__ = ["OfferedDefinition", "RegistrationRecord", "judge_definition", "judge_output_schemas", "judge_refusals"]

RESULT_WORDS: Final = re.compile(
    r"\b(returns?|lists?|shows?|reports?|gives?|answers?|results?|tells?|says?|echo(es)?|finds?)\b",
    re.IGNORECASE,
)
"""Words by which a description says what a call gives back. A heuristic: one of them in the
description is taken as saying it, whatever else it says."""
PROVIDED_BY: Final = re.compile(r" \[Provided by the third-party plugin [^\]]*\.\]$")
"""The end the host gives every plugin tool's description, as the real host does (F3): not the
author's words, so a finding about the description quotes and judges the author's part alone."""


class OfferedDefinition(msgspec.Struct, rename="camel", kw_only=True):
    """A tool as `search_tools` offers it to the assistant."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = {}


class RegistrationRecord(msgspec.Struct, kw_only=True):
    """One `XivMcp.RegisterTool` call the plugin made: as whom, the definition JSON it sent, the host's reply."""

    owner: str
    definition: str
    reply: str


def judge_definition(tool: OfferedDefinition) -> list[Finding]:
    """Warnings about a definition the host took: what the assistant cannot tell from it."""
    findings: list[Finding] = []
    description = PROVIDED_BY.sub("", tool.description)
    if not RESULT_WORDS.search(description):
        findings.append(
            Finding(
                severity=Severity.WARNING,
                tool=tool.name,
                rule=Rule.DESCRIPTION_WITHOUT_RESULT,
                check=Check.DEFINITION,
                spec="P3",
                message=f"The description of {tool.name} says nothing about what it returns "
                f"({quote(description, 120)}): the assistant reads it to choose the tool and to expect "
                'its answer. Add a sentence on what the result holds ("Returns …").',
            )
        )
    properties = tool.input_schema.get("properties")
    for name, prop in (properties or {}).items() if isinstance(properties, dict) else ():
        if not (isinstance(prop, dict) and str(prop.get("description") or "").strip()):
            findings.append(
                Finding(
                    severity=Severity.WARNING,
                    tool=tool.name,
                    rule=Rule.PARAMETER_WITHOUT_DESCRIPTION,
                    check=Check.DEFINITION,
                    spec="P3",
                    message=f"The parameter '{name}' of {tool.name} has no description, so the assistant "
                    f'guesses what to send. Add a "description" to inputSchema.properties.{name} (with '
                    "gates.plugin.Plugin: document it under Args: in the docstring).",
                )
            )
    return findings


def judge_refusals(records: Iterable[RegistrationRecord]) -> list[Finding]:
    """Errors for each definition the host refused, with the host's own message (G4, T6)."""
    findings: list[Finding] = []
    refused: dict[str, Finding] = {}
    for record in records:
        error = _refusal(record.reply)
        name = _sent_name(record.definition)
        if error is None:
            refused.pop(name, None)  # sent again and taken (a host restart, a fixed definition)
            continue
        if name in BUILTIN_TOOL_NAMES:
            finding = Finding(
                severity=Severity.ERROR,
                tool=name,
                rule=Rule.HOST_TOOL_NAME,
                check=Check.DEFINITION,
                spec="T6",
                message=f"{name} is the name of one of XIV MCP's own tools, so XIV MCP refuses it: {error} "
                f'For example "myplugin_{name}", with your plugin\'s name.',
            )
        else:
            finding = Finding(
                severity=Severity.ERROR,
                tool=name,
                rule=Rule.REFUSED_DEFINITION,
                check=Check.DEFINITION,
                spec="G4",
                message=f"XIV MCP refuses the definition of {name}: {error}",
            )
        refused[name] = finding
    findings.extend(refused.values())
    return findings


def judge_output_schemas(records: Iterable[RegistrationRecord], taken: Iterable[str]) -> list[Finding]:
    """A warning for each tool of `taken` whose definition, as the plugin last sent it, declares an
    outputSchema: XIV MCP 2 knows no such field and drops it, so the assistant never sees the
    schema nor a structuredContent, only the result as JSON text (F3, P5)."""
    declaring: dict[str, bool] = {}
    for record in records:
        if _refusal(record.reply) is None:
            declaring[_sent_name(record.definition)] = _declares_output_schema(record.definition)
    return [
        Finding(
            severity=Severity.WARNING,
            tool=name,
            rule=Rule.OUTPUT_SCHEMA_NOT_PASSED,
            check=Check.DEFINITION,
            spec="F3, P5",
            message=f"{name} declares an outputSchema, but XIV MCP 2 does not pass outputSchema on: the "
            "assistant sees your result as JSON text, with no structuredContent. Say in the description what "
            "the result holds. (gates.plugin advertises one for a return type that is a Struct, a TypedDict or a "
            "dataclass; this simulator passes it on only with `xivmcp up --simulator-extensions`.)",
        )
        for name in taken
        if declaring.get(name)
    ]


def _declares_output_schema(definition: str) -> bool:
    try:
        decoded = msgspec.json.decode(definition)
    except msgspec.DecodeError:
        return False
    return isinstance(decoded, dict) and decoded.get("outputSchema") is not None


def _refusal(reply: str) -> str | None:
    """The host's error in a RegisterTool reply, or None when it took the definition."""
    try:
        decoded = msgspec.json.decode(reply)
    except msgspec.DecodeError:
        return f"its reply was not JSON ({quote(reply, 120)})."
    if isinstance(decoded, dict) and decoded.get("ok") is False:
        return str(decoded.get("error") or "refused, without a message.")
    return None


def _sent_name(definition: str) -> str:
    """The name a definition was sent with ("?" when it has none the check can read)."""
    try:
        decoded = msgspec.json.decode(definition)
    except msgspec.DecodeError:
        return "?"
    name = decoded.get("name") if isinstance(decoded, dict) else None
    return name if isinstance(name, str) and name else "?"
