"""The append-only JSONL audit log (rules T2, A4)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gates.host.base._audit import AUDIT_FILENAME, AuditEntry, AuditKind, AuditLog, utc_stamp


class Ticking:
    """A wall clock that moves one second per reading."""

    def __init__(self) -> None:
        self.moment = datetime(2025, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)

    def __call__(self) -> datetime:
        current = self.moment
        self.moment += timedelta(seconds=1)
        return current


@pytest.fixture
def log(tmp_path: Path) -> Iterator[AuditLog]:
    with AuditLog.in_dir(tmp_path, wall_clock=Ticking()) as audit:
        yield audit


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_a4_each_entry_is_one_json_line_with_time_kind_plugin_tool_and_details(tmp_path: Path, log: AuditLog) -> None:
    entry = log.record(AuditKind.CALL, "MyPlugin", "myplugin_buy", details={"decision": "allowed", "outcome": "ok"})
    assert entry.time == "2025-01-02T03:04:05.678Z"
    [line] = lines(tmp_path / AUDIT_FILENAME)
    assert json.loads(line) == {
        "time": "2025-01-02T03:04:05.678Z",
        "kind": "call",
        "plugin": "MyPlugin",
        "tool": "myplugin_buy",
        "details": {"decision": "allowed", "outcome": "ok"},
    }


def test_t2_a_suspension_is_recorded_and_flagged(tmp_path: Path, log: AuditLog) -> None:
    log.record(AuditKind.SUSPENSION, "MyPlugin", "myplugin_buy", flagged=True, details={"reason": "gil changed"})
    [line] = lines(tmp_path / AUDIT_FILENAME)
    assert json.loads(line)["flagged"] is True
    assert log.tail(1)[0].kind == "suspension"


def test_tail_returns_the_last_entries_oldest_first_optionally_for_one_plugin(log: AuditLog) -> None:
    for n in range(10):
        log.record(AuditKind.DECISION, "MyPlugin" if n % 2 else "Other", f"tool_{n}")
    assert [e.tool for e in log.tail(3)] == ["tool_7", "tool_8", "tool_9"]
    assert [e.tool for e in log.tail(2, plugin="Other")] == ["tool_6", "tool_8"]
    assert len(log.tail(100)) == 10
    assert log.tail(0) == []
    assert log.tail(5, plugin="Nobody") == []


def test_tail_reads_across_block_boundaries(log: AuditLog) -> None:
    for n in range(600):  # about 130 KB: more than two read blocks
        log.record(AuditKind.CALL, "MyPlugin", f"tool_{n}", details={"padding": "x" * 150})
    tail = log.tail(550)
    assert [e.tool for e in tail] == [f"tool_{n}" for n in range(50, 600)]
    assert all(e.details == {"padding": "x" * 150} for e in tail)


def test_tail_skips_a_torn_last_line_and_the_next_entry_starts_on_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILENAME
    with AuditLog(path) as first:
        first.record(AuditKind.CALL, "MyPlugin", "tool_a")
    with path.open("ab") as f:
        f.write(b'{"time":"2025-01-02T03:04:05.678Z","kind":"ca')  # the process died mid-line
    with AuditLog(path) as second:
        assert [e.tool for e in second.tail(10)] == ["tool_a"]
        second.record(AuditKind.CALL, "MyPlugin", "tool_b")
        assert [e.tool for e in second.tail(10)] == ["tool_a", "tool_b"]
    assert len(lines(path)) == 3


def test_tail_skips_lines_that_are_not_entries(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILENAME
    path.write_bytes(b'not json\n[1, 2]\n{"kind": "call"}\n\n')
    with AuditLog(path) as log:
        log.record(AuditKind.CALL, "MyPlugin", "tool_a")
        assert [e.tool for e in log.tail(10)] == ["tool_a"]


def test_subscribers_see_each_entry_after_it_is_written(log: AuditLog) -> None:
    seen: list[AuditEntry] = []
    unsubscribe = log.on_record(seen.append)
    log.record(AuditKind.APPROVAL, "MyPlugin")
    unsubscribe()
    log.record(AuditKind.APPROVAL, "MyPlugin")
    assert len(seen) == 1 and seen[0].kind == "approval" and seen[0].tool is None


def test_a_closed_log_refuses_new_entries(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / AUDIT_FILENAME)
    log.close()
    log.close()
    with pytest.raises(ValueError, match="is closed"):
        log.record(AuditKind.CALL, "MyPlugin")


def test_a_missing_file_has_no_tail(tmp_path: Path) -> None:
    with AuditLog(tmp_path / AUDIT_FILENAME) as log:
        (tmp_path / AUDIT_FILENAME).unlink()
        assert log.tail(5) == []


def test_utc_stamp_converts_to_utc_with_a_z() -> None:
    eastern = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC).astimezone(tz=None)
    assert utc_stamp(eastern) == "2025-06-01T12:00:00.000Z"


# --------------------------------------------------------------------------- B7, B8: bounded, owner-only


def test_b7_the_log_rotates_past_its_size_and_keeps_a_few_files(tmp_path: Path) -> None:
    with AuditLog.in_dir(tmp_path, wall_clock=Ticking(), max_bytes=2000, keep=2) as log:
        for n in range(100):
            log.record(AuditKind.CALL, "MyPlugin", "myplugin_buy", details={"n": n})
        files = sorted(p.name for p in tmp_path.iterdir())
        assert files == [AUDIT_FILENAME, f"{AUDIT_FILENAME}.1", f"{AUDIT_FILENAME}.2"]
        assert all(p.stat().st_size <= 2000 for p in tmp_path.iterdir())
        # the newest entries, in order, read across the current and the rotated files
        tail = log.tail(20)
        assert [e.details["n"] for e in tail] == list(range(80, 100))
        kept = {json.loads(line)["details"]["n"] for p in tmp_path.iterdir() for line in lines(p)}
        assert 99 in kept and 0 not in kept  # the oldest went with the file that fell off the end


@pytest.mark.skipif(not hasattr(__import__("os"), "getuid"), reason="POSIX file modes")
def test_b8_the_log_is_owner_only_and_a_wider_one_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILENAME
    path.write_text("")
    path.chmod(0o644)  # as an older version made it
    with AuditLog.in_dir(tmp_path) as log:
        log.record(AuditKind.CALL, "MyPlugin")
    assert path.stat().st_mode & 0o777 == 0o600
    fresh = tmp_path / "fresh"
    with AuditLog.in_dir(fresh) as log:
        log.record(AuditKind.CALL, "MyPlugin")
    assert (fresh / AUDIT_FILENAME).stat().st_mode & 0o777 == 0o600
