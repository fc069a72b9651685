"""The parts of `xivmcp check` in-process: arguments, definitions, verdicts, renderers, the command line."""

from __future__ import annotations

import argparse
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import msgspec

import gates.checking
from gates.checking import (
    Check,
    CheckReport,
    CheckTarget,
    Finding,
    Rule,
    Severity,
    TargetKind,
    ToolChecked,
    to_json,
    to_junit,
    to_text,
)
from gates.checking._arguments import invalid_arguments, valid_arguments
from gates.checking._call_line import CallLine, EffectLine
from gates.checking._definitions import (
    OfferedDefinition,
    RegistrationRecord,
    judge_definition,
    judge_output_schemas,
    judge_refusals,
)
from gates.checking._session import CallSeen
from gates.checking._verdicts import is_exception_text, judge_call
from gates.host import AuditEntry
from gates.player import CallReply, CallTool
from xivmcp._check_cli import target_of

FLAG_SCHEMA = {
    "type": "object",
    "properties": {
        "x": {"type": "number", "minimum": 1, "maximum": 42, "description": "Map X."},
        "zone": {"type": "string", "description": "Zone name."},
        "open_map": {"type": "boolean"},
    },
    "required": ["x"],
}


def test_valid_arguments_are_the_same_on_every_run_and_name_only_the_schemas_properties() -> None:
    first = valid_arguments(FLAG_SCHEMA, 5)
    assert first == valid_arguments(FLAG_SCHEMA, 5)
    assert 1 <= len(first) <= 5
    for arguments in first:
        assert set(arguments) <= {"x", "zone", "open_map"} and 1 <= arguments["x"] <= 42
    assert valid_arguments({"type": "object", "properties": {}}, 5) == [{}]


def test_invalid_arguments_leave_out_a_required_one_and_break_each_type_and_bound() -> None:
    base = {"x": 21.0, "zone": "Kozama'uka"}
    faults = {bad.why: bad.arguments for bad in invalid_arguments(FLAG_SCHEMA, base)}
    assert faults == {
        "the required 'x' left out": {"zone": "Kozama'uka"},
        "'x' \"not a number\" where number is expected": {**base, "x": "not a number"},
        '\'zone\' {"not": "a string"} where string is expected': {**base, "zone": {"not": "a string"}},
        "'open_map' \"not a boolean\" where boolean is expected": {**base, "open_map": "not a boolean"},
        "'x' 0.5 (below the minimum 1)": {**base, "x": 0.5},
        "'x' 42.5 (above the maximum 42)": {**base, "x": 42.5},
    }


def test_an_exception_text_is_told_from_a_refusal_with_a_colon() -> None:
    for text in ("KeyError: 'word'", "ValueError: could not convert", "msgspec.ValidationError: bad", "OopsError: x"):
        assert is_exception_text(text), text
    for text in ("The game refused: in combat", "Error: the vendor is closed", "Cancelled.", "Careless: no"):
        assert not is_exception_text(text), text


def test_refusals_quote_the_host_and_a_definition_taken_later_is_forgotten() -> None:
    refused = '{"ok": false, "error": "Unknown capability \'fly\'."}'
    records = [
        RegistrationRecord(owner="P", definition='{"name": "get_position"}', reply='{"ok": false, "error": "taken"}'),
        RegistrationRecord(owner="P", definition='{"name": "p_fly"}', reply=refused),
        RegistrationRecord(owner="P", definition='{"name": "p_later"}', reply=refused),
        RegistrationRecord(owner="P", definition='{"name": "p_later"}', reply='{"ok": true, "name": "p_later"}'),
    ]
    found = judge_refusals(records)
    assert [(f.tool, f.rule, f.severity) for f in found] == [
        ("get_position", Rule.HOST_TOOL_NAME, Severity.ERROR),
        ("p_fly", Rule.REFUSED_DEFINITION, Severity.ERROR),
    ]
    assert found[1].message == "XIV MCP refuses the definition of p_fly: Unknown capability 'fly'."


def test_a_definition_that_never_says_what_it_returns_or_describes_a_parameter_is_a_warning() -> None:
    tool = OfferedDefinition(name="p_flag", description="Places the flag.", input_schema=FLAG_SCHEMA)
    found = judge_definition(tool)
    assert [(f.rule, f.severity) for f in found] == [
        (Rule.DESCRIPTION_WITHOUT_RESULT, Severity.WARNING),
        (Rule.PARAMETER_WITHOUT_DESCRIPTION, Severity.WARNING),
    ]
    assert "'open_map'" in found[1].message
    assert judge_definition(OfferedDefinition(name="p_status", description="Returns the status.")) == []


def test_f3_a_description_is_judged_and_quoted_without_the_hosts_suffix() -> None:
    listed = "Places the flag. [Provided by the third-party plugin P.]"  # as search_tools shows it
    [found] = judge_definition(OfferedDefinition(name="p_flag", description=listed))
    assert "('Places the flag.')" in found.message
    described = "Places the flag and returns where. [Provided by the third-party plugin P.]"
    assert judge_definition(OfferedDefinition(name="p_flag", description=described)) == []


def test_f3_an_output_schema_the_plugin_last_sent_for_a_tool_the_host_took_is_a_warning() -> None:
    taken = '{"ok": true, "name": "x"}'
    records = [
        RegistrationRecord(owner="P", definition='{"name": "p_a", "outputSchema": {"type": "object"}}', reply=taken),
        RegistrationRecord(owner="P", definition='{"name": "p_b", "outputSchema": {"type": "object"}}', reply=taken),
        RegistrationRecord(owner="P", definition='{"name": "p_b"}', reply=taken),  # sent again without it
        RegistrationRecord(owner="P", definition='{"name": "p_c"}', reply=taken),
        RegistrationRecord(owner="P", definition='{"name": "p_d", "outputSchema": {}}', reply='{"ok": false}'),
    ]
    found = judge_output_schemas(records, ["p_a", "p_b", "p_c"])
    assert [(f.tool, f.rule, f.severity, f.spec) for f in found] == [
        ("p_a", Rule.OUTPUT_SCHEMA_NOT_PASSED, Severity.WARNING, "F3, P5")
    ]
    assert found[0].message.startswith(
        "p_a declares an outputSchema, but XIV MCP 2 does not pass outputSchema on: the assistant sees your "
        "result as JSON text"
    )


def test_an_undeclared_effect_of_a_long_call_is_flagged_and_a_quick_tool_that_holds_invoke_is_slow() -> None:
    audit = CallLine(
        ok=False,
        error="Cancelled.",
        effects=[EffectLine(effect="spent_gil", detail="9 gil spent.", covered_by=["spend_gil"], undeclared=True)],
        changed_on_error=True,
    )
    seen = CallSeen("p_buy", {"n": 1}, None, 3.5, audit=audit, cancelled=True, ignored_cancel=True)
    found = {f.rule: f for f in judge_call("P", seen, why_invalid=None, quick_limit=1.0)}
    assert set(found) == {Rule.UNDECLARED_EFFECT, Rule.CHANGED_ON_ERROR, Rule.SLOW_QUICK_TOOL}
    assert found[Rule.UNDECLARED_EFFECT].message.startswith("XIV MCP would flag the call in its audit log: p_buy: 9")
    assert "did not answer within the two minutes" in found[Rule.SLOW_QUICK_TOOL].message
    clean = CallSeen("p_buy", {}, CallReply(result={}), 0.1, audit=CallLine(ok=True, effects=[], call_id="c2"))
    assert judge_call("P", clean, why_invalid=None, quick_limit=1.0) == []  # a call that ran and did no wrong


def test_a_call_line_reads_the_details_the_host_writes_and_defaults_what_it_leaves_out() -> None:
    details = {
        "callId": "c1",
        "ok": False,
        "seconds": 0.5,
        "error": "Refused.",
        "effects": [{"effect": "spent_gil", "detail": "9 gil spent.", "coveredBy": ["spend_gil"], "undeclared": True}],
        "changedOnError": True,
        "verdict": "suspended",
        "pending": True,
        "progressCut": 2,
    }
    line = CallLine.of(
        AuditEntry(time="2025-01-02T03:04:05.678Z", kind="call", plugin="P", tool="p_buy", details=details)
    )
    effect = EffectLine(effect="spent_gil", detail="9 gil spent.", covered_by=["spend_gil"], undeclared=True)
    assert line == CallLine(
        call_id="c1", ok=False, error="Refused.", effects=[effect], changed_on_error=True, pending=True, progress_cut=2
    )
    bare = CallLine.of(AuditEntry(time="2025-01-02T03:04:05.678Z", kind="call", details={"ok": True}))
    assert bare == CallLine(ok=True) and bare.effects == [] and not bare.pending


def _report() -> CheckReport:
    return CheckReport(
        target="pkg.mod",
        plugin="P",
        tools=[ToolChecked(name="p_a", checks=[Check.DEFINITION, Check.VALID_ARGUMENTS], calls=2)],
        findings=[
            Finding(
                severity=Severity.ERROR,
                tool="p_a",
                rule=Rule.CHANGED_ON_ERROR,
                check=Check.VALID_ARGUMENTS,
                message="m1",
            ),
            Finding(
                severity=Severity.WARNING, tool="p_a", rule=Rule.PROGRESS_CUT, check=Check.VALID_ARGUMENTS, message="m2"
            ),
            Finding(
                severity=Severity.ERROR, tool="p_x", rule=Rule.REFUSED_DEFINITION, check=Check.DEFINITION, message="m3"
            ),
        ],
        seconds=1.5,
    )


def test_junit_has_a_testcase_per_tool_and_check_and_fails_only_for_errors() -> None:
    suite = ET.fromstring(to_junit(_report())).find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("3", "2")
    cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
    assert set(cases) == {("P.p_a", "definition"), ("P.p_a", "valid_arguments"), ("P.p_x", "definition")}
    calls = cases[("P.p_a", "valid_arguments")]
    failure, out = calls.find("failure"), calls.find("system-out")
    assert failure is not None and failure.get("type") == "changed_on_error" and failure.get("message") == "m1"
    assert out is not None and out.text == "warning progress_cut: m2"
    assert cases[("P.p_a", "definition")].find("failure") is None


def test_the_json_report_decodes_into_the_report_and_the_text_ends_with_the_summary() -> None:
    report = _report()
    assert msgspec.json.decode(to_json(report), type=CheckReport) == report
    assert report.exit_code == 1
    lines = to_text(report).splitlines()
    assert lines[2:5] == [
        "error   p_a: changed_on_error: m1",
        "error   p_x: refused_definition: m3",
        "warning p_a: progress_cut: m2",
    ]
    assert lines[-1] == "FAILED: 1 tool, 2 calls in 1.5 s; 2 errors, 1 warning."


def test_the_command_line_tells_a_module_a_script_and_a_command_apart() -> None:
    def target(*plugin: str, module: str | None = None) -> tuple[CheckTarget, tuple[str, ...]]:
        return target_of(argparse.Namespace(module=module, plugin=list(plugin)))

    assert target("--seconds-per-kill", "0.1", module="pkg.mod") == (
        CheckTarget.module("pkg.mod"),
        ("--seconds-per-kill", "0.1"),
    )
    assert target("pkg.mod") == (CheckTarget.module("pkg.mod"), ())
    assert target("plugin.py", "-v") == (CheckTarget.script("plugin.py"), ("-v",))
    command, _ = target("node", "plugin.js")
    assert command.kind is TargetKind.COMMAND and command.label == "node plugin.js"


def test_all_is_exactly_what_gates_checking_exports() -> None:
    exported = gates.checking.__all__
    public = {
        key
        for key, value in vars(gates.checking).items()
        if not key.startswith("_") and not isinstance(value, types.ModuleType) and key != "annotations"
    }
    assert sorted(exported) == sorted(set(exported)) == sorted(public)
    assert Path(gates.checking.__file__).parent.name == "checking"


def test_a_tool_seen_long_running_has_its_later_calls_cancelled_soon_and_not_called_slow() -> None:
    """Its first call runs the quick limit; the later ones only show how it stops (LONG_RUNNING_WAIT)."""
    import anyio

    from gates.checking._report import CheckReport as Report
    from gates.checking._run import CheckOptions, _CheckRun

    asked: list[bool] = []

    class Session:
        async def call(
            self, plugin: str, tool: str, arguments: dict[str, object], *, long_running: bool = False
        ) -> CallSeen:
            asked.append(long_running)
            audit = CallLine(ok=False, error="Cancelled.", call_id=f"c{len(asked)}", pending=not long_running)
            # a later call is cancelled before its Invoke answered: the audit says nothing of pending
            return CallSeen(tool, arguments, None, 0.3, audit=audit, cancelled=True, known_long_running=long_running)

        async def card(self, plugin: str) -> None:
            return None

    run = _CheckRun(Session(), "Farmer", CheckOptions(examples=3), Report(target="farmer", plugin="Farmer"))  # type: ignore[arg-type]
    schema = {"type": "object", "properties": {"kills": {"type": "integer", "minimum": 1, "maximum": 99}}}
    tool = OfferedDefinition(name="farmer_farm", description="Farms. Returns the kills.", input_schema=schema)
    anyio.run(run.check_tool, tool)
    assert asked[0] is False and asked[1:] and all(asked[1:])
    [checked] = run.report.tools
    assert checked.long_running and Check.CANCEL in checked.checks
    assert [f.rule for f in run.report.findings if f.rule is Rule.SLOW_QUICK_TOOL] == []


def test_the_tools_of_a_plugin_with_more_than_a_page_are_each_checked_once() -> None:
    """search_tools pages by `offset`: the check must ask for each page, not the first again."""
    import anyio

    from gates.checking._session import PAGE, CheckSession

    names = [f"big_t{n}" for n in range(2 * PAGE + 30)]

    async def send(command: CallTool) -> CallReply:
        offset, limit = command.arguments.get("offset", 0), command.arguments["limit"]
        items = [{"name": name, "description": "Does it."} for name in names[offset : offset + limit]]
        return CallReply(result={"total": len(names), "offset": offset, "items": items})

    session = CheckSession.__new__(CheckSession)
    session.send = send  # type: ignore[method-assign,assignment]  # the host's side, as search_tools answers
    found = anyio.run(session.offered, "Big")
    assert [tool.name for tool in found] == names


def test_f4_an_undeclared_effect_another_process_made_is_judged_and_the_finding_says_who() -> None:
    """The real host cannot tell who spent the gil; the check says it, and the verdict stands."""
    spent = EffectLine(effect="spent_gil", detail="640 gil spent.", covered_by=["spend_gil"], undeclared=True)
    spent.by = ["EvilHelper"]
    said = (
        "640 gil spent, by EvilHelper during the call: XIV MCP cannot tell who did it and judges P's call by the whole"
    )
    audit = CallLine(ok=True, effects=[spent], explanation=[said + " difference."])
    seen = CallSeen("p_buy", {}, CallReply(result={}), 0.1, audit=audit)
    [found] = judge_call("P", seen, why_invalid=None, quick_limit=1.0)
    assert found.rule is Rule.UNDECLARED_EFFECT
    assert found.message.endswith(f" {said} difference. In the game, keep other plugins still during such a call.")


def test_s3_the_junit_text_and_json_reports_show_a_plugins_control_characters_escaped() -> None:
    # SPEC: S3 - the names and messages are the plugin's: XML must parse, a terminal must not obey
    name = "p_\x1b[2K\x00\x0c\ud800\ufffe\u202e"
    report = CheckReport(
        target="pkg.mod",
        plugin="P\x07",
        findings=[
            Finding(
                severity=Severity.ERROR,
                tool=name,
                rule=Rule.REFUSED_DEFINITION,
                check=Check.DEFINITION,
                message=f"XIV MCP refused {name}:\r\x9b",
            )
        ],
        notes=["a note\x1b[8m"],
    )
    suite = ET.fromstring(to_junit(report)).find("testsuite")  # parses: no raw NUL, form feed or surrogate
    assert suite is not None
    case = suite.find("testcase")
    assert case is not None and case.get("classname") == "P\\x07.p_\\x1b[2K\\x00\\x0c\\ud800\\ufffe\\u202e"
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == (
        "XIV MCP refused p_\\x1b[2K\\x00\\x0c\\ud800\\ufffe\\u202e:\\r\\x9b"
    )
    text = to_text(report)
    assert text.splitlines()[2].startswith("error   p_\\x1b[2K\\x00\\x0c\\ud800\\ufffe\\u202e: refused_definition")
    assert not any(c in text for c in "\x1b\x00\x0c\ud800\r\x9b\u202e\x07")
    plain = msgspec.structs.replace(report.findings[0], tool="p\x9b\u202e", message="m\x9b")
    encodable = msgspec.structs.replace(report, findings=[plain])  # JSON has no text for a lone surrogate
    assert msgspec.json.decode(to_json(encodable), type=CheckReport) == encodable
    assert not any(c in to_json(encodable) for c in "\x9b\u202e")
