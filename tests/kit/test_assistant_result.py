"""The kit's `ToolResult` reads a call's result as the assistant does: from the text (F3, K2).

XIV MCP 2 answers with text alone (a result as JSON text, no structuredContent), so a plugin
author's test that reads `result.structured` must get the object from the text; with the
simulator's extensions the structuredContent the host also sends is the same object.
"""

from __future__ import annotations

import mcp_types as types

from gates.testing import ToolResult


def _raw(text: str, *, structured: dict[str, object] | None = None, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured, is_error=is_error
    )


def test_f3_an_object_result_is_read_from_its_json_text() -> None:
    result = ToolResult.of(_raw('{"zone":"Tuliyollal","x":21.4}'))
    assert result.structured == result.value == {"zone": "Tuliyollal", "x": 21.4}
    assert not result.is_error and result.raw.structured_content is None


def test_f3_a_plugins_string_is_json_text_and_the_hosts_own_plain_text() -> None:
    assert ToolResult.of(_raw('"This is a simple text response for testing."')).value == (
        "This is a simple text response for testing."
    )
    plain = ToolResult.of(_raw("hello, Eorzea"))  # echo: XIV MCP's own string, as it is
    assert (plain.value, plain.structured) == ("hello, Eorzea", None)
    assert ToolResult.of(_raw("null")).value is None
    assert ToolResult.of(_raw("[0,1]")).structured is None


def test_f3_an_error_has_its_message_and_no_value() -> None:
    refused = ToolResult.of(_raw('{"looks": "like JSON"}', is_error=True))
    assert refused.is_error and refused.text == '{"looks": "like JSON"}'
    assert refused.value is None and refused.structured is None


def test_f3_with_the_extensions_the_structured_content_is_the_same_object() -> None:
    result = ToolResult.of(_raw('{"kills":3}', structured={"kills": 3}))
    assert result.structured == result.value == {"kills": 3}
