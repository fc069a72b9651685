"""The contract module: gate names and signatures, codes, the catalog, documents, decoders and replies."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging

import pytest

from gates.contract import (
    API_VERSION,
    CAPABILITIES,
    CAPABILITY_IDS,
    GATE_SIGNATURES,
    HOST_NAME,
    MESSAGE_SIGNATURES,
    PLUGIN_GATE_SIGNATURES,
    ApprovalReply,
    ApprovalState,
    CapabilityMode,
    DefinitionError,
    DependencyEntry,
    DependencyState,
    Gate,
    HostReplyError,
    InstallEntry,
    InvalidDocumentError,
    InvokeError,
    InvokePending,
    InvokeResult,
    Message,
    Mode,
    PluginGate,
    PluginState,
    ProofPurpose,
    RegisterReply,
    Risk,
    StatusReply,
    ToolMode,
    canonical_json,
    decode_approval_request,
    decode_host_reply,
    decode_invoke_reply,
    decode_job,
    decode_tool_definition,
    default_mode,
    error_reply,
    find_capability,
    guard_gate,
    guard_gate_async,
    is_mode_allowed,
    list_capabilities,
    ok_reply,
    plugin_gate,
    strictest,
    tagged_mac,
)

# --------------------------------------------------------------------------- names and signatures


def test_g1_api_version_is_2_and_host_gates_are_named_xivmcp_dot_gate() -> None:
    assert API_VERSION == 2
    assert HOST_NAME == "XivMcp"
    expected = {
        "ApiVersion", "IsReady", "ListCapabilities", "RegisterTool", "UnregisterTool", "UnregisterAll",
        "GetStatus", "DeclareDependencies", "CheckPermission", "RequestApproval", "GetApproval",
        "CompleteCall", "FailCall", "ReportProgress", "StartJob", "GetJob", "ListJobs", "PauseJob",
        "ResumeJob", "CancelJob",
    }  # fmt: skip
    assert {g.value for g in Gate} == {f"XivMcp.{name}" for name in expected}
    assert {m.value for m in Message} == {"XivMcp.Ready", "XivMcp.Disposing"}


def test_g1_every_host_gate_has_a_signature_with_string_parameters() -> None:
    assert set(GATE_SIGNATURES) == set(Gate)
    assert GATE_SIGNATURES[Gate.API_VERSION].returns is int
    assert GATE_SIGNATURES[Gate.IS_READY].returns is bool
    register = GATE_SIGNATURES[Gate.REGISTER_TOOL]
    assert register.names == ("owner", "definitionJson")
    assert register.params == (str, str)
    assert register.returns is str
    assert GATE_SIGNATURES[Gate.REQUEST_APPROVAL].names == ("callId", "requestJson")
    for gate, signature in GATE_SIGNATURES.items():
        assert all(p is str for p in signature.params), gate
        assert len(signature.params) == len(signature.names), gate
    assert all(s.params == () and s.returns is type(None) for s in MESSAGE_SIGNATURES.values())


def test_g1_plugin_gates_are_named_internal_name_dot_xivmcp_dot_gate() -> None:
    assert plugin_gate("MyPlugin", "Invoke") == "MyPlugin.XivMcp.Invoke"
    assert plugin_gate("MyPlugin", PluginGate.CANCEL) == "MyPlugin.XivMcp.Cancel"
    assert PLUGIN_GATE_SIGNATURES[PluginGate.INVOKE].names == ("callId", "tool", "argsJson")
    assert PLUGIN_GATE_SIGNATURES[PluginGate.CANCEL].returns is type(None)


@pytest.mark.parametrize(("name", "gate"), [("", "Invoke"), ("My Plugin", "Invoke"), ("MyPlugin", "Register")])
def test_plugin_gate_refuses_bad_names_and_unknown_gates(name: str, gate: str) -> None:
    with pytest.raises(ValueError, match="plugin"):
        plugin_gate(name, gate)


# --------------------------------------------------------------------------- codes and the catalog


def test_codes_are_the_wire_strings() -> None:
    assert [s.value for s in PluginState] == [
        "undecided", "kept_disabled", "enabled", "awaiting_consent", "suspended",
    ]  # fmt: skip
    assert [m.value for m in Mode] == ["allow", "ask", "deny"]
    assert [r.value for r in Risk] == ["low", "medium", "high", "critical"]
    assert {s.value for s in DependencyState} == {
        "ok", "needs_plugin", "plugin_missing", "plugin_not_loaded", "plugin_outdated", "tool_missing",
        "not_enabled",
    }  # fmt: skip
    assert [s.value for s in ApprovalState] == ["pending", "approved", "denied"]


def test_t1_catalog_has_the_real_hosts_capabilities_with_their_risks() -> None:
    risks = {c.id.value: c.risk for c in CAPABILITIES}
    assert risks == {
        "read_game": Risk.LOW,
        "game_ui": Risk.MEDIUM,
        "move_character": Risk.MEDIUM,
        "move_items": Risk.MEDIUM,
        "network": Risk.MEDIUM,
        "combat": Risk.HIGH,
        "spend_gil": Risk.HIGH,
        "spend_currency": Risk.HIGH,
        "trade_items": Risk.HIGH,
        "chat_send": Risk.HIGH,
        "login": Risk.HIGH,
        "edit_settings": Risk.HIGH,
        "discard_items": Risk.CRITICAL,
    }
    assert CAPABILITY_IDS[0] == "read_game"
    read_game = find_capability("read_game")
    assert read_game is not None and "added" in read_game.description.lower()
    assert find_capability("teleport") is None


def test_t1_only_reading_is_allowed_by_default_and_critical_can_never_be_allowed() -> None:
    assert default_mode(Risk.LOW) is Mode.ALLOW
    assert {default_mode(r) for r in (Risk.MEDIUM, Risk.HIGH, Risk.CRITICAL)} == {Mode.ASK}
    assert not is_mode_allowed(Risk.CRITICAL, Mode.ALLOW)
    assert is_mode_allowed(Risk.CRITICAL, Mode.ASK) and is_mode_allowed(Risk.HIGH, Mode.ALLOW)


def test_list_capabilities_reply_lists_id_risk_title_description_default() -> None:
    reply = json.loads(ok_reply(list_capabilities()))
    assert reply["ok"] is True
    first = reply["capabilities"][0]
    assert set(first) == {"id", "risk", "title", "description", "default"}
    assert first["id"] == "read_game" and first["default"] == "allow"
    defaults = {c["id"]: c["default"] for c in reply["capabilities"]}
    assert defaults["discard_items"] == "ask" and defaults["game_ui"] == "ask"


def test_strictest_mode_wins() -> None:
    assert strictest([Mode.ALLOW, Mode.DENY, Mode.ASK]) is Mode.DENY
    assert strictest([Mode.ALLOW, Mode.ASK]) is Mode.ASK
    assert strictest([]) is Mode.ALLOW


# --------------------------------------------------------------------------- replies


def test_g2_ok_reply_puts_ok_true_first_and_uses_wire_field_names() -> None:
    reply = ok_reply(
        RegisterReply(
            name="myplugin_buy",
            enabled=False,
            awaiting_consent=False,
            state=PluginState.UNDECIDED,
            capabilities=[CapabilityMode(id="read_game", mode=Mode.DENY)],
        )
    )
    assert reply.startswith('{"ok":true,')
    assert json.loads(reply) == {
        "ok": True,
        "name": "myplugin_buy",
        "enabled": False,
        "awaitingConsent": False,
        "state": "undecided",
        "capabilities": [{"id": "read_game", "mode": "deny"}],
    }
    assert json.loads(ok_reply(ApprovalReply(approval_id="a1", state=ApprovalState.PENDING))) == {
        "ok": True,
        "approvalId": "a1",
        "state": "pending",
    }


def test_g2_ok_reply_without_payload_and_error_reply() -> None:
    assert json.loads(ok_reply()) == {"ok": True}
    assert json.loads(error_reply('No approval "a9".')) == {"ok": False, "error": 'No approval "a9".'}


def test_g5_status_reply_keeps_a_null_suspend_reason_and_every_field() -> None:
    status = StatusReply(
        state=PluginState.ENABLED,
        can_run=True,
        suspend_reason=None,
        tools=[ToolMode(name="myplugin_buy", mode=Mode.ASK, own=False)],
        capabilities=[CapabilityMode(id="spend_gil", mode=Mode.ASK)],
        dependencies=[],
    )
    assert json.loads(ok_reply(status)) == {
        "ok": True,
        "state": "enabled",
        "canRun": True,
        "suspendReason": None,
        "tools": [{"name": "myplugin_buy", "mode": "ask", "own": False}],
        "capabilities": [{"id": "spend_gil", "mode": "ask"}],
        "dependencies": [],
    }


def test_g6_dependency_entry_has_a_null_plugin_and_omits_without_only_when_absent() -> None:
    entry = DependencyEntry(
        tool="navigate_to",
        plugin=None,
        state=DependencyState.OK,
        message="Ready.",
        install=[
            InstallEntry(
                plugin="vnavmesh", name="vnavmesh", repo="official", needed=False, installed=False,
                outdated=False, reason="Walks.", without="Flags.",
            ),
            InstallEntry(
                plugin="X", name="X", repo="official", needed=True, installed=False, outdated=False, reason="r"
            ),
        ],
    )  # fmt: skip
    data = json.loads(ok_reply(entry))
    assert data["plugin"] is None
    assert data["install"][0]["without"] == "Flags."
    assert "without" not in data["install"][1]


def test_g2_guard_gate_turns_a_refusal_into_its_message() -> None:
    @guard_gate
    def register(owner: str, definition: str) -> str:
        raise DefinitionError("A tool can't be both readOnly and destructive.")

    assert json.loads(register("MyPlugin", "{}")) == {
        "ok": False,
        "error": "A tool can't be both readOnly and destructive.",
    }


def test_g2_guard_gate_turns_any_other_exception_into_type_name_and_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @guard_gate
    def broken(owner: str) -> str:
        raise KeyError("tools")

    with caplog.at_level(logging.ERROR, logger="gates"):
        reply = json.loads(broken("MyPlugin"))
    assert reply == {"ok": False, "error": "KeyError: 'tools'"}
    assert "failed unexpectedly" in caplog.text


@pytest.mark.asyncio
async def test_g2_guard_gate_async_never_raises_into_the_caller() -> None:
    @guard_gate_async
    async def status(owner: str) -> str:
        raise ValueError("boom")

    @guard_gate_async
    async def fine(owner: str) -> str:
        return ok_reply()

    assert json.loads(await status("x")) == {"ok": False, "error": "ValueError: boom"}
    assert json.loads(await fine("x")) == {"ok": True}


# --------------------------------------------------------------------------- decoders


def test_g4_tool_definition_decoder_reads_wire_names_and_defaults() -> None:
    definition = decode_tool_definition(
        '{"name": "myplugin_restock", "description": "Buys.", "inputSchema": {"type": "object", '
        '"properties": {}}, "readOnly": false, "destructive": true, "capabilities": ["spend_gil"], "extra": 1}'
    )
    assert definition.input_schema == {"type": "object", "properties": {}}
    assert definition.destructive and not definition.read_only
    assert definition.capabilities == ["spend_gil"]
    bare = decode_tool_definition('{"name": "myplugin_ping", "description": "Pings.", "readOnly": true}')
    assert bare.input_schema is None and bare.capabilities == []


def test_g4_decoder_error_says_what_was_wrong_where_and_what_to_send() -> None:
    with pytest.raises(InvalidDocumentError) as caught:
        decode_tool_definition('{"name": 5, "description": "x"}')
    message = str(caught.value)
    assert message.startswith("The tool definition is not valid: Expected `str`, got `int` - at `$.name`. Send ")
    assert '"name": "myplugin_do_thing"' in message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("{", "is not valid JSON"),
        ("[]", "Expected `object`, got `array`"),
        ('{"description": "x"}', "missing required field `name`"),
        ('{"name": "a_b_c", "description": "x", "readOnly": "yes"}', "at `$.readOnly`"),
        ('{"name": "a_b_c", "description": "x", "capabilities": "game_ui"}', "at `$.capabilities`"),
    ],
)
def test_g2_malformed_documents_are_refused_with_a_message(text: str, fragment: str) -> None:
    with pytest.raises(InvalidDocumentError, match=None) as caught:
        decode_tool_definition(text)
    assert fragment in str(caught.value)


def test_g9_approval_request_and_job_documents_decode() -> None:
    request = decode_approval_request('{"capability": "spend_gil", "summary": "Repair for 3,200 gil"}')
    assert (request.capability, request.summary) == ("spend_gil", "Repair for 3,200 gil")
    with pytest.raises(InvalidDocumentError, match="approval request"):
        decode_approval_request('{"capability": "spend_gil"}')
    job = decode_job('{"name": "Farm", "steps": [{"id": "farm", "tool": "myplugin_farm", "args": {"minutes": 90}}]}')
    assert job.steps[0].args == {"minutes": 90} and job.steps[0].note is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"result": {"kills": 3}}', InvokeResult(result={"kills": 3})),
        ('{"result": null}', InvokeResult(result=None)),
        ("", InvokeResult(result=None)),
        (None, InvokeResult(result=None)),
        ('{"error": "Not at a bell."}', InvokeError(error="Not at a bell.")),
        ('{"error": {"code": 1}}', InvokeError(error='{"code":1}')),
        ('{"error": null}', InvokeError(error="Failed.")),
        ('{"pending": true}', InvokePending()),
        ('{"pending": true, "error": "x"}', InvokeError(error="x")),
    ],
)
def test_g7_invoke_reply_is_a_result_an_error_or_pending(text: str | None, expected: object) -> None:
    assert decode_invoke_reply(text, "My Plugin") == expected


@pytest.mark.parametrize("text", ["[1]", '{"pending": false}', '{"ok": true}', "{nope"])
def test_g7_an_invalid_invoke_reply_names_the_plugin_and_the_expected_shapes(text: str) -> None:
    with pytest.raises(InvalidDocumentError, match="My Plugin returned"):
        decode_invoke_reply(text, "My Plugin")


def test_decode_host_reply_returns_the_payload_or_raises_the_hosts_message() -> None:
    reply = decode_host_reply('{"ok": true, "approvalId": "a7", "state": "approved"}', ApprovalReply)
    assert reply == ApprovalReply(approval_id="a7", state=ApprovalState.APPROVED)
    with pytest.raises(HostReplyError, match="No approval 'a9'"):
        decode_host_reply('{"ok": false, "error": "No approval \'a9\'."}', ApprovalReply)
    with pytest.raises(InvalidDocumentError):
        decode_host_reply('{"ok": true, "state": "approved"}', ApprovalReply)


def test_b8_f4_a_mac_for_one_purpose_never_serves_another() -> None:
    """No tag, followed by the NUL that ends it, begins another tag: the host's answer to a challenge
    (which any peer can ask for, with a nonce it picks) is never a player's MAC or a game admin MAC."""
    tags = [purpose.value.encode() + b"\x00" for purpose in ProofPurpose]
    assert [a for a in tags for b in tags if a != b and b.startswith(a)] == []
    assert tagged_mac("k", ProofPurpose.HOST, "n") != tagged_mac("k", ProofPurpose.GAME, "n")
    expected = hmac.new(b"k", b"xivmcp-game-admin\x00n\x00Game.Set\x00{}", hashlib.sha256).hexdigest()
    assert tagged_mac("k", ProofPurpose.GAME_ADMIN, "n", "Game.Set", "{}") == expected


def test_f4_canonical_json_is_one_text_for_one_value_whoever_encoded_it() -> None:
    assert canonical_json(json.loads('{ "value": 5.0, "path" : "gil" }')) == '{"path":"gil","value":5.0}'
    assert canonical_json({"name": "Wuk Lamat\u2019s"}) == '{"name":"Wuk Lamat\\u2019s"}'
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})
