"""`xivmcp check` warns when a plugin's Invoke or Cancel answers a process that is not XIV MCP (S1)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from gates.checking import CheckReport, Rule, Severity

from ._running import run_check_cli


def test_s1_check_warns_about_an_invoke_and_a_cancel_any_process_can_call(tmp_path: Path) -> None:
    # SPEC: S1, K1
    run = run_check_cli(tmp_path, "tests/check/plugins/open_gates_plugin.py", "--json", last="{")
    assert run.code == 0, run.stderr  # warnings: the host takes the plugin, the bus lets anyone in
    report = msgspec.json.decode(run.lines[-1], type=CheckReport)
    found = [f for f in report.findings if f.rule is Rule.OPEN_PRIVATE_GATE]
    assert [(f.severity, f.tool, f.spec) for f in found] == [
        (Severity.WARNING, "Open.XivMcp.Invoke", "S1"),
        (Severity.WARNING, "Open.XivMcp.Cancel", "S1"),
    ]
    assert found[0].message == (
        "Open.XivMcp.Invoke answered the check's own process, which is not XIV MCP: any process on the bus "
        "can run Open's tools through it, past the player's modes, approvals and audit log. Provide it with "
        "register_func(handler, callers=('XivMcp',)) (gates.plugin does it for you)."
    )
    assert "or cancel its calls. Provide it with register_action(handler, callers=('XivMcp',))" in found[1].message


def test_s1_check_finds_the_raw_sample_keeps_its_gates_for_xiv_mcp(tmp_path: Path) -> None:
    # SPEC: S1, K1
    run = run_check_cli(tmp_path, "-m", "plugins_sample.raw_gates", "--json", last="{")
    assert run.code == 0, run.stderr
    report = msgspec.json.decode(run.lines[-1], type=CheckReport)
    assert [f for f in report.findings if f.rule is Rule.OPEN_PRIVATE_GATE] == []
