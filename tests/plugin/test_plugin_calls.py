"""`Plugin.call`: a tool run in-process with the full binding and error shaping, no bus (K4, P6, T4),
and the outputSchema extension as the contract and the host's review see it (P5)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import plugins_sample.decorated as decorated
from gates.contract import DefinitionError, ToolDefinition, encode_json, parse_tool_definition, validate_tool_definition
from gates.host.policy._records import PluginRecord, ReviewKind, registration_of, review_registration
from gates.plugin import CallCancelledError, McpCall, McpToolError, Plugin


class Placed(msgspec.Struct, rename="camel"):
    zone: str
    map_opened: bool


plugin = Plugin("Calls")


@plugin.tool(capabilities=["game_ui"])
def calls_place(zone: str = "Tuliyollal") -> Placed:
    """Places it."""
    if zone == "nowhere":
        raise McpToolError("There is no zone 'nowhere'. Name a zone, such as Tuliyollal.")
    if zone == "crash":
        raise KeyError("crash")
    return Placed(zone, True)


@plugin.tool(capabilities=["game_ui"])
def calls_lie() -> Placed:
    """Declares a Placed but returns something else."""
    return {"zone": 7}  # type: ignore[return-value]


@plugin.tool(read_only=True)
async def calls_numbers(count: int = 3) -> list[int]:
    """An async quick tool returning a list."""
    return list(range(count))


@plugin.tool(read_only=True)
def calls_silent() -> None:
    """Raises an exception without a message."""
    raise RuntimeError


@plugin.long_running_tool(capabilities=["spend_gil"])
async def calls_buy(call: McpCall, count: int = 1) -> dict[str, Any]:
    """Buys, asking first."""
    call.progress(f"asking for {count}")
    if not await call.request_approval("spend_gil", f"Buy {count} for {count * 320} gil"):
        raise McpToolError("The player declined the purchase; nothing was bought.")
    call.progress("bought")
    return {"bought": count, "call": call.id.startswith("Calls-local-")}


@plugin.long_running_tool(capabilities=["combat"])
async def calls_farm(call: McpCall) -> None:
    """Is cancelled."""
    raise CallCancelledError("Cancelled.")


def test_a_call_returns_the_result_in_json_form_and_structured_for_an_object() -> None:
    # SPEC: K4, P5
    outcome = plugin.call("calls_place", {"zone": "Kozama'uka"})
    assert outcome.error is None
    assert outcome.result == {"zone": "Kozama'uka", "mapOpened": True}
    assert outcome.structured == outcome.result
    listed = plugin.call("calls_numbers", {"count": "2"})
    assert (listed.result, listed.structured) == ([0, 1], None)


def test_a_tool_error_reaches_the_assistant_as_its_message() -> None:
    # SPEC: P6, T4
    outcome = plugin.call("calls_place", {"zone": "nowhere"})
    assert outcome.error == "There is no zone 'nowhere'. Name a zone, such as Tuliyollal."
    assert outcome.result is None and outcome.structured is None


def test_any_other_exception_reaches_the_assistant_as_type_name_and_message() -> None:
    # SPEC: P6, T4
    assert plugin.call("calls_place", {"zone": "crash"}).error == "KeyError: 'crash'"
    assert plugin.call("calls_silent").error == "RuntimeError"


def test_a_result_that_breaks_the_declared_return_type_is_an_error_not_a_broken_structured_result() -> None:
    # SPEC: P5
    error = plugin.call("calls_lie").error
    assert error is not None
    assert error.startswith("calls_lie returned a result that does not match its declared return type Placed (")
    assert error.endswith("); this is a bug in the plugin, not in the call.")


def test_a_long_running_tool_reports_progress_and_gets_the_players_answer() -> None:
    # SPEC: K4
    approved = plugin.call("calls_buy", {"count": 2})
    assert approved.result == {"bought": 2, "call": True}
    assert approved.progress == ("asking for 2", "bought")
    declined = plugin.call("calls_buy", {"count": 2}, approve=False)
    assert declined.error == "The player declined the purchase; nothing was bought."
    assert declined.progress == ("asking for 2",)


def test_a_cancelled_long_running_call_reports_cancelled() -> None:
    # SPEC: K4
    assert plugin.call("calls_farm").error == "Cancelled."


def test_arguments_go_through_json_as_they_would_over_the_bus() -> None:
    # SPEC: K4, T3
    assert plugin.call("calls_numbers", {"count": 2.0}).result == [0, 1]
    assert plugin.call("calls_numbers", {"count": (1, 2)}).error == (
        "calls_numbers: 'count' must be a whole number; got [1,2]."
    )


def test_calling_a_tool_the_plugin_does_not_have_is_a_mistake_in_the_test() -> None:
    # SPEC: K4
    with pytest.raises(LookupError, match="Calls has no tool named 'calls_nothing'; its tools are: calls_place, "):
        plugin.call("calls_nothing")


@pytest.mark.asyncio
async def test_call_async_runs_a_tool_from_async_code() -> None:
    # SPEC: K4
    outcome = await plugin.call_async("calls_buy", {"COUNT": "3"})
    assert outcome.result == {"bought": 3, "call": True}
    with pytest.raises(RuntimeError, match=r"from async code write `await plugin.call_async\('calls_buy', ...\)`"):
        plugin.call("calls_buy")


def test_the_output_schema_is_an_extension_field_left_out_when_none() -> None:
    # SPEC: P5
    placed = next(d for d in plugin.definitions if d.name == "calls_place")
    numbers = next(d for d in plugin.definitions if d.name == "calls_numbers")
    assert msgspec.json.decode(encode_json(placed))["outputSchema"]["required"] == ["zone", "mapOpened"]
    assert "outputSchema" not in msgspec.json.decode(encode_json(numbers))
    assert parse_tool_definition(encode_json(placed)) == placed


def test_the_contract_refuses_an_output_schema_that_is_not_an_object() -> None:
    # SPEC: P5, G4
    bad = ToolDefinition(name="calls_bad", description="Bad.", read_only=True, output_schema={"type": "array"})
    with pytest.raises(DefinitionError, match='\'outputSchema\' must be a JSON schema object with "type": "object"'):
        validate_tool_definition(bad)


def test_an_output_schema_is_not_growth_the_player_is_asked_about() -> None:
    # SPEC: P5
    before = ToolDefinition(name="calls_place", description="Places it.", capabilities=["read_game", "game_ui"])
    after = next(d for d in plugin.definitions if d.name == "calls_place")
    consented = PluginRecord(enabled=True, reviewed=True, consented=registration_of([before]))
    assert review_registration(consented, registration_of([after])).kind is ReviewKind.NONE


def test_the_decorated_sample_declares_what_the_host_accepts_unchanged() -> None:
    # SPEC: P1, G4
    names = [d.name for d in decorated.plugin.definitions]
    assert names == [
        "decorated_status",
        "decorated_set_flag",
        "decorated_find_spots",
        "decorated_farm",
        "decorated_restock",
    ]
    for definition in decorated.plugin.definitions:
        assert validate_tool_definition(definition) == definition


def test_the_decorated_sample_runs_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # SPEC: K4, P4, P5
    monkeypatch.setattr(decorated, "world", decorated.World())
    monkeypatch.setattr(decorated, "SECONDS_PER_KILL", 0.0)
    sample = decorated.plugin
    placed = sample.call("decorated_set_flag", {"X": "21.4", "y": 9.8, "openMap": "false", "name": "Summit"})
    assert placed.structured == {"zone": "Kozama'uka", "x": 21.4, "y": 9.8, "mapOpened": False}
    assert sample.call("decorated_status").result["flag"]["name"] == "Summit"
    off_map = sample.call("decorated_set_flag", {"x": 99, "y": 9.8})
    assert off_map.error == "decorated_set_flag: 'x' must be a number from 1 to 42; got 99."
    found = sample.call("decorated_find_spots", {"query": "TULI", "limit": 1})
    assert found.result["total"] == 2 and found.result["showing"] == 1
    farmed = sample.call("decorated_farm", {"kills": 2})
    assert farmed.result == {"kills": 2} and farmed.progress == ("1 kills", "2 kills")
    bought = sample.call("decorated_restock", {"item": "x-potion", "count": 2})
    assert bought.result == {"bought": 2, "item": "X-Potion", "gil": 640, "gilLeft": 99_360}
