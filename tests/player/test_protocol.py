"""The player's protocol as types: each command names its reply, and the replies keep their wire shape."""

from __future__ import annotations

from typing import Any, get_args

import msgspec
import pytest

from gates.contract import Answer, InvalidDocumentError
from gates.host import AuditEntry
from gates.player import (
    AnswerApproval,
    ApprovalEvent,
    AuditLine,
    CallReply,
    Command,
    ControlJob,
    KeepDisabled,
    PlayerCommand,
    PluginDecision,
    ProgressEvent,
    ShowJob,
    decode_call_event,
    decode_player_command,
)


def test_every_player_command_names_a_struct_as_its_reply() -> None:
    commands: tuple[type[Command[Any]], ...] = get_args(PlayerCommand)
    assert len(commands) == 27  # 5/6: ShowPlugin(s), ClearSession and OpenConsole, for the web console
    for command in commands:
        [base] = [b for b in command.__orig_bases__ if get_args(b)]  # type: ignore[attr-defined]
        assert command.reply_type is get_args(base)[0], command
        assert issubclass(command.reply_type, msgspec.Struct), command


def test_a_command_that_names_no_reply_is_refused_where_it_is_declared() -> None:
    with pytest.raises(TypeError, match=r"Fly must name its reply: class Fly\(Command\[TheReply\], tag=...\)"):

        class Fly(Command, tag="fly"):  # type: ignore[type-arg]
            pass


def test_a_command_names_the_cli_command_that_sends_it() -> None:
    assert KeepDisabled(plugin="P").cli_name() == "keep-disabled"
    assert AnswerApproval(approval_id="a1", answer=Answer.DECLINE).cli_name() == "decline"
    assert AnswerApproval(approval_id="a1", answer=Answer.APPROVE_SESSION).cli_name() == "approve"
    assert ControlJob(id="j1", action="pause").cli_name() == "job pause"


def test_commands_travel_tagged_in_camel_case_and_refuse_unknown_fields() -> None:
    assert msgspec.json.encode(ShowJob(id="j1", log_lines=5)) == b'{"cmd":"job","id":"j1","logLines":5}'
    assert decode_player_command('{"cmd": "job", "id": "j1", "logLines": 5}') == ShowJob(id="j1", log_lines=5)
    with pytest.raises(InvalidDocumentError, match="player command is not valid"):
        decode_player_command('{"cmd": "keep_disabled", "plugin": "P", "owner": "Q"}')


def test_a_call_reply_is_a_result_or_an_error_on_the_wire() -> None:
    assert msgspec.json.encode(CallReply(result={"x": 1})) == b'{"result":{"x":1}}'
    assert msgspec.json.encode(CallReply(is_error=True, error="No.")) == b'{"isError":true,"error":"No."}'
    assert msgspec.convert({"ok": True, "isError": True, "error": "No."}, CallReply).error == "No."


def test_the_audit_file_leaves_defaults_out_and_the_players_line_sends_every_field() -> None:
    entry = AuditEntry(time="2025-01-02T03:04:05.678Z", kind="consent", plugin="P")
    assert msgspec.json.encode(entry) == b'{"time":"2025-01-02T03:04:05.678Z","kind":"consent","plugin":"P"}'
    line = msgspec.to_builtins(entry.line())
    assert line == {
        "time": "2025-01-02T03:04:05.678Z",
        "kind": "consent",
        "plugin": "P",
        "tool": None,
        "flagged": False,
        "details": {},
    }
    assert isinstance(entry, AuditLine)


def test_a_plugin_decision_keeps_the_order_of_its_fields() -> None:
    decision = PluginDecision(plugin="P", state="enabled", changed=True, message="P is enabled.")  # type: ignore[arg-type]
    assert list(msgspec.to_builtins(decision)) == ["plugin", "state", "changed", "message"]


def test_call_events_are_tagged_by_kind_and_an_unknown_one_is_skipped() -> None:
    approval = ApprovalEvent(approval_id="a1", tool="t", plugin="P", summary="Buy")
    assert msgspec.json.encode(approval) == (
        b'{"kind":"approval","approvalId":"a1","tool":"t","plugin":"P","summary":"Buy"}'
    )
    assert decode_call_event(msgspec.json.encode(approval)) == approval
    assert decode_call_event('{"kind": "progress", "text": "halfway"}') == ProgressEvent(text="halfway")
    assert decode_call_event('{"kind": "confetti"}') is None
    assert decode_call_event("not json") is None
