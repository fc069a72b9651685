"""`xivmcp check PLUGIN` (K1) against the samples and the tests' own plugins, as real processes.

Each test runs one check (a few seconds: a private broker, game, host and the plugin) and reads
what a plugin author or a CI job reads: the text report, the JSON report, the JUnit XML, the
exit code.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import msgspec
import pytest

from gates.checking import CheckReport, Rule, Severity, to_json, to_text
from gates.contract import REAL_HOST_READ

from ._running import run_check_cli

pytestmark = pytest.mark.timeout(300)

CARELESS_FAULTS = {
    ("careless_buy_potions", Rule.UNDECLARED_EFFECT),
    ("careless_sell_junk", Rule.CHANGED_ON_ERROR),
    ("careless_grind", Rule.IGNORES_CANCEL),
}
"""The faults planted in plugins_sample/careless.py (its docstring lists them)."""


def _report(lines: list[str]) -> CheckReport:
    return msgspec.json.decode(lines[-1], type=CheckReport)


def test_check_finds_each_planted_fault_of_the_careless_sample_and_nothing_else(tmp_path: Path) -> None:
    # SPEC: K1
    junit = tmp_path / "careless.xml"
    # A quick limit above the default: a loaded CI machine must not make a quick tool look slow.
    run = run_check_cli(
        tmp_path, "-m", "plugins_sample.careless", "--json", "--junit", str(junit), "--quick-limit", "2", last="{"
    )
    assert run.code == 1, run.stderr
    report = _report(run.lines)
    assert report.plugin == "Careless"
    assert {(f.tool, f.rule) for f in report.errors} == CARELESS_FAULTS
    assert len(report.errors) == 3
    # The only warnings: descriptions that never say what the tools return (true of all three).
    assert {(f.tool, f.rule) for f in report.warnings} == {
        (tool, Rule.DESCRIPTION_WITHOUT_RESULT) for tool, _ in CARELESS_FAULTS
    }
    by_rule = {f.rule: f for f in report.errors}
    suspended = by_rule[Rule.UNDECLARED_EFFECT]
    assert suspended.message.startswith("XIV MCP would suspend Careless: careless_buy_potions: ")
    assert "gil spent" in suspended.message and "(spend_gil)" in suspended.message
    assert suspended.arguments is not None and suspended.spec == "T2, W4"
    assert "yet changed the game" in by_rule[Rule.CHANGED_ON_ERROR].message
    assert "does not stop within two minutes of a Cancel" in by_rule[Rule.IGNORES_CANCEL].message
    grind = next(t for t in report.tools if t.name == "careless_grind")
    assert grind.long_running and "cancel" in grind.checks

    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "3"
    failing = {
        (case.get("classname"), case.get("name")) for case in suite.iter("testcase") if case.find("failure") is not None
    }
    assert failing == {
        ("Careless.careless_buy_potions", "valid_arguments"),
        ("Careless.careless_sell_junk", "valid_arguments"),
        ("Careless.careless_grind", "cancel"),
    }
    assert int(suite.get("tests") or 0) == sum(len(t.checks) for t in report.tools)

    text = to_text(report).splitlines()
    assert text[0] == "xivmcp check plugins_sample.careless (plugin Careless)"
    # whose verdicts these are, so a CI log says when to check again (issue 28)
    assert text[1] == f"verdicts of {REAL_HOST_READ.line()}" and "XIV MCP 0.3.0.0 (API 2; " in text[1]
    properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert properties["xivmcp.realHost.version"] == REAL_HOST_READ.version
    assert properties["xivmcp.realHost.commit.XivMcp/Api/PluginApi.cs"] == "9de90097"
    assert msgspec.json.decode(to_json(report))["real_host"]["files"][0] == {
        "path": "XivMcp/XivMcp.csproj",
        "commit": REAL_HOST_READ.files[0].commit,
    }
    assert sum(line.startswith("error   ") for line in text) == 3
    assert text[-1].startswith("FAILED: 3 tools, ") and text[-1].endswith("3 errors, 3 warnings.")


@pytest.mark.parametrize(
    "plugin",
    [
        ("-m", "plugins_sample.myplugin"),
        ("--", sys.executable, "-m", "plugins_sample.raw_gates"),  # a command line, told the bus by $XIVMCP_BUS
    ],
    ids=["myplugin", "raw_gates"],
)  # and plugins_sample.decorated, named alone: test_f3_check_warns_that_xiv_mcp_2_does_not_pass_an_output_schema_on
def test_check_passes_the_good_samples_with_warnings_at_most(tmp_path: Path, plugin: tuple[str, ...]) -> None:
    # SPEC: K1
    run = run_check_cli(tmp_path, *plugin, last="passed: ")
    assert run.code == 0, run.lines
    assert not [line for line in run.lines if line.startswith("error ")]
    assert run.lines[-1].startswith("passed: ") and " 0 errors, " in run.lines[-1]
    if plugin[0] == "--":
        assert any(line.startswith("note    Definitions XIV MCP refused are told") for line in run.lines)


def test_f3_check_warns_that_xiv_mcp_2_does_not_pass_an_output_schema_on(tmp_path: Path) -> None:
    """Decorated's tools return Structs and TypedDicts, so the kit declares an outputSchema for each:
    the real host drops it, and the assistant reads the result as JSON text. A warning, not an
    error (the host takes the tool), the same in the text, the JSON and the JUnit XML."""
    # SPEC: K1, P5
    junit = tmp_path / "decorated.xml"
    run = run_check_cli(tmp_path, "plugins_sample.decorated", "--json", "--junit", str(junit), last="{")  # named alone
    assert run.code == 0, run.stderr
    report = _report(run.lines)
    warned = [f for f in report.findings if f.rule is Rule.OUTPUT_SCHEMA_NOT_PASSED]
    assert (
        {f.tool for f in warned}
        == {t.name for t in report.tools}
        == {
            "decorated_status",
            "decorated_set_flag",
            "decorated_find_spots",
            "decorated_farm",
            "decorated_restock",
        }
    )
    assert all(f.severity is Severity.WARNING and f.check == "definition" and f.spec == "F3, P5" for f in warned)
    assert "XIV MCP 2 does not pass outputSchema on: the assistant sees your result as JSON text" in warned[0].message

    text = [line for line in to_text(report).splitlines() if "output_schema_not_passed" in line]
    assert len(text) == 5 and text[0].startswith("warning decorated_status: output_schema_not_passed [F3, P5]: ")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    properties = [p.get("name") for p in suite.iter("property")]
    assert sum(1 for name in properties if name and name.endswith(".output_schema_not_passed")) == 5


def test_check_finds_refusals_blocking_exceptions_growth_and_long_progress(tmp_path: Path) -> None:
    # SPEC: K1
    run = run_check_cli(tmp_path, "tests/check/plugins/sloppy_plugin.py", "--quick-limit", "0.3", "--json", last="{")
    assert run.code == 1, run.stderr
    report = _report(run.lines)
    # A quick limit that short: on a loaded machine another tool may be slow once too. Only the
    # planted one must be, so only its slow-tool warning counts.
    found = {
        (f.severity, f.tool, f.rule)
        for f in report.findings
        if f.rule is not Rule.SLOW_QUICK_TOOL or f.tool == "sloppy_slow_status"
    }
    assert found == {
        (Severity.ERROR, "get_position", Rule.HOST_TOOL_NAME),
        (Severity.ERROR, "sloppy_fly", Rule.REFUSED_DEFINITION),
        (Severity.ERROR, "sloppy_lookup", Rule.EXCEPTION_REACHED_ASSISTANT),  # with valid arguments
        (Severity.WARNING, "sloppy_lookup", Rule.EXCEPTION_REACHED_ASSISTANT),  # refusing invalid ones
        (Severity.WARNING, "sloppy_slow_status", Rule.SLOW_QUICK_TOOL),
        (Severity.WARNING, "sloppy_count", Rule.ACCEPTED_INVALID_ARGUMENTS),
        (Severity.WARNING, "sloppy_chatter", Rule.PROGRESS_CUT),
        (Severity.ERROR, "sloppy_woken", Rule.REGISTERED_AFTER_START),
    }
    messages = {f.rule: f.message for f in report.errors}
    assert "Unknown capability 'fly'" in messages[Rule.REFUSED_DEFINITION]
    assert "'get_position' is an XIV MCP tool" in messages[Rule.HOST_TOOL_NAME]
    assert "the player would be asked again" in messages[Rule.REGISTERED_AFTER_START]
    assert "sloppy_woken" in {t.name for t in report.tools}  # checked too, once consented to


def test_check_exits_2_with_one_line_when_the_plugin_ends_at_start(tmp_path: Path) -> None:
    # SPEC: K1
    run = run_check_cli(tmp_path, "tests/check/plugins/crashing_plugin.py", last=None)
    assert run.code == 2
    assert run.lines == []
    assert run.stderr.strip() == (
        "xivmcp check: tests/check/plugins/crashing_plugin.py ended (exit 1) before registering a tool: "
        "crashing_plugin: its settings file is missing; nothing was registered."
    )


def test_b8_check_runs_the_plugin_with_a_data_dir_that_holds_no_player_key(tmp_path: Path) -> None:
    run = run_check_cli(tmp_path, "tests/check/plugins/peeking_plugin.py", last=None)
    assert run.code == 2
    assert "peeking_plugin: the data dir holds [" in run.stderr
    assert "player.key" not in run.stderr and "token" not in run.stderr


def test_s3_check_shows_a_plugins_control_characters_escaped_and_its_junit_parses(tmp_path: Path) -> None:
    # SPEC: S3, K1 - the tool names and the errors are the plugin's: any text, any XML reader
    junit = tmp_path / "garbled.xml"
    run = run_check_cli(tmp_path, "tests/check/plugins/garbled_plugin.py", "--junit", str(junit), last="FAILED")
    assert run.code == 1, run.stderr
    text = "\n".join(run.lines)
    assert not any(c in text for c in "\x1b\x00\x0c\r\x9b"), text
    assert "garbled\\x1b[2K\\x00\\x0c" in text
    suite = ET.parse(junit).getroot().find("testsuite")  # valid XML whatever the names
    assert suite is not None
    names = {case.get("classname") for case in suite.iter("testcase")}
    assert "Garbled.garbled\\x1b[2K\\x00\\x0c" in names and "Garbled.garbled_look" in names
