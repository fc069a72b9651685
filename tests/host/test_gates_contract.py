"""Contract tests of every `XivMcp.*` gate, good input and bad, on a host running in this process.

The host and a broker thread run in the test's event loop; the test's own peer calls the gates as
a plugin would. The process boundary is not the point here (see test_samples.py for that).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

import broker
from broker import Broker, BrokerConfig
from gates.contract import MANIFEST_GATE
from gates.host import HostLimits
from gates.host.calls._effect_watch import EffectWatch
from gates.host.policy._side_effects import Verdict
from gates.player import (
    KeepDisabled,
    NotYourHostError,
    PlayerClient,
    PlayerError,
    host_proof,
    new_nonce,
    player_mac,
    read_player_key,
)
from gates.testing import Player

from ._system import WAIT, TestPlugin, gate, inprocess_host, ok, player_of, plugin_peer, read_audit, refused, start_call

pytestmark = pytest.mark.asyncio

# The gates of the seed's table (seeds/001), with their parameters; every one takes strings.
HOST_GATES: dict[str, tuple[str, ...]] = {
    "ApiVersion": (),
    "IsReady": (),
    "ListCapabilities": (),
    "RegisterTool": ("owner", "definitionJson"),
    "UnregisterTool": ("owner", "name"),
    "UnregisterAll": ("owner",),
    "GetStatus": ("owner",),
    "DeclareDependencies": ("owner", "json"),
    "CheckPermission": ("owner", "capability"),
    "RequestApproval": ("callId", "requestJson"),
    "GetApproval": ("approvalId",),
    "CompleteCall": ("callId", "resultJson"),
    "FailCall": ("callId", "message"),
    "ReportProgress": ("callId", "text"),
    "StartJob": ("owner", "jobJson"),
    "GetJob": ("id",),
    "ListJobs": ("owner",),
    "PauseJob": ("id",),
    "ResumeJob": ("id",),
    "CancelJob": ("id",),
}
CATALOG = {
    "read_game": "low",
    "game_ui": "medium",
    "move_character": "medium",
    "move_items": "medium",
    "network": "medium",
    "combat": "high",
    "spend_gil": "high",
    "spend_currency": "high",
    "trade_items": "high",
    "chat_send": "high",
    "login": "high",
    "edit_settings": "high",
    "discard_items": "critical",
}
HUGE = "x" * 500_000
SHOUTY = "\x7f" * 200_000
"""Characters a message would have to escape: quoting them whole would make the reply 5 times larger."""


def tool(name: str, **fields: Any) -> str:
    return json.dumps({"name": name, "description": f"{name} of the test.", **fields}, ensure_ascii=False)


# --------------------------------------------------------------------------- G1: names, signatures, version


async def test_g1_every_host_gate_of_the_table_is_on_the_bus_with_its_signature(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        table = {g.name: g for g in await pi.list_gates()}
        for name, params in HOST_GATES.items():
            info = table.get(f"XivMcp.{name}")
            assert info is not None and info.func is not None, f"XivMcp.{name} is missing"
            assert info.func.provider == "XivMcp"
            assert len(info.func.params) == len(params), name
            assert all(p.rstrip("?") == "string" for p in info.func.params), (name, info.func.params)
            expected = {"ApiVersion": "integer", "IsReady": "boolean"}.get(name, "string")
            assert info.func.returns == expected, name


async def test_g1_api_version_answers_2_and_is_ready_answers_true(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        assert await gate(pi, "ApiVersion") == 2
        assert await gate(pi, "IsReady") is True


async def test_g1_a_plugins_gates_are_named_internal_name_dot_xivmcp_dot_gate(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        await plugin.register("testpeer_do")
        await player_of(plugin.pi, tmp_path).enable("TestPeer")
        await player_of(plugin.pi, tmp_path).mode("TestPeer", "game_ui", "allow")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player_of(plugin.pi, tmp_path), "testpeer_do", {"n": 1})
            call_id, name, args = await plugin.next_invoke()  # arrived on TestPeer.XivMcp.Invoke
            assert (name, json.loads(args)) == ("testpeer_do", {"n": 1})
            await ok(plugin.pi, "CompleteCall", call_id, '{"done": true}')
            assert (await call.outcome()).result == {"done": True}


async def test_g1_list_capabilities_returns_the_catalog(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        reply = await ok(pi, "ListCapabilities")
        capabilities = reply["capabilities"]
        assert {c["id"]: c["risk"] for c in capabilities} == CATALOG
        for c in capabilities:
            assert set(c) == {"id", "risk", "title", "description", "default"}
            assert c["title"] and c["description"]
            assert c["default"] == ("allow" if c["risk"] == "low" else "ask")


# --------------------------------------------------------------------------- G2: never raises, whatever it is sent

BAD_INPUT: list[tuple[str, tuple[object, ...]]] = [
    # wrong JSON, wrong JSON types, missing fields, null arguments, huge strings
    ("RegisterTool", ("TestPeer", "{")),
    ("RegisterTool", ("TestPeer", "[1, 2]")),
    ("RegisterTool", ("TestPeer", '"a string"')),
    ("RegisterTool", ("TestPeer", "")),
    ("RegisterTool", ("TestPeer", None)),
    ("RegisterTool", (None, None)),
    ("RegisterTool", (None, tool("testpeer_a", readOnly=True))),
    ("RegisterTool", ("TestPeer", '{"name": 5, "description": "x", "readOnly": true}')),
    ("RegisterTool", ("TestPeer", '{"name": "testpeer_a", "description": "x", "readOnly": "yes"}')),
    ("RegisterTool", ("TestPeer", '{"name": "testpeer_a", "description": "x", "capabilities": "game_ui"}')),
    ("RegisterTool", ("TestPeer", '{"name": "testpeer_a", "description": "x", "capabilities": [1]}')),
    ("RegisterTool", ("TestPeer", '{"name": "testpeer_a", "description": "x", "capabilities": null}')),
    ("RegisterTool", ("TestPeer", '{"name": "testpeer_a", "capabilities": ["game_ui"]}')),
    ("RegisterTool", ("TestPeer", '{"description": "x", "capabilities": ["game_ui"]}')),
    ("RegisterTool", ("TestPeer", '{"name": "testpeer_a", "description": "x", "inputSchema": [], "readOnly": true}')),
    ("RegisterTool", ("TestPeer", tool(HUGE, readOnly=True))),
    ("RegisterTool", ("TestPeer", tool("testpeer_a", capabilities=[HUGE]))),
    ("RegisterTool", ("TestPeer", tool("testpeer_a", capabilities=[SHOUTY]))),
    ("RegisterTool", (HUGE, tool("testpeer_a", readOnly=True))),
    ("RegisterTool", (SHOUTY, tool("testpeer_a", readOnly=True))),
    ("RegisterTool", ("TestPeer", HUGE)),
    ("UnregisterTool", (None, "testpeer_a")),
    ("UnregisterTool", ("Other", "testpeer_a")),
    ("UnregisterAll", (None,)),
    ("UnregisterAll", (HUGE,)),
    ("GetStatus", (None,)),
    ("GetStatus", ("",)),
    ("GetStatus", (SHOUTY,)),
    ("DeclareDependencies", ("TestPeer", "{")),
    ("DeclareDependencies", ("TestPeer", None)),
    ("DeclareDependencies", ("TestPeer", "{}")),
    ("DeclareDependencies", ("TestPeer", '{"tools": null}')),
    ("DeclareDependencies", ("TestPeer", '{"tools": [{"plugin": "X"}]}')),
    ("DeclareDependencies", ("TestPeer", '{"tools": [{"tool": 7}]}')),
    ("DeclareDependencies", ("TestPeer", json.dumps({"tools": [{"tool": HUGE}]}))),
    ("DeclareDependencies", (None, '{"tools": []}')),
    ("CheckPermission", ("TestPeer", None)),
    ("CheckPermission", ("TestPeer", "fly")),
    ("CheckPermission", ("TestPeer", HUGE)),
    ("CheckPermission", (None, "game_ui")),
    ("RequestApproval", (None, None)),
    ("RequestApproval", ("c999", '{"capability": "spend_gil", "summary": "x"}')),
    ("RequestApproval", (SHOUTY, "{")),
    ("GetApproval", (None,)),
    ("GetApproval", ("a999",)),
    ("GetApproval", (SHOUTY,)),
    ("CompleteCall", (None, None)),
    ("CompleteCall", ("c999", '{"kills": 31}')),
    ("CompleteCall", (SHOUTY, "{}")),
    ("CompleteCall", (HUGE, HUGE)),
    ("FailCall", (None, None)),
    ("FailCall", ("c999", "Bags full.")),
    ("FailCall", (SHOUTY, HUGE)),
    ("ReportProgress", (None, None)),
    ("ReportProgress", ("c999", "12 kills")),
    ("ReportProgress", (SHOUTY, "12 kills")),
    ("StartJob", ("TestPeer", "{")),
    ("StartJob", (None, None)),
    ("GetJob", (None,)),
    ("StartJob", ("TestPeer", '{"name": "x", "steps": [{"tool": "nosuch_tool"}]}')),
    ("StartJob", ("TestPeer", '{"name": "x", "steps": [{"tool": "start_job"}]}')),
    ("StartJob", ("TestPeer", '{"name": "x", "steps": [{"tool": "echo", "args": {"t": "{{later.x}}"}}]}')),
    ("StartJob", ("Other", '{"name": "x", "steps": [{"tool": "echo"}]}')),
    ("PauseJob", ("j1",)),
    ("ResumeJob", ("j1",)),
    ("CancelJob", (HUGE,)),
]


BAD_INPUT_BY_GATE: dict[str, list[tuple[object, ...]]] = {}
for _gate, _args in BAD_INPUT:
    BAD_INPUT_BY_GATE.setdefault(_gate, []).append(_args)


@pytest.mark.parametrize("name", list(BAD_INPUT_BY_GATE))
async def test_g2_host_gate_answers_ok_false_with_a_short_error_whatever_it_is_sent(tmp_path: Path, name: str) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        for args in BAD_INPUT_BY_GATE[name]:
            shown = [a if not isinstance(a, str) or len(a) < 60 else f"<{len(a)} characters>" for a in args]
            with anyio.fail_after(10):
                text = await pi.get_ipc_subscriber(f"XivMcp.{name}").invoke_func(*args)
            assert isinstance(text, str), shown
            assert len(text) < 16 * 1024, f"{shown}: a {len(text)}-byte reply quotes too much of what was sent"
            reply = json.loads(text)
            assert reply["ok"] is False and set(reply) == {"ok", "error"}, (shown, reply)
            assert isinstance(reply["error"], str) and reply["error"].endswith((".", ")")), (shown, reply)
        assert await gate(pi, "IsReady") is True  # and the host is still there


async def test_g2_gates_answer_ok_true_with_their_document_on_good_input(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        register = await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        assert set(register) == {"ok", "name", "enabled", "awaitingConsent", "state", "capabilities"}
        assert (await ok(pi, "UnregisterTool", "TestPeer", "testpeer_look"))["removed"] is True
        assert (await ok(pi, "UnregisterTool", "TestPeer", "testpeer_look"))["removed"] is False
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_act", capabilities=["game_ui"]))
        assert await ok(pi, "UnregisterAll", "TestPeer") == {"ok": True, "removed": 2}
        assert await ok(pi, "UnregisterAll", "TestPeer") == {"ok": True, "removed": 0}
        assert (await ok(pi, "DeclareDependencies", "TestPeer", '{"tools": []}'))["dependencies"] == []
        assert (await ok(pi, "CheckPermission", "TestPeer", "game_ui"))["mode"] == "deny"


async def test_b7_a_definition_over_the_hosts_bounds_is_refused_and_one_within_is_taken(tmp_path: Path) -> None:
    # SPEC: B7, G2 - with the simulator's extensions, which keep an outputSchema (and so bound it)
    extended = inprocess_host(tmp_path, simulator_extensions=True)
    async with extended as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:

        def schema(size: int) -> dict[str, Any]:
            return {"type": "object", "properties": {"text": {"type": "string", "description": "x" * size}}}

        huge = await refused(
            pi, "RegisterTool", "TestPeer", tool("testpeer_long", readOnly=True, inputSchema=schema(len(HUGE)))
        )
        assert huge.startswith("The inputSchema of testpeer_long is") and "at most 65536" in huge
        huge_out = await refused(
            pi, "RegisterTool", "TestPeer", tool("testpeer_out", readOnly=True, outputSchema=schema(len(HUGE)))
        )
        assert huge_out.startswith("The outputSchema of testpeer_out is") and "at most 65536" in huge_out
        wordy = await refused(
            pi, "RegisterTool", "TestPeer", tool("testpeer_wordy", readOnly=True, description="w" * 4097)
        )
        assert "The description of testpeer_wordy is 4097 characters; XIV MCP takes at most 4096" in wordy
        reply = await ok(
            pi, "RegisterTool", "TestPeer", tool("testpeer_long", readOnly=True, inputSchema=schema(60_000))
        )
        assert reply["name"] == "testpeer_long"


async def test_f3_without_the_extensions_an_output_schema_is_dropped_as_the_real_host_ignores_it(
    tmp_path: Path,
) -> None:
    """The real host knows no outputSchema field: a definition with any, huge or not an object
    schema, registers there as without it, so here too (the host's bounds and checks are for the
    simulator's extensions, which keep it)."""
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "TestPeer") as pi:
        huge = {"type": "object", "properties": {"text": {"type": "string", "description": "x" * len(HUGE)}}}
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_big", readOnly=True, outputSchema=huge))
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_list", readOnly=True, outputSchema={"type": "array"}))
        kept = [t.definition.output_schema for t in host.registry.tools_of("TestPeer")]
    assert kept == [None, None]


async def test_b7_a_plugin_registers_at_most_so_many_tools(tmp_path: Path) -> None:
    # SPEC: B7
    limits = HostLimits(max_tools_per_plugin=3)
    async with inprocess_host(tmp_path, limits=limits) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        for n in range(3):
            await ok(pi, "RegisterTool", "TestPeer", tool(f"testpeer_t{n}", readOnly=True))
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_t3", readOnly=True))
        assert error.startswith("TestPeer already has 3 tools registered, the most XIV MCP takes from one plugin")
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_t0", readOnly=True, description="Again."))  # a replace
        await ok(pi, "UnregisterTool", "TestPeer", "testpeer_t1")
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_t3", readOnly=True))


async def test_g2_a_non_string_argument_is_refused_by_the_bus_before_the_host_as_in_the_framework(
    tmp_path: Path,
) -> None:
    # The gates are Func<string, …>: in the game a plugin cannot even call them with an int. On
    # the bus the provider's signature check refuses it, before XIV MCP's handler runs.
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        with pytest.raises(broker.IpcTypeMismatchError):
            await pi.get_ipc_subscriber("XivMcp.RegisterTool").invoke_func("TestPeer", 5)
        with pytest.raises(broker.IpcLengthMismatchError):
            await pi.get_ipc_subscriber("XivMcp.GetStatus").invoke_func()
        assert await gate(pi, "IsReady") is True


# --------------------------------------------------------------------------- G3: owner is the caller


async def test_g3_a_peer_cannot_act_as_another_owner(tmp_path: Path) -> None:
    async with (
        inprocess_host(tmp_path) as (endpoint, host),
        broker.connect(endpoint, "MyPlugin") as victim,
        broker.connect(endpoint, "Spoofer") as pi,
    ):
        await ok(victim, "RegisterTool", "MyPlugin", tool("myplugin_status", readOnly=True))
        for name, args in (
            ("RegisterTool", ("MyPlugin", tool("myplugin_evil", readOnly=True))),
            ("UnregisterTool", ("MyPlugin", "myplugin_status")),
            ("UnregisterAll", ("MyPlugin",)),
            ("GetStatus", ("MyPlugin",)),
            ("DeclareDependencies", ("MyPlugin", '{"tools": []}')),
            ("CheckPermission", ("MyPlugin", "game_ui")),
        ):
            error = await refused(pi, name, *args)
            assert error == "This call comes from Spoofer, not from MyPlugin: a plugin can only act as itself.", error
        assert [t.name for t in host.registry.tools_of("MyPlugin")] == ["myplugin_status"]


async def test_g3_no_plugin_registers_as_xivmcp_itself(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(pi, "RegisterTool", "XivMcp", tool("testpeer_a", readOnly=True))
        assert error == "'XivMcp' can't be an owner."


async def test_g3_f2_owners_are_checked_and_worded_as_the_real_hosts_plugin_owners(tmp_path: Path) -> None:
    # SPEC: G3, F2 - XivMcp.Core/Api/PluginOwners.cs Validate, in its order; names compare case-insensitively
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "TestPeer") as pi:
        definition = tool("testpeer_a", readOnly=True)
        assert await refused(pi, "RegisterTool", " ", definition) == "Pass your plugin's internal name as the owner."
        assert await refused(pi, "RegisterTool", "xivmcp", definition) == "'XivMcp' can't be an owner."
        assert await refused(pi, "RegisterTool", "Nobody", definition) == (
            "No installed plugin has the internal name 'Nobody'. "
            "Pass your plugin's InternalName (IDalamudPluginInterface.InternalName)."
        )
        await ok(pi, "RegisterTool", "testpeer", definition)  # another case of its own name: its own
        assert [t.name for t in host.registry.tools_of("TestPeer")] == ["testpeer_a"]


# --------------------------------------------------------------------------- G4: tool definitions


async def test_g4_t1_a_tool_that_is_not_read_only_must_declare_capabilities(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_act"))
        assert "A tool that isn't readOnly must declare its 'capabilities'" in error
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_act", capabilities=[]))
        assert "must declare its 'capabilities'" in error
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_act", capabilities=["read_game"]))
        assert "must declare its 'capabilities'" in error
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))


async def test_g4_read_only_and_destructive_together_are_refused(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_x", readOnly=True, destructive=True))
        assert "can't be both readOnly and destructive" in error
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_x", destructive=True, capabilities=["discard_items"]))


async def test_g4_an_unknown_capability_id_is_refused_with_the_valid_ones(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_x", capabilities=["game_ui", "fly"]))
        assert error.startswith("Unknown capability 'fly'. Valid: read_game, game_ui")
        error = await refused(pi, "RegisterTool", "TestPeer", tool("testpeer_x", capabilities=["Game_UI"]))
        assert "Unknown capability 'Game_UI'" in error


async def test_g4_read_game_is_added_to_every_tool(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        reply = await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_act", capabilities=["spend_gil", "game_ui"]))
        assert [c["id"] for c in reply["capabilities"]] == ["read_game", "spend_gil", "game_ui"]
        reply = await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        assert [c["id"] for c in reply["capabilities"]] == ["read_game"]
        status = await ok(pi, "GetStatus", "TestPeer")
        assert [c["id"] for c in status["capabilities"]] == ["read_game", "spend_gil", "game_ui"]


async def test_g4_a_read_only_tool_cannot_declare_acting_capabilities(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(
            pi, "RegisterTool", "TestPeer", tool("testpeer_x", readOnly=True, capabilities=["game_ui"])
        )
        assert "A read-only tool can't declare game_ui" in error


async def test_g4_tool_names_are_3_to_64_lowercase_letters_digits_or_underscores(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        for name in ("ab", "MyPlugin_x", "1plugin_x", "my-plugin", "x" * 65, ""):
            assert "Invalid tool name" in await refused(pi, "RegisterTool", "TestPeer", tool(name, readOnly=True))
        for name in ("abc", "x" * 64, "testpeer_2_b"):
            await ok(pi, "RegisterTool", "TestPeer", tool(name, readOnly=True))


async def test_g4_the_input_schema_must_be_an_object_schema(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(
            pi, "RegisterTool", "TestPeer", tool("testpeer_x", readOnly=True, inputSchema={"type": "array"})
        )
        assert '"type": "object"' in error


async def test_t5_a_tool_without_arguments_may_leave_the_input_schema_out(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "TestPeer") as pi:
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        registered = host.registry.get("testpeer_look")
        assert registered is not None and registered.definition.input_schema is None


# --------------------------------------------------------------------------- T6: names


async def test_t6_a_plugin_cannot_use_xivmcps_own_tool_names(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "TestPeer") as pi:
        for name in ("navigate_to", "set_map_flag", "get_inventory", "start_job", "wait"):
            error = await refused(pi, "RegisterTool", "TestPeer", tool(name, readOnly=True))
            assert error.startswith(f"'{name}' is an XIV MCP tool"), error
        assert host.registry.tools_of("TestPeer") == ()


async def test_t6_a_plugin_cannot_take_another_plugins_tool_name(tmp_path: Path) -> None:
    async with (
        inprocess_host(tmp_path) as (endpoint, host),
        broker.connect(endpoint, "FirstPlugin") as first,
        broker.connect(endpoint, "SecondPlugin") as second,
    ):
        await ok(first, "RegisterTool", "FirstPlugin", tool("shared_name", readOnly=True))
        error = await refused(second, "RegisterTool", "SecondPlugin", tool("shared_name", readOnly=True))
        assert "'shared_name' is already registered by another plugin" in error
        assert (await ok(second, "UnregisterTool", "SecondPlugin", "shared_name"))["removed"] is False
        assert host.registry.owner_of("shared_name") == "FirstPlugin"
        # its own name it may register again, replacing the definition
        await ok(first, "RegisterTool", "FirstPlugin", tool("shared_name", capabilities=["game_ui"]))
        registered = host.registry.get("shared_name")
        assert registered is not None and not registered.definition.read_only


# --------------------------------------------------------------------------- G5: GetStatus


async def test_g5_get_status_reports_state_can_run_reason_tools_capabilities_and_dependencies(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        player = player_of(pi, tmp_path)
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_buy", capabilities=["spend_gil"]))
        status = await ok(pi, "GetStatus", "TestPeer")
        assert set(status) == {"ok", "state", "canRun", "suspendReason", "tools", "capabilities", "dependencies"}
        assert (status["state"], status["canRun"], status["suspendReason"]) == ("undecided", False, None)
        assert status["tools"] == [
            {"name": "testpeer_look", "mode": "deny", "own": False},
            {"name": "testpeer_buy", "mode": "deny", "own": False},
        ]
        assert status["capabilities"] == [{"id": "read_game", "mode": "deny"}, {"id": "spend_gil", "mode": "deny"}]
        assert status["dependencies"] == []

        await player.enable("TestPeer")
        await player.mode("TestPeer", "testpeer_buy", "allow")
        status = await ok(pi, "GetStatus", "TestPeer")
        assert (status["state"], status["canRun"], status["suspendReason"]) == ("enabled", True, None)
        assert status["tools"] == [
            {"name": "testpeer_look", "mode": "allow", "own": False},
            {"name": "testpeer_buy", "mode": "allow", "own": True},
        ]
        assert status["capabilities"] == [{"id": "read_game", "mode": "allow"}, {"id": "spend_gil", "mode": "ask"}]

        await player.keep_disabled("TestPeer")
        status = await ok(pi, "GetStatus", "TestPeer")
        assert (status["state"], status["canRun"]) == ("kept_disabled", False)


async def test_f5_unregister_and_check_permission_answer_as_the_real_host_at_their_edges(tmp_path: Path) -> None:
    # SPEC: F5 - PluginApi.cs: UnregisterTool answers registry.Remove's false for a name it does not
    # hold, an empty one too; UnregisterAll drops the declared dependencies with the tools;
    # CheckPermission refuses any id not in the catalog, an empty one too, in one sentence.
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        assert await ok(pi, "UnregisterTool", "TestPeer", "") == {"ok": True, "removed": False}
        assert await ok(pi, "UnregisterTool", "TestPeer", None) == {"ok": True, "removed": False}
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        declared = await ok(pi, "DeclareDependencies", "TestPeer", '{"tools": [{"tool": "navigate_to"}]}')
        assert [d["tool"] for d in declared["dependencies"]] == ["navigate_to"]
        assert await ok(pi, "UnregisterAll", "TestPeer") == {"ok": True, "removed": 1}
        assert (await ok(pi, "GetStatus", "TestPeer"))["dependencies"] == []
        for capability in ("", "fly", "Game_UI"):
            error = await refused(pi, "CheckPermission", "TestPeer", capability)
            assert error == f"Unknown capability '{capability}'. See XivMcp.ListCapabilities."


async def test_g5_check_permission_is_deny_unless_enabled_then_the_players_mode(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        player = player_of(pi, tmp_path)
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_buy", capabilities=["spend_gil"]))
        reply = await ok(pi, "CheckPermission", "TestPeer", "spend_gil")
        assert {k: reply[k] for k in ("mode", "enabled", "suspended", "state")} == {
            "mode": "deny",
            "enabled": False,
            "suspended": False,
            "state": "undecided",
        }
        await player.enable("TestPeer")
        assert (await ok(pi, "CheckPermission", "TestPeer", "spend_gil"))["mode"] == "ask"
        assert (await ok(pi, "CheckPermission", "TestPeer", "read_game"))["mode"] == "allow"
        await player.mode("TestPeer", "spend_gil", "deny")
        reply = await ok(pi, "CheckPermission", "TestPeer", "spend_gil")
        assert (reply["mode"], reply["enabled"], reply["state"]) == ("deny", True, "enabled")
        await player.mode("TestPeer", "spend_gil", "allow")
        assert (await ok(pi, "CheckPermission", "TestPeer", "spend_gil"))["mode"] == "allow"
        # a critical capability is never more than ask
        with pytest.raises(PlayerError, match="never allow"):
            await player.mode("TestPeer", "discard_items", "allow")
        assert (await ok(pi, "CheckPermission", "TestPeer", "discard_items"))["mode"] == "ask"


# --------------------------------------------------------------------------- G6: dependencies


def other_plugin_tool(tool_name: str = "otherplugin_announce", **changes: Any) -> dict[str, Any]:
    entry = {
        "tool": tool_name,
        "plugin": "OtherPlugin",
        "name": "Other Plugin",
        "repo": "https://example.com/repo.json",
        "minVersion": "1.2.0",
    }
    entry.update(changes)
    return {k: v for k, v in entry.items() if v is not None}


async def declare(pi: broker.PluginInterface, *tools: dict[str, Any]) -> list[dict[str, Any]]:
    reply = await ok(pi, "DeclareDependencies", pi.name, json.dumps({"tools": list(tools)}))
    dependencies: list[dict[str, Any]] = reply["dependencies"]
    return dependencies


async def test_g6_a_declaration_replaces_the_previous_one_and_an_empty_one_clears_it(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        first = await declare(pi, {"tool": "navigate_to"}, other_plugin_tool())
        assert [d["tool"] for d in first] == ["navigate_to", "otherplugin_announce"]
        second = await declare(pi, {"tool": "buy_item"})
        assert [d["tool"] for d in second] == ["buy_item"]
        assert [d["tool"] for d in (await ok(pi, "GetStatus", "TestPeer"))["dependencies"]] == ["buy_item"]
        assert await declare(pi) == []
        assert (await ok(pi, "GetStatus", "TestPeer"))["dependencies"] == []


async def test_g6_each_entry_reports_state_message_and_install(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        navigate, announce, duty = await declare(pi, {"tool": "navigate_to"}, other_plugin_tool(), {"tool": "run_duty"})
        for entry in (navigate, announce, duty):
            assert set(entry) == {"tool", "plugin", "state", "message", "install"}
            for install in entry["install"]:
                assert {"plugin", "name", "repo", "needed", "installed", "outdated", "reason"} <= set(install)
        assert (navigate["plugin"], navigate["state"]) == (None, "ok")
        assert navigate["message"].startswith("Ready.")
        assert [i["plugin"] for i in navigate["install"]] == ["vnavmesh", "Lifestream"]
        assert all(i["needed"] is False and i["without"] for i in navigate["install"])
        assert (announce["plugin"], announce["state"]) == ("OtherPlugin", "plugin_missing")  # never installed (F2)
        assert announce["install"][0]["repo"] == "https://example.com/repo.json"
        # a built-in that cannot run without its plugin
        assert duty["state"] == "needs_plugin"
        assert [(i["plugin"], i["needed"]) for i in duty["install"]] == [("AutoDuty", True)]


async def test_g6_another_plugins_tool_is_ok_once_its_plugin_is_connected_registered_and_enabled(
    tmp_path: Path,
) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        assert (await declare(pi, other_plugin_tool()))[0]["state"] == "plugin_missing"
        async with broker.connect(endpoint, "OtherPlugin") as other:
            assert (await declare(pi, other_plugin_tool()))[0]["state"] == "tool_missing"
            await ok(other, "RegisterTool", "OtherPlugin", tool("otherplugin_announce", capabilities=["chat_send"]))
            assert (await declare(pi, other_plugin_tool()))[0]["state"] == "not_enabled"
            await player_of(pi, tmp_path).enable("OtherPlugin")
            assert (await declare(pi, other_plugin_tool()))[0]["state"] == "ok"


async def test_g6_a_built_in_tool_is_named_alone(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        error = await refused(
            pi,
            "DeclareDependencies",
            "TestPeer",
            json.dumps({"tools": [{"tool": "navigate_to", "plugin": "vnavmesh"}]}),
        )
        assert "'navigate_to' is built into XIV MCP; declare it with 'tool' alone" in error


async def test_g6_another_plugins_tool_needs_plugin_name_repo_and_min_version(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        for missing in ("plugin", "name", "repo", "minVersion"):
            entry = other_plugin_tool(**{missing: None})
            error = await refused(pi, "DeclareDependencies", "TestPeer", json.dumps({"tools": [entry]}))
            assert f"'{missing}' is missing" in error
        document = json.dumps({"tools": [other_plugin_tool(minVersion="soon")]})
        assert "must be a version like" in await refused(pi, "DeclareDependencies", "TestPeer", document)


async def test_g6_repo_is_an_https_url_or_official(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        for repo in ("https://example.com/repo.json", "official"):
            await ok(pi, "DeclareDependencies", "TestPeer", json.dumps({"tools": [other_plugin_tool(repo=repo)]}))
        for repo in ("http://example.com/repo.json", "example.com/repo.json", "https://", "Official", ""):
            document = json.dumps({"tools": [other_plugin_tool(repo=repo)]})
            error = await refused(pi, "DeclareDependencies", "TestPeer", document)
            assert "must be the https URL" in error or "'repo' is missing" in error, (repo, error)


async def test_g6_at_most_64_tools(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        tools = [other_plugin_tool(f"otherplugin_tool{i}") for i in range(65)]
        assert len(await declare(pi, *tools[:64])) == 64
        error = await refused(pi, "DeclareDependencies", "TestPeer", json.dumps({"tools": tools}))
        assert error == "Declare at most 64 tools; this declaration has 65."
        assert len((await ok(pi, "GetStatus", "TestPeer"))["dependencies"]) == 64  # the refused one changed nothing


# --------------------------------------------------------------------------- G7, G9: calls and approvals


async def test_g7_invoke_replies_result_error_or_pending(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        for name in ("testpeer_result", "testpeer_error", "testpeer_pending", "testpeer_garbage", "testpeer_not_json"):
            await plugin.register(name, readOnly=True)
        await player.enable("TestPeer")

        async def result(*_: str) -> str:
            return '{"result": {"kills": 3}}'

        async def error(*_: str) -> str:
            return '{"error": "Not at a summoning bell."}'

        async def garbage(*_: str) -> str:
            return '{"neither": 1}'

        async def not_json(*_: str) -> str:
            return "{nope"

        plugin.handlers.update(
            testpeer_result=result, testpeer_error=error, testpeer_garbage=garbage, testpeer_not_json=not_json
        )
        assert await player.result("testpeer_result") == {"kills": 3}
        assert await player.error("testpeer_error") == "Not at a summoning bell."
        # SPEC: F5 - named by the plugin's display name, as PluginReply.Parse(reply, DisplayName) does
        assert "TestPeer returned an invalid reply" in await player.error("testpeer_garbage")
        manifest = '{"name": "Test Peer", "version": "1.0.0"}'
        await plugin.pi.get_ipc_subscriber(MANIFEST_GATE).invoke_func("TestPeer", manifest)
        assert (await player.error("testpeer_garbage")).startswith(
            'Test Peer returned an invalid reply: expected {"result": …}, {"error": "…"} or {"pending": true}.'
        )
        assert (await player.error("testpeer_not_json")).startswith("Test Peer returned invalid JSON: ")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_pending")
            for _ in range(5):  # the five calls above
                await plugin.next_invoke()
            call_id, _, _ = await plugin.next_invoke()
            # the result itself, not wrapped: a document with a "result" key stays as it is
            await ok(plugin.pi, "CompleteCall", call_id, '{"result": "kept as sent"}')
            assert (await call.outcome()).result == {"result": "kept as sent"}


async def test_g7_complete_call_fail_call_and_request_approval_work_from_inside_invoke(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_inline", capabilities=["game_ui"])
        await plugin.register("testpeer_refuse", capabilities=["game_ui"])
        await player.enable("TestPeer")
        await player.mode("TestPeer", "game_ui", "allow")
        approvals: list[dict[str, Any]] = []

        async def inline(call_id: str, *_: str) -> str:
            request = json.dumps({"capability": "game_ui", "summary": "Open the map"})
            approvals.append(await ok(plugin.pi, "RequestApproval", call_id, request))
            await ok(plugin.pi, "ReportProgress", call_id, "halfway")
            await ok(plugin.pi, "CompleteCall", call_id, '{"done": "inside Invoke"}')
            return '{"pending": true}'

        async def refuse(call_id: str, *_: str) -> str:
            await ok(plugin.pi, "FailCall", call_id, "Bags full after 31 kills.")
            return '{"pending": true}'

        plugin.handlers.update(testpeer_inline=inline, testpeer_refuse=refuse)
        assert await player.result("testpeer_inline") == {"done": "inside Invoke"}
        assert approvals[0]["state"] == "approved" and set(approvals[0]) == {"ok", "approvalId", "state"}
        assert await player.error("testpeer_refuse") == "Bags full after 31 kills."


async def test_g7_a_call_ends_once_and_only_its_plugin_ends_it(tmp_path: Path) -> None:
    async with (
        inprocess_host(tmp_path) as (endpoint, _),
        plugin_peer(endpoint, "TestPeer") as plugin,
        broker.connect(endpoint, "Spoofer") as spoofer,
    ):
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_slow", readOnly=True)
        await player.enable("TestPeer")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_slow")
            call_id, _, _ = await plugin.next_invoke()
            # SPEC: G3, S1 - another peer cannot finish, fail, report on or ask during someone else's
            # call, and is answered as if there were no such call (the refusal does not say whose it is)
            for name, arg in (("CompleteCall", "{}"), ("FailCall", "no")):
                assert await refused(spoofer, name, call_id, arg) == no_pending_call(call_id)
            assert await refused(spoofer, "ReportProgress", call_id, "x") == f"No pending call '{call_id}'."
            request = '{"capability": "game_ui", "summary": "x"}'
            assert await refused(spoofer, "RequestApproval", call_id, request) == no_running_call(call_id)
            error = await refused(plugin.pi, "CompleteCall", call_id, "{not json")
            assert error.startswith("resultJson is not valid JSON: ")  # and the call is still pending:
            await ok(plugin.pi, "CompleteCall", call_id, "31")
            assert (await call.outcome()).result == 31
        assert await refused(plugin.pi, "CompleteCall", call_id, "32") == no_pending_call(call_id)
        assert await refused(plugin.pi, "FailCall", call_id, "late") == no_pending_call(call_id)


def no_running_call(call_id: str) -> str:
    """The real host's refusal of RequestApproval outside a call."""
    return f"No running call '{call_id}'. Approvals can only be requested during a call."


def no_pending_call(call_id: str) -> str:
    """The real host's refusal of CompleteCall / FailCall for a call it does not wait for."""
    return f"No pending call '{call_id}' (finished, cancelled or never pending)."


async def test_g7_complete_call_answers_accepted_and_only_the_first_end_counts(tmp_path: Path) -> None:
    # SPEC: G7, F5 - as XivMcp/Api/PluginApi.cs answers: {"accepted": TrySetResult / TrySetException}
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        for name in ("testpeer_twice", "testpeer_reply_wins", "testpeer_blank", "testpeer_late"):
            await plugin.register(name, readOnly=True)
        await player.enable("TestPeer")
        answers: list[dict[str, Any]] = []

        async def twice(call_id: str, *_: str) -> str:
            answers.append(await ok(plugin.pi, "CompleteCall", call_id, '{"first": true}'))
            answers.append(await ok(plugin.pi, "CompleteCall", call_id, '{"second": true}'))
            answers.append(await ok(plugin.pi, "FailCall", call_id, "Too late."))
            return '{"pending": true}'

        async def reply_wins(call_id: str, *_: str) -> str:
            answers.append(await ok(plugin.pi, "CompleteCall", call_id, '{"from": "CompleteCall"}'))
            return '{"result": {"from": "Invoke"}}'  # the real host returns what Invoke answered

        async def blank(call_id: str, *_: str) -> str:
            answers.append(await ok(plugin.pi, "FailCall", call_id, "   "))
            return '{"pending": true}'

        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_late")
            late, _, _ = await plugin.next_invoke()
            assert await ok(plugin.pi, "FailCall", late, "Bags full.") == {"ok": True, "accepted": True}
            assert (await call.outcome()).error == "Bags full."
        plugin.handlers.update(testpeer_twice=twice, testpeer_reply_wins=reply_wins, testpeer_blank=blank)
        assert await player.result("testpeer_twice") == {"first": True}
        accepted, refused_ = {"ok": True, "accepted": True}, {"ok": True, "accepted": False}
        assert answers == [accepted, refused_, refused_]
        assert await player.result("testpeer_reply_wins") == {"from": "Invoke"}
        assert answers[3] == accepted
        assert await player.error("testpeer_blank") == "The call failed."
        # ended and reported: no longer pending, as the real host forgets it once the call returned
        assert await refused(plugin.pi, "CompleteCall", late, "1") == no_pending_call(late)
        assert await refused(plugin.pi, "ReportProgress", late, "x") == f"No pending call '{late}'."
        assert await refused(plugin.pi, "FailCall", "", "x") == no_pending_call("")


async def test_g8_a_call_that_ended_is_no_longer_pending_while_its_effects_are_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SPEC: G8, F5 - the real host forgets a call as Invoke's task returns (PluginApi.cs, `finally
    # { pending.TryRemove }`), before anything judges it: a CompleteCall after the two minutes is
    # refused, never `{"accepted": false}`, however long reading the game takes.
    judging, judged = anyio.Event(), anyio.Event()
    end = EffectWatch.end

    async def slow_end(self: EffectWatch, *args: Any) -> Verdict:
        judging.set()
        await judged.wait()
        return await end(self, *args)

    monkeypatch.setattr(EffectWatch, "end", slow_end)
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_stubborn", readOnly=True)
        await player.enable("TestPeer")
        async with broker.connect(endpoint, "TestApp") as app, anyio.create_task_group() as tg:
            start_call(tg, player_of(app, tmp_path), "testpeer_stubborn")
            call_id, _, _ = await plugin.next_invoke()
            tg.cancel_scope.cancel()  # the app gives up and goes away: Cancel, then two minutes
        assert await plugin.next_cancel() == call_id
        await player.advance_clock(121)
        with anyio.fail_after(WAIT):
            await judging.wait()  # the call ended; its effects are being judged
        assert await refused(plugin.pi, "CompleteCall", call_id, "{}") == no_pending_call(call_id)
        assert await refused(plugin.pi, "FailCall", call_id, "x") == no_pending_call(call_id)
        assert await refused(plugin.pi, "ReportProgress", call_id, "x") == f"No pending call '{call_id}'."
        document = json.dumps({"capability": "game_ui", "summary": "Buy 3 potions"})
        no_running = f"No running call '{call_id}'. Approvals can only be requested during a call."
        assert await refused(plugin.pi, "RequestApproval", call_id, document) == no_running
        judged.set()
        with anyio.fail_after(WAIT):
            while not (lines := [e for e in await player.audit(plugin="TestPeer") if e.kind == "call"]):
                pass  # each look is a round trip to the host, which writes the line once judged
        assert [line.details["error"] for line in lines] == ["Cancelled."]


async def test_g9_request_approval_answers_approved_denied_or_pending_and_get_approval_follows(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_shop", capabilities=["game_ui", "spend_gil", "move_items"])
        await player.enable("TestPeer")
        await player.set_modes("TestPeer", game_ui="allow", spend_gil="allow", move_items="allow")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_shop")
            call_id, _, _ = await plugin.next_invoke()

            async def ask(capability: str, summary: str = "Buy 3 potions for 1,200 gil") -> dict[str, Any]:
                document = json.dumps({"capability": capability, "summary": summary})
                return await ok(plugin.pi, "RequestApproval", call_id, document)

            assert (await ask("spend_gil"))["state"] == "approved"  # allowed: approved at once
            await player.set_modes("TestPeer", spend_gil="deny")
            denied = await ask("spend_gil")
            assert denied["state"] == "denied"
            assert (await ok(plugin.pi, "GetApproval", denied["approvalId"]))["state"] == "denied"

            await player.set_modes("TestPeer", spend_gil="ask")
            pending = await ask("spend_gil")
            assert pending["state"] == "pending"
            assert (await ok(plugin.pi, "GetApproval", pending["approvalId"]))["state"] == "pending"
            waiting = await player.approvals()
            assert [(a.approval_id, a.summary) for a in waiting] == [
                (pending["approvalId"], "Buy 3 potions for 1,200 gil")
            ]
            await player.approve(pending["approvalId"])
            assert (await ok(plugin.pi, "GetApproval", pending["approvalId"]))["state"] == "approved"

            declined = await ask("spend_gil")
            await player.decline(declined["approvalId"])
            assert (await ok(plugin.pi, "GetApproval", declined["approvalId"]))["state"] == "denied"

            # SPEC: G8 - an approval window declines after two minutes (the test clock moves, nobody sleeps)
            expiring = await ask("spend_gil")
            await player.advance_clock(119)
            assert (await ok(plugin.pi, "GetApproval", expiring["approvalId"]))["state"] == "pending"
            await player.advance_clock(2)
            assert (await ok(plugin.pi, "GetApproval", expiring["approvalId"]))["state"] == "denied"
            await ok(plugin.pi, "CompleteCall", call_id, "{}")
            await call.outcome()
        assert host.approvals.pending() == ()


async def test_g9_asking_for_a_capability_the_tool_did_not_declare_is_denied_and_flagged(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_map", capabilities=["game_ui"])
        await player.enable("TestPeer")
        await player.set_modes("TestPeer", game_ui="allow", spend_gil="allow")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_map")
            call_id, _, _ = await plugin.next_invoke()
            document = json.dumps({"capability": "spend_gil", "summary": "Teleport for 999 gil"})
            reply = await ok(plugin.pi, "RequestApproval", call_id, document)
            assert reply["state"] == "denied"
            await ok(plugin.pi, "FailCall", call_id, "The player declined the teleport; nothing was spent.")
            await call.outcome()
        flagged = [e for e in read_audit(tmp_path) if e["kind"] == "approval" and e.get("flagged")]
        assert [(e["plugin"], e["tool"], e["details"]["capabilities"]) for e in flagged] == [
            ("TestPeer", "testpeer_map", ["spend_gil"])
        ]
        assert [e["details"]["kind"] for e in flagged] == ["during_call"]
        entries = await player.audit(plugin="TestPeer")
        assert [e.details["capabilities"] for e in entries if e.flagged] == [["spend_gil"]]


async def test_g9_get_approval_forgets_a_decided_approval_after_one_read(tmp_path: Path) -> None:
    # SPEC: G9, F5 - as XivMcp/Api/PluginApi.cs: once not pending, GetApproval removes the approval
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await allowed_tool(plugin, tmp_path, "testpeer_buy", "spend_gil")
        await player.set_modes("TestPeer", spend_gil="ask")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_buy")
            await player.approve((await player.wait_approval("testpeer_buy")).approval_id)
            call_id, _, _ = await plugin.next_invoke()
            request = json.dumps({"capability": "spend_gil", "summary": "Buy 3 potions for 1,200 gil"})
            approval_id = (await ok(plugin.pi, "RequestApproval", call_id, request))["approvalId"]
            pending = {"ok": True, "approvalId": approval_id, "state": "pending"}
            assert await ok(plugin.pi, "GetApproval", approval_id) == pending  # pending: read as often as needed
            assert await ok(plugin.pi, "GetApproval", approval_id) == pending
            await player.approve(approval_id)
            approved = {"ok": True, "approvalId": approval_id, "state": "approved"}
            assert await ok(plugin.pi, "GetApproval", approval_id) == approved
            assert await refused(plugin.pi, "GetApproval", approval_id) == f"No approval '{approval_id}'."
            assert await refused(plugin.pi, "GetApproval", None) == "No approval ''."
            await ok(plugin.pi, "CompleteCall", call_id, "1")
            await call.outcome()


async def test_g9_request_approval_refuses_in_the_real_hosts_words_and_cuts_the_summary_at_200(
    tmp_path: Path,
) -> None:
    # SPEC: G9, F5 - the messages of XivMcp/Api/PluginApi.cs RequestApproval
    async with inprocess_host(tmp_path) as (endpoint, host), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await allowed_tool(plugin, tmp_path, "testpeer_buy", "spend_gil")
        request = '{"capability": "spend_gil", "summary": "x"}'
        assert await refused(plugin.pi, "RequestApproval", "c9", request) == no_running_call("c9")
        assert await refused(plugin.pi, "RequestApproval", None, request) == no_running_call("")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_buy")
            call_id, _, _ = await plugin.next_invoke()

            async def error(document: str | None) -> str:
                return await refused(plugin.pi, "RequestApproval", call_id, document)

            assert (await error("{")).startswith("Invalid JSON: ")
            assert await error("[1]") == "The request must be a JSON object { capability, summary }."
            assert await error('{"summary": "Buy"}') == "The request needs 'capability'."
            # kept: not a string is refused as missing (the real host answers .NET's conversion error)
            assert await error('{"capability": 7, "summary": "Buy"}') == "The request needs 'capability'."
            summary = "The request needs a 'summary' the player can decide on, e.g. \"Buy 3 potions for 1,200 gil\"."
            assert await error('{"capability": "spend_gil"}') == summary
            assert await error('{"capability": "spend_gil", "summary": "  "}') == summary
            await plugin.pi.get_ipc_subscriber("XivMcp.UnregisterTool").invoke_func("TestPeer", "testpeer_buy")
            long = " Buy " + "x" * 300  # kept as sent, cut at 200 characters; the tool's call goes on
            document = json.dumps({"capability": "spend_gil", "summary": long})
            assert (await ok(plugin.pi, "RequestApproval", call_id, document))["state"] == "approved"
            await ok(plugin.pi, "CompleteCall", call_id, "1")
            await call.outcome()
        [line] = [e for e in read_audit(tmp_path) if e["kind"] == "approval" and e["details"]["kind"] == "during_call"]
        assert line["details"]["summary"] == long[:200]
        assert host.approvals.pending() == ()


# --------------------------------------------------------------------------- the player's gate


async def proven(pi: broker.PluginInterface, key: str, command: str) -> dict[str, Any]:
    """Send `command` (any text) on XivMcp.Player with a valid proof of `key`, as the CLI would."""
    client_nonce = new_nonce()
    hello = json.loads(await pi.get_ipc_subscriber("XivMcp.PlayerHello").invoke_func(client_nonce))
    assert hello["ok"] is True and hello["proof"] == host_proof(key, client_nonce)
    auth = json.dumps({"nonce": hello["nonce"], "mac": player_mac(key, hello["nonce"], pi.name, command)})
    reply: dict[str, Any] = json.loads(await pi.get_ipc_subscriber("XivMcp.Player").invoke_func(auth, command))
    return reply


ONLY_THE_PLAYER = "Only the player can use XivMcp.Player"


async def allowed_tool(plugin: TestPlugin, data_dir: Path, name: str, capability: str) -> Player:
    """Register `name` (needing `capability`), enable the plugin and allow the capability: the player."""
    player = player_of(plugin.pi, data_dir)
    await plugin.register(name, capabilities=[capability])
    await player.enable(plugin.name)
    await player.set_modes(plugin.name, **{capability: "allow"})
    return player


def owner_only(path: Path) -> bool:
    return path.stat().st_mode & 0o077 == 0


async def test_b8_player_gate_refuses_anything_but_a_fresh_proof_of_the_key(tmp_path: Path) -> None:
    # SPEC: B8
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        await ok(pi, "RegisterTool", "TestPeer", tool("testpeer_look", readOnly=True))
        player = pi.get_ipc_subscriber("XivMcp.Player")
        key = read_player_key(tmp_path)
        enable = '{"cmd": "keep_disabled", "plugin": "TestPeer"}'
        hello = json.loads(await pi.get_ipc_subscriber("XivMcp.PlayerHello").invoke_func("n1"))
        good = json.dumps({"nonce": hello["nonce"], "mac": player_mac(key, hello["nonce"], pi.name, enable)})
        wrong_command = json.dumps({"nonce": hello["nonce"], "mac": player_mac(key, hello["nonce"], pi.name, "{}")})
        made_up = json.dumps({"nonce": "0" * 32, "mac": player_mac(key, "0" * 32, pi.name, enable)})
        other = json.loads(await pi.get_ipc_subscriber("XivMcp.PlayerHello").invoke_func("n2"))
        not_ascii = json.dumps({"nonce": other["nonce"], "mac": "\u00e9"})
        for auth in (key, "", None, "{}", made_up, not_ascii, wrong_command, good):  # the last: its nonce is used up
            reply = json.loads(await player.invoke_func(auth, enable))
            assert reply["ok"] is False and reply["error"].startswith(ONLY_THE_PLAYER), (auth, reply)
            assert key not in reply["error"]
        assert (await ok(pi, "GetStatus", "TestPeer"))["state"] == "undecided"
        assert (await proven(pi, key, enable))["state"] == "kept_disabled"  # a fresh proof works
        assert owner_only(tmp_path / "player.key") and owner_only(tmp_path)  # readable by this user only


async def test_b8_an_impostor_xivmcp_never_sees_the_key_and_the_player_is_told(tmp_path: Path) -> None:
    # SPEC: B8
    (tmp_path / "player.key").write_text("the-real-key")
    bus = Broker(BrokerConfig(endpoint="tcp://127.0.0.1:*")).start_in_thread()
    seen: list[object] = []

    def impostor_hello(nonce: str | None) -> str:
        seen.append(nonce)
        return json.dumps({"ok": True, "nonce": "n", "proof": "guess"})

    def impostor_player(*args: str | None) -> str:
        seen.extend(args)
        return '{"ok": true}'

    try:
        async with broker.connect(bus.endpoint, "XivMcp") as impostor, broker.connect(bus.endpoint, "Cli") as pi:
            hello_gate = impostor.get_ipc_provider("XivMcp.PlayerHello", params=(str | None,), returns=str)
            hello_gate.register_func(impostor_hello)
            player_gate = impostor.get_ipc_provider("XivMcp.Player", params=(str | None, str | None), returns=str)
            player_gate.register_func(impostor_player)
            with anyio.fail_after(WAIT):
                await pi.get_ipc_subscriber("XivMcp.PlayerHello").wait_ready()
            client = PlayerClient.for_data_dir(pi, tmp_path)
            with pytest.raises(NotYourHostError, match="This XivMcp is not your host"):
                await client.send(KeepDisabled(plugin="MyPlugin"))
    finally:
        bus.close()
    assert len(seen) == 1  # the challenge only: no command was sent
    assert all("the-real-key" not in str(value) for value in seen)


async def test_player_gate_refuses_a_malformed_command_with_a_message(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), broker.connect(endpoint, "TestPeer") as pi:
        player = player_of(pi, tmp_path)
        key = read_player_key(tmp_path)
        for command in ("{", "[]", '{"cmd": "fly"}', '{"cmd": "audit", "limit": "x"}', '{"cmd": "enable"}'):
            reply = await proven(pi, key, command)
            assert reply["ok"] is False and "player command" in reply["error"], reply
        with pytest.raises(PlayerError, match="No plugin named 'Nobody'"):
            await player.enable("Nobody")
        with pytest.raises(PlayerError, match="is not a mode"):
            await player.mode("X", "game_ui", "sometimes")


# --------------------------------------------------------------------------- B5: ids of one host process


async def test_b5_call_ids_differ_across_host_processes_and_an_old_id_is_refused(tmp_path: Path) -> None:
    # SPEC: B5
    ids: list[str] = []
    for _ in range(2):  # the same data dir, a host process after another
        async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
            player = await allowed_tool(plugin, tmp_path, "testpeer_wait", "game_ui")
            async with anyio.create_task_group() as tg:
                call = start_call(tg, player, "testpeer_wait")
                call_id, _, _ = await plugin.next_invoke()
                for old in ids:  # a late answer for a call of the host before
                    for gate_name, arg in (("CompleteCall", "1"), ("FailCall", "x"), ("ReportProgress", "p")):
                        error = await refused(plugin.pi, gate_name, old, arg)
                        assert error.startswith(f"No pending call '{old}'"), error
                await ok(plugin.pi, "CompleteCall", call_id, '{"done": true}')
                assert (await call.outcome()).result == {"done": True}
            ids.append(call_id)
    assert ids[0] != ids[1] and all(re.fullmatch(r"c[0-9a-f]{16}-[0-9a-f]{6}", i) for i in ids), ids
    assert ids[0][-6:] != ids[1][-6:]  # each host process its own tag


async def test_b5_get_approval_answers_only_the_plugin_it_belongs_to(tmp_path: Path) -> None:
    # SPEC: B5, G9
    async with (
        inprocess_host(tmp_path) as (endpoint, _),
        plugin_peer(endpoint, "TestPeer") as plugin,
        broker.connect(endpoint, "Other") as other,
    ):
        player = await allowed_tool(plugin, tmp_path, "testpeer_buy", "spend_gil")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_buy")
            call_id, _, _ = await plugin.next_invoke()
            request = json.dumps({"capability": "spend_gil", "summary": "Buy for 10 gil"})
            approval_id = (await ok(plugin.pi, "RequestApproval", call_id, request))["approvalId"]
            # as if there were no such approval: the refusal does not say whose it is (S1)
            assert await refused(other, "GetApproval", approval_id) == f"No approval '{approval_id}'."
            assert (await ok(plugin.pi, "GetApproval", approval_id))["state"] == "approved"
            assert await refused(plugin.pi, "GetApproval", "a1-ffffff") == "No approval 'a1-ffffff'."
            await ok(plugin.pi, "CompleteCall", call_id, "1")
            await call.outcome()


# --------------------------------------------------------------------------- consent is for what the player saw


async def test_a6_consent_is_for_the_registration_the_player_saw_not_one_that_grew_meanwhile(tmp_path: Path) -> None:
    # SPEC: A6, T7
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_look", readOnly=True)
        seen = (await player.plugin("TestPeer")).digest
        await plugin.register("testpeer_buy", capabilities=["spend_gil"])  # it grows while the player reads
        with pytest.raises(PlayerError) as refusal:
            await player.enable("TestPeer", seen)
        assert refusal.value.message == (
            "TestPeer's registration changed since you looked (new tools testpeer_look, testpeer_buy; new "
            "capabilities spend_gil); nothing was consented. Look again with `xivmcp plugins`, then run "
            "`xivmcp enable TestPeer` again."
        )
        assert (await ok(plugin.pi, "GetStatus", "TestPeer"))["state"] == "undecided"
        now = (await player.plugin("TestPeer")).digest
        assert now != seen
        assert (await player.enable("TestPeer", now)).state == "enabled"
        await plugin.register("testpeer_shout", capabilities=["chat_send"])  # grows again: awaits consent
        grown = await player.plugin("TestPeer")
        assert grown.state == "awaiting_consent"
        with pytest.raises(PlayerError, match="new tools testpeer_shout; new capabilities chat_send"):
            await player.consent("TestPeer", now)
        assert (await player.consent("TestPeer", grown.digest)).state == "enabled"


# --------------------------------------------------------------------------- critical stays critical


async def test_t1_a_critical_tool_never_runs_without_the_players_approval(tmp_path: Path) -> None:
    # SPEC: T1, A3
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        plugin.handlers["testpeer_destroy"] = done
        await plugin.register("testpeer_destroy", capabilities=["discard_items"])
        await player.enable("TestPeer")
        with pytest.raises(PlayerError, match="declares discard_items, which is critical: it is asked every time"):
            await player.mode("TestPeer", "testpeer_destroy", "allow")
        with pytest.raises(PlayerError, match="is critical: it can be set to ask or deny, never allow"):
            await player.mode("TestPeer", "discard_items", "allow")
        for how in ({"always": True}, {"session": True}, {}):  # always, for this session, once
            async with anyio.create_task_group() as tg:
                call = start_call(tg, player, "testpeer_destroy")
                approval = await player.wait_approval("testpeer_destroy")  # asked again every time
                await player.approve(approval.approval_id, **how)
                assert (await call.outcome()).result == {"done": True}
        card = await player.plugin("TestPeer")
        assert {t.name: t.mode for t in card.tools}["testpeer_destroy"] == "ask"


async def done(call_id: str, tool_name: str, args_json: str) -> str:
    return '{"result": {"done": true}}'


# --------------------------------------------------------------------------- a plugin leaving and coming back


async def test_b3_a_plugin_that_leaves_takes_its_declaration_and_open_approvals_and_gets_ready_on_return(
    tmp_path: Path,
) -> None:
    # SPEC: B3, G6, G11
    async with inprocess_host(tmp_path) as (endpoint, host), broker.connect(endpoint, "Watcher") as watcher:
        readies = 0
        ready_seen = anyio.Event()

        def on_ready(*_: object) -> None:
            nonlocal readies
            readies += 1
            ready_seen.set()

        watcher.get_ipc_subscriber("XivMcp.Ready").subscribe(on_ready)
        player = player_of(watcher, tmp_path)
        async with anyio.create_task_group() as tg:
            async with plugin_peer(endpoint, "TestPeer") as plugin:
                await plugin.register("testpeer_buy", capabilities=["spend_gil"])
                await ok(plugin.pi, "DeclareDependencies", "TestPeer", '{"tools": [{"tool": "navigate_to"}]}')
                await player.enable("TestPeer")
                await player.set_modes("TestPeer", spend_gil="ask")
                call = start_call(tg, player, "testpeer_buy")
                assert (await player.wait_approval("testpeer_buy")).kind == "before_call"
            # it left (its process closed): its call, declaration and open approval go with it
            outcome = await call.outcome()
        assert "TestPeer left the bus while the player was asked to approve testpeer_buy" in str(outcome.error)
        assert await player.approvals() == []
        assert host.dependencies.declared("TestPeer") == ()
        before = readies
        ready_seen = anyio.Event()
        async with plugin_peer(endpoint, "TestPeer") as plugin:  # back, and listening: XIV MCP says Ready
            plugin.pi.get_ipc_subscriber("XivMcp.Ready").subscribe(lambda *_: None)
            with anyio.fail_after(WAIT):
                await ready_seen.wait()
            assert readies == before + 1
            assert (await ok(plugin.pi, "GetStatus", "TestPeer"))["dependencies"] == []
            assert not host.is_away("TestPeer")  # welcomed back once; a newcomer never is away
        assert not host.is_away("Newcomer")


async def test_b7_a_huge_capability_in_an_approval_request_is_cut_in_what_is_kept_and_logged(tmp_path: Path) -> None:
    # SPEC: B7, G9
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = await allowed_tool(plugin, tmp_path, "testpeer_buy", "spend_gil")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_buy")
            call_id, _, _ = await plugin.next_invoke()
            request = json.dumps({"capability": "x" * 500_000, "summary": "Buy"})
            assert (await ok(plugin.pi, "RequestApproval", call_id, request))["state"] == "denied"
            await ok(plugin.pi, "CompleteCall", call_id, "1")
            await call.outcome()
        [line] = [e for e in read_audit(tmp_path) if e["kind"] == "approval"]
        assert line["details"]["capabilities"] == ["x" * 64] and line["flagged"]
