"""No plugin can flush the audit log (B7): a budget of lines a minute on the host's clock, summarised
past it; the player's decisions and the suspensions outlive rotation; an unchanged declaration
writes nothing. The clock is a `ManualClock`: nothing here sleeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import broker
from gates.host.base._audit import AUDIT_FILENAME, KEPT_FILENAME, AuditKind, AuditLog
from gates.host.base._clock import ManualClock
from tests._gates import gate_reply

from ._system import inprocess_host, read_audit

DEPENDENCY = {"tools": [{"tool": "navigate_to"}]}


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_b7_a_plugin_past_its_budget_is_summarised_when_its_minute_ends(tmp_path: Path) -> None:
    # SPEC: B7
    clock = ManualClock()
    with AuditLog.in_dir(tmp_path, clock=clock, lines_per_minute=5) as log:
        for _ in range(817):
            log.record(AuditKind.DEPENDENCIES, "MyPlugin", details={"tools": []})
        log.record(AuditKind.DEPENDENCIES, "Other", details={"tools": []})  # another has a budget of its own
        # never budgeted: the player's, the suspensions, the calls (which the assistant makes)
        log.record(AuditKind.SUSPENSION, "MyPlugin", "myplugin_buy", flagged=True)
        log.record(AuditKind.CONSENT, "MyPlugin", details={"tools": ["myplugin_buy"]})
        log.record(AuditKind.APPROVAL, "MyPlugin", "myplugin_buy", details={"answer": "once"}, sync=True)
        log.record(AuditKind.CALL, "MyPlugin", "myplugin_buy", details={"outcome": "ok"})
        clock.advance(59.9)
        log.summarise_due()
        assert [(e.kind, e.plugin) for e in log.tail(100)].count(("dependencies", "MyPlugin")) == 5
        clock.advance(0.1)
        log.summarise_due()
        summary = log.tail(1)[0]
        assert (summary.kind, summary.plugin, summary.details) == (
            "dependencies",
            "MyPlugin",
            {"summary": "MyPlugin: 812 more DeclareDependencies calls in the last minute", "more": 812},
        )
        log.record(AuditKind.DEPENDENCIES, "MyPlugin", details={"tools": []})  # a new minute, a new budget
        assert log.tail(1)[0].details == {"tools": []}
        kinds = [e.kind for e in log.tail(100)]
        assert kinds.count("dependencies") == 8 and {"call", "suspension", "consent", "approval"} <= set(kinds)


def test_b7_the_players_decisions_and_suspensions_outlive_rotation(tmp_path: Path) -> None:
    # SPEC: B7, B8
    with AuditLog.in_dir(tmp_path, max_bytes=2000, keep=1, clock=ManualClock()) as log:
        log.record(AuditKind.CONSENT, "MyPlugin", details={"tools": ["myplugin_buy"]})
        log.record(AuditKind.SETTING, "MyPlugin", details={"target": "spend_gil", "mode": "ask"})
        log.record(AuditKind.SUSPENSION, "MyPlugin", "myplugin_buy", flagged=True, details={"why": "undeclared"})
        log.record(AuditKind.APPROVAL, "MyPlugin", "myplugin_buy", details={"state": "pending"})  # the plugin's ask
        log.record(AuditKind.APPROVAL, "MyPlugin", "myplugin_buy", details={"answer": "once"}, sync=True)
        for n in range(300):  # from many plugins: no budget holds them back
            log.record(AuditKind.CALL, f"Flooder{n}", "flooder_go", details={"n": n})
        rotated_out = {json.loads(line)["details"].get("n") for p in tmp_path.iterdir() for line in lines(p)}
        assert 0 not in rotated_out  # the first calls went with the file that fell off the end
        assert sorted(p.name for p in tmp_path.iterdir()) == [AUDIT_FILENAME, f"{AUDIT_FILENAME}.1", KEPT_FILENAME]
        kept = [json.loads(line)["kind"] for line in lines(tmp_path / KEPT_FILENAME)]
        assert kept == ["consent", "setting", "suspension", "approval"]  # the player's answer, not the ask
        assert (tmp_path / KEPT_FILENAME).stat().st_mode & 0o077 == 0  # owner-only, as the log
        oldest = log.tail(10_000)[:4]
        assert [e.kind for e in oldest] == ["consent", "setting", "suspension", "approval"]


@pytest.mark.asyncio
async def test_b7_an_unchanged_declare_dependencies_writes_nothing(tmp_path: Path) -> None:
    # SPEC: B7
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "TestPeer") as pi:
        for declaration in (DEPENDENCY, DEPENDENCY, DEPENDENCY, {"tools": []}, {"tools": []}):
            assert (await gate_reply(pi, "DeclareDependencies", "TestPeer", json.dumps(declaration)))["ok"] is True
        host.audit.close()  # every line on disk
    declared = [e["details"]["tools"] for e in read_audit(tmp_path) if e["kind"] == "dependencies"]
    assert declared == [["navigate_to"], []]
