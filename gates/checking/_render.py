"""A check's report as text for people, as JSON for scripts, and as JUnit XML for CI systems.

The text is one line per finding, then a summary. The JSON is the `CheckReport` Struct itself.
The JUnit XML has a testsuite for the plugin and a testcase per tool and check (``classname`` the
tool, ``name`` the check): each error is a ``<failure>``; warnings are the testcase's
``<properties>`` and ``<system-out>``, since a warning must not fail a CI build.

Names, messages and arguments come from the plugin under check: every form shows their control
characters escaped (`gates.contract.escaped`, S3), so the text cannot move a terminal's cursor and
the XML parses whatever the plugin named its tools.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

import msgspec

from gates.contract import escaped, escaped_json

from ._report import Check, CheckReport, Finding, Severity

__all__ = ["to_json", "to_junit", "to_text"]


def to_text(report: CheckReport, *, verbose: bool = False) -> str:
    """One line per finding (`verbose`: also the arguments that showed it), then the summary."""
    lines = [
        f"xivmcp check {report.target} (plugin {report.plugin or '?'})",
        f"verdicts of {report.real_host.line()}",
    ]
    for finding in _in_order(report.findings):
        where = f" [{finding.spec}]" if finding.spec else ""
        lines.append(f"{finding.severity.value:<7} {finding.tool}: {finding.rule.value}{where}: {finding.message}")
        if verbose and finding.arguments is not None:
            lines.append(f"        arguments: {msgspec.json.encode(finding.arguments).decode()}")
    lines += [f"note    {note}" for note in report.notes]
    if verbose:
        for tool in report.tools:
            kind = "long-running" if tool.long_running else "quick"
            checks = ", ".join(check.value for check in tool.checks)
            lines.append(f"tool    {tool.name}: {kind}, {tool.calls} calls; checked: {checks}")
    calls = sum(tool.calls for tool in report.tools)
    verdict = "FAILED" if report.errors else "passed"
    lines.append(
        f"{verdict}: {_count(len(report.tools), 'tool')}, {_count(calls, 'call')} in {report.seconds:g} s; "
        f"{_count(len(report.errors), 'error')}, {_count(len(report.warnings), 'warning')}."
    )
    return "\n".join(escaped(line) for line in lines) + "\n"


def to_json(report: CheckReport) -> str:
    """The report as JSON: `msgspec.json.decode(text, type=CheckReport)` gives it back."""
    return escaped_json(msgspec.json.encode(report).decode()) + "\n"


def to_junit(report: CheckReport) -> str:
    """The report as JUnit XML: a testcase per tool and check, a failure for each error."""
    cases: list[tuple[str, Check, list[Finding]]] = []
    for tool in report.tools:
        for check in tool.checks:
            found = [f for f in report.findings if f.tool == tool.name and f.check is check]
            cases.append((tool.name, check, found))
    covered = {(name, check) for name, check, _ in cases}
    for finding in report.findings:  # refused definitions and the like: tools the host never held
        if (finding.tool, finding.check) not in covered:
            covered.add((finding.tool, finding.check))
            found = [f for f in report.findings if f.tool == finding.tool and f.check is finding.check]
            cases.append((finding.tool, finding.check, found))
    suite = ET.Element(
        "testsuite",
        name=f"xivmcp check {report.plugin or report.target}",
        tests=str(len(cases)),
        failures=str(sum(1 for _, _, found in cases if _errors(found))),
        errors="0",
        skipped="0",
        time=f"{report.seconds:g}",
    )
    read = report.real_host
    suite_properties = ET.SubElement(suite, "properties")
    for key, value in (
        ("xivmcp.realHost.version", read.version),
        ("xivmcp.realHost.apiVersion", str(read.api_version)),
        ("xivmcp.realHost.repo", read.repo),
        *((f"xivmcp.realHost.commit.{file.path}", file.commit) for file in read.files),
    ):
        ET.SubElement(suite_properties, "property", name=key, value=value)
    for name, check, found in cases:
        case = ET.SubElement(suite, "testcase", classname=f"{report.plugin or report.target}.{name}", name=check.value)
        errors, warnings = _errors(found), [f for f in found if f.severity is Severity.WARNING]
        if errors:
            failure = ET.SubElement(case, "failure", message=errors[0].message, type=errors[0].rule.value)
            failure.text = "\n".join(f"{f.rule.value}: {f.message}" for f in errors)
        if warnings:
            properties = ET.SubElement(case, "properties")
            for number, warning in enumerate(warnings, 1):
                ET.SubElement(
                    properties, "property", name=f"warning.{number}.{warning.rule.value}", value=warning.message
                )
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(f"warning {f.rule.value}: {f.message}" for f in warnings)
    if report.notes:
        ET.SubElement(suite, "system-out").text = "\n".join(report.notes)
    suites = ET.Element("testsuites", name="xivmcp check")
    suites.append(suite)
    for element in suites.iter():  # the plugin's words, in any attribute or text (S3)
        element.attrib = {key: escaped(value) for key, value in element.attrib.items()}
        if element.text:
            element.text = "\n".join(escaped(line) for line in element.text.split("\n"))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _in_order(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then warnings, each in the order the check made them (tool by tool)."""
    return sorted(findings, key=lambda f: f.severity is not Severity.ERROR)


def _errors(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.severity is Severity.ERROR]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
