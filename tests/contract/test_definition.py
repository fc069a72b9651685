"""Tool definitions from plugins: the rules of RegisterTool (rules G4, T1, T5, T6)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gates.contract import (
    CAPABILITY_IDS,
    DefinitionError,
    InvalidDocumentError,
    NameTakenError,
    ToolDefinition,
    UnknownCapabilityError,
    acting_capabilities,
    input_schema_of,
    is_critical,
    parse_tool_definition,
    sections,
)


def definition(**fields: Any) -> str:
    document: dict[str, Any] = {
        "name": "myplugin_restock",
        "description": "Buys what your list is short of from the nearest vendor.",
        "capabilities": ["move_character", "game_ui", "spend_gil"],
    }
    document.update(fields)
    return json.dumps({k: v for k, v in document.items() if v is not ...})


def test_g4_the_docs_example_is_accepted_with_read_game_added_first() -> None:
    parsed = parse_tool_definition(
        definition(inputSchema={"type": "object", "properties": {}}, readOnly=False, destructive=False)
    )
    assert parsed.name == "myplugin_restock"
    assert parsed.capabilities == ["read_game", "move_character", "game_ui", "spend_gil"]
    assert parsed.input_schema == {"type": "object", "properties": {}}


def test_g4_duplicate_capabilities_collapse_and_description_is_trimmed() -> None:
    parsed = parse_tool_definition(
        definition(description="  Buys.  ", capabilities=["spend_gil", "read_game", "spend_gil", "game_ui"])
    )
    assert parsed.description == "Buys."
    assert parsed.capabilities == ["read_game", "spend_gil", "game_ui"]


def test_t5_a_tool_without_arguments_may_leave_the_input_schema_out_or_null() -> None:
    left_out = parse_tool_definition(definition(inputSchema=...))
    null = parse_tool_definition(definition(inputSchema=None))
    assert left_out.input_schema is None and null.input_schema is None
    assert input_schema_of(left_out) == {"type": "object", "properties": {}}


def test_g4_a_read_only_tool_needs_no_capabilities() -> None:
    parsed = parse_tool_definition(definition(name="myplugin_status", readOnly=True, capabilities=...))
    assert parsed.read_only and parsed.capabilities == ["read_game"]
    assert sections(parsed) == ("read_game",)
    with_read = parse_tool_definition(definition(readOnly=True, capabilities=["read_game"]))
    assert with_read.capabilities == ["read_game"]


@pytest.mark.parametrize("name", ["ab", "1abc", "_abc", "MyPlugin_x", "myplugin-x", "a" * 65, "myplugin x", "abc\n"])
def test_g4_register_tool_refuses_names_outside_the_pattern(name: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        parse_tool_definition(definition(name=name))
    message = str(caught.value)
    assert "3–64 characters a-z, 0-9 and _, starting with a letter" in message
    assert "prefix it with your plugin's name" in message


@pytest.mark.parametrize("name", ["abc", "a" * 64, "my_plugin_2"])
def test_g4_register_tool_accepts_names_at_the_limits(name: str) -> None:
    assert parse_tool_definition(definition(name=name)).name == name


@pytest.mark.parametrize("name", ["navigate_to", "wait", "start_job", "take_screenshot", "move_gil", "run_duty"])
def test_t6_register_tool_refuses_xivmcp_tool_names(name: str) -> None:
    with pytest.raises(NameTakenError, match=f"'{name}' is an XIV MCP tool"):
        parse_tool_definition(definition(name=name))


@pytest.mark.parametrize("description", ["", "   \n"])
def test_g4_register_tool_refuses_a_blank_description(description: str) -> None:
    with pytest.raises(DefinitionError, match="needs a 'description'"):
        parse_tool_definition(definition(description=description))


def test_g4_register_tool_refuses_a_missing_description() -> None:
    with pytest.raises(InvalidDocumentError, match="missing required field `description`"):
        parse_tool_definition(definition(description=...))


@pytest.mark.parametrize("schema", [{"properties": {}}, {"type": "array"}, {"type": ["object"]}])
def test_t5_register_tool_refuses_an_input_schema_that_is_not_an_object_schema(schema: dict[str, Any]) -> None:
    with pytest.raises(DefinitionError, match='"type": "object"'):
        parse_tool_definition(definition(inputSchema=schema))


def test_g4_register_tool_refuses_an_input_schema_that_is_not_a_json_object() -> None:
    with pytest.raises(InvalidDocumentError, match=r"\$\.inputSchema"):
        parse_tool_definition(definition(inputSchema=[1]))


def test_g4_register_tool_refuses_read_only_and_destructive_together() -> None:
    with pytest.raises(DefinitionError, match="both readOnly and destructive"):
        parse_tool_definition(definition(readOnly=True, destructive=True, capabilities=...))


@pytest.mark.parametrize("capabilities", [..., [], ["read_game"]])
def test_t1_register_tool_refuses_an_acting_tool_without_capabilities(capabilities: object) -> None:
    with pytest.raises(DefinitionError, match="A tool that isn't readOnly must declare its 'capabilities'"):
        parse_tool_definition(definition(capabilities=capabilities))


def test_g4_register_tool_refuses_a_read_only_tool_declaring_acting_capabilities() -> None:
    with pytest.raises(DefinitionError, match="A read-only tool can't declare spend_gil, chat_send"):
        parse_tool_definition(definition(readOnly=True, capabilities=["read_game", "spend_gil", "chat_send"]))


def test_g4_register_tool_refuses_unknown_capability_naming_it_and_the_valid_ids() -> None:
    with pytest.raises(UnknownCapabilityError) as caught:
        parse_tool_definition(definition(capabilities=["game_ui", "teleport"]))
    message = str(caught.value)
    assert message.startswith("Unknown capability 'teleport'. Valid: ")
    assert all(c in message for c in CAPABILITY_IDS)


def test_acting_capabilities_sections_and_criticality() -> None:
    tool = ToolDefinition(
        name="myplugin_purge", description="d", capabilities=["read_game", "move_items", "discard_items"]
    )
    assert acting_capabilities(tool) == ("move_items", "discard_items")
    assert sections(tool) == ("move_items", "discard_items")
    assert is_critical(tool)
    assert not is_critical(ToolDefinition(name="myplugin_buy", description="d", capabilities=["spend_gil"]))
