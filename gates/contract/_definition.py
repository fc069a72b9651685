"""Validating the tool definitions plugins send to ``XivMcp.RegisterTool`` (G4, T1, T5, T6).

A definition either comes back normalised (description trimmed, capabilities without duplicates
and with ``read_game`` first) or the call raises a :class:`RefusedError` whose
message is worded for the plugin developer. Whether another *plugin* owns the name is the
host registry's question; names of XIV MCP's own tools are refused here.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from ._builtins import BUILTIN_TOOL_NAMES
from ._catalog import CAPABILITY_IDS, find_capability
from ._codec import decode_tool_definition
from ._codes import CapabilityId, Risk
from ._documents import ToolDefinition
from ._errors import DefinitionError, NameTakenError, UnknownCapabilityError, quote

__all__ = [
    "NAME_PATTERN",
    "acting_capabilities",
    "input_schema_of",
    "is_critical",
    "parse_tool_definition",
    "sections",
    "validate_tool_definition",
]

NAME_PATTERN: Final = re.compile(r"[a-z][a-z0-9_]{2,63}")
_READ_GAME: Final = CapabilityId.READ_GAME.value


def parse_tool_definition(text: str | bytes) -> ToolDefinition:
    """Decodes and validates ``RegisterTool``'s ``definitionJson``."""
    return validate_tool_definition(decode_tool_definition(text))


def validate_tool_definition(definition: ToolDefinition) -> ToolDefinition:
    """Checks a decoded definition against the contract's rules and returns it normalised."""
    name = definition.name
    if not NAME_PATTERN.fullmatch(name):
        raise DefinitionError(
            f"Invalid tool name {quote(name)}: use 3–64 characters a-z, 0-9 and _, starting with a letter, "
            'and prefix it with your plugin\'s name (e.g. "myplugin_do_thing").'
        )
    if name in BUILTIN_TOOL_NAMES:
        raise NameTakenError(name, by_xivmcp=True)

    description = definition.description.strip()
    if not description:
        raise DefinitionError(
            "The tool definition needs a 'description' (it is what the assistant reads to decide when to use the tool)."
        )

    schema = definition.input_schema
    if schema is not None and schema.get("type") != "object":
        raise DefinitionError(
            '\'inputSchema\' must be a JSON schema object with "type": "object", '
            "or left out for a tool without arguments."
        )

    output_schema = definition.output_schema
    if output_schema is not None and output_schema.get("type") != "object":
        raise DefinitionError(
            '\'outputSchema\' must be a JSON schema object with "type": "object" (the shape of the result, '
            "which MCP carries as structuredContent), or left out for a tool whose result is not an object."
        )

    if definition.read_only and definition.destructive:
        raise DefinitionError(
            "A tool can't be both readOnly and destructive: a read-only tool changes nothing. Drop one of the two."
        )

    declared: list[str] = []
    for capability in definition.capabilities:
        if find_capability(capability) is None:
            raise UnknownCapabilityError(capability, CAPABILITY_IDS)
        if capability not in declared:
            declared.append(capability)
    acting = [c for c in declared if c != _READ_GAME]

    if definition.read_only and acting:
        raise DefinitionError(
            f"A read-only tool can't declare {', '.join(acting)}; drop readOnly or those capabilities."
        )
    if not definition.read_only and not acting:
        raise DefinitionError(
            "A tool that isn't readOnly must declare its 'capabilities' (what it does, e.g. "
            '["move_character", "spend_gil"]), so the player can decide what to allow. '
            'A tool that changes nothing sets "readOnly": true instead.'
        )
    return msgspec.structs.replace(definition, description=description, capabilities=[_READ_GAME, *acting])


def input_schema_of(definition: ToolDefinition) -> dict[str, Any]:
    """The schema to advertise: the tool's own, or an empty object schema for a tool without arguments."""
    if definition.input_schema is None:
        return {"type": "object", "properties": {}}
    return definition.input_schema


def acting_capabilities(definition: ToolDefinition) -> tuple[str, ...]:
    """The capabilities a tool declares beyond reading, in declaration order, without duplicates."""
    return tuple(dict.fromkeys(c for c in definition.capabilities if c != _READ_GAME))


def sections(definition: ToolDefinition) -> tuple[str, ...]:
    """What a call is gated on: the acting capabilities, or reading alone for a tool that only reads."""
    return acting_capabilities(definition) or (_READ_GAME,)


def is_critical(definition: ToolDefinition) -> bool:
    """Whether the tool declares a critical capability, so it is asked every time."""
    return any((cap := find_capability(c)) is not None and cap.risk is Risk.CRITICAL for c in definition.capabilities)
