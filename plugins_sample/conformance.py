"""Conformance: the fixture tools of the official MCP conformance suite, as a plugin on the bus.

    python -m plugins_sample.conformance --bus tcp://127.0.0.1:37520

`@modelcontextprotocol/conformance` calls fixed tool names, so this plugin registers exactly the
suite's names instead of prefixing them (the host's name rules allow each of them):

* `test_simple_text` (read-only): the text "This is a simple text response for testing.";
* `test_error_handling` (read-only): always fails, so the call is an `isError` result;
* `test_tool_with_progress` (long-running): progress "0/100", "50/100", "100/100" about 50 ms
  apart (a host with `--simulator-extensions` forwards each as notifications/progress to a
  2025-era caller that sent a progressToken; a 2026-07-28 one gets none yet, see
  tests/mcp/test_conformance_plugin.py; the real XIV MCP sends none, F3);
* `json_schema_2020_12_tool` (read-only): advertises the suite's JSON Schema 2020-12 input schema
  (`$schema`, `$defs`, `$ref`, `additionalProperties`) and echoes its arguments.

The suite checks MCP as a whole, which is more than the real XIV MCP passes on (it would send
`test_simple_text`'s string as JSON text, in quotes, and no progress), so the suite runs against a
host with the simulator's extensions. Its other fixtures cannot be served through the host: its
tools/call turns every result into one text content (image, audio and embedded-resource content
are not possible), and it offers no logging, sampling or elicitation to a plugin. Nor is
`test_reconnection` (server-sse-polling): closing the SSE stream mid-call is the transport's part,
and the host answers that call with JSON.
`scripts/conformance.py` says so per scenario.

It prints "Conformance: registered NAME (STATE)" for each tool XIV MCP accepted, then "Conformance:
ready" once XIV MCP has accepted all four (or which are missing), for people and for scripts.
"""

from __future__ import annotations

from typing import Any, Final

import anyio

from gates.plugin import McpCall, McpToolError, ToolDefinition, XivMcpClient

from ._run import parse_args, run, say

NAME: Final = "Conformance"

SIMPLE_TEXT: Final = "This is a simple text response for testing."
ERROR_TEXT: Final = "This tool intentionally returns an error for testing"
PROGRESS_STEPS: Final = (0, 50, 100)
PROGRESS_PAUSE: Final = 0.05
"""Seconds between progress lines ("~50ms", as the suite asks)."""
PROGRESS_DONE: Final = "Tool with progress completed."

SCHEMA_2020_12: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

TOOL_NAMES: Final = ("test_simple_text", "test_error_handling", "test_tool_with_progress", "json_schema_2020_12_tool")


def simple_text(args: dict[str, Any]) -> str:
    return SIMPLE_TEXT


def error_handling(args: dict[str, Any]) -> str:
    raise McpToolError(ERROR_TEXT)


def schema_2020_12(args: dict[str, Any]) -> dict[str, Any]:
    return {"received": args}


async def with_progress(call: McpCall) -> str:
    for i, step in enumerate(PROGRESS_STEPS):
        if i:
            await call.sleep(PROGRESS_PAUSE)
        call.progress(f"{step}/100")  # the client sends the call's last lines before its result
    return PROGRESS_DONE


def build(client: XivMcpClient) -> None:
    client.add_tool(
        ToolDefinition(name="test_simple_text", description="Returns a simple text (conformance).", read_only=True),
        simple_text,
    )
    client.add_tool(
        ToolDefinition(name="test_error_handling", description="Always fails (conformance).", read_only=True),
        error_handling,
    )
    client.add_long_running_tool(
        ToolDefinition(
            name="test_tool_with_progress",
            description="Reports progress 0, 50 and 100 of 100, then answers (conformance).",
            read_only=True,
        ),
        with_progress,
    )
    client.add_tool(
        ToolDefinition(
            name="json_schema_2020_12_tool",
            description="Tool with JSON Schema 2020-12 features",
            input_schema=SCHEMA_2020_12,
            read_only=True,
        ),
        schema_2020_12,
    )


def main() -> None:
    args = parse_args("conformance")

    async def serve() -> None:
        accepted: set[str] = set()

        def registered(tool: str, state: str) -> None:
            accepted.add(tool)
            say(f"{NAME}: registered {tool} ({state})")

        async with XivMcpClient(NAME, bus=args.bus) as client:
            client.on_registration_failed(lambda message: say(f"{NAME}: XIV MCP rejected a tool: {message}"))
            client.on_registered(registered)
            build(client)
            say(f"{NAME}: connected to {client.pi.endpoint}")
            await client.wait_registered()
            missing = ", ".join(name for name in TOOL_NAMES if name not in accepted)
            say(f"{NAME}: not all tools were accepted; missing {missing}" if missing else f"{NAME}: ready")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
