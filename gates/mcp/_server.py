"""The MCP front: XIV MCP's tools and caches on the official `mcp` package's low-level server (A1, A2, A9).

    tools/list      the tools listed now by the real host's rules (`OfferedTools`), by name, 100 a page
    tools/call      Host.call_tool: the gate (allow / ask / deny), then the plugin's Invoke;
                    a refused or failed call is an isError result, an unknown tool a JSON-RPC error
    resources/*     each cache as xiv://cache/<id>, in the real host's shapes (`_caches.py`)

What the assistant sees is what the real host shows it (F3, `XivMcp/Mcp/McpServer.cs`): each tool's
name, description, inputSchema and annotations (readOnlyHint, destructiveHint, openWorldHint false),
ordered by name; a result as one text content (a string of XIV MCP's own tools as it is, anything else,
and every plugin result, as JSON text) with no structuredContent, then its images if any
(take_screenshot's: a caption text, then the PNG as an image content); an unknown tool as `-32602
"Unknown tool: {name}"`; no progress notifications. The simulator's extensions
(`HostConfig.simulator_extensions`: outputSchema and structuredContent, a plugin's string as plain text,
progress as notifications/progress) are added only when the host runs with them.

`Handlers` holds one method per request kind, over the host; `ToolList` keeps the MCP `Tool`s
of what is listed, built again only when that changes. No protocol is written here: the
package owns sessions, both protocol eras and the wire. What changes is pushed by
`_notify.Notifier`; the HTTP side (token, origins, the client going away) is `_http.py`.
Cancelling a call (notifications/cancelled, a session that ends, or the HTTP guard seeing the
client go) cancels the task awaiting Host.call_tool, so the plugin gets Cancel. With the
extensions, progress lines (ReportProgress) become notifications/progress for callers that sent
a progressToken: on the GET stream for 2025-era sessions, whose JSON responses cannot carry them.

tools/call is the hot path: a call without progress runs in the handler's own task, with no
stream and no task of its own; the client going away reaches it through `ClientGone`, which
cancels the call's scope directly.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable, Hashable
from importlib import metadata
from typing import Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gates.contract import HOST_NAME, input_schema_of
from gates.host import CallOutcome, Host, OfferedTool

from ._caches import CacheResources
from ._notify import Notifier

__all__ = ["CLIENT_GONE", "PAGE_SIZE", "ClientGone", "Handlers", "ToolList", "build_server", "json_text", "result_text"]

log = logging.getLogger("gates.mcp")

PAGE_SIZE: Final = 100
MADE_TOOLS: Final = 20_000
"""MCP `Tool`s kept for tools/list (4 times the most tools bench.scale registers)."""
PROGRESS_BUFFER: Final = 256
CLIENT_GONE: Final = "xivmcp.client_gone"
"""ASGI scope key: the `ClientGone` of that POST, which the HTTP guard sets when its client goes away."""

INSTRUCTIONS: Final = (
    "XIV MCP runs tools in FINAL FANTASY XIV: its own (core) and those third-party plugins add. "
    "list_toolsets and search_tools find tools without listing them all; call_tool runs one by name. "
    "The player decides what may run: some tools ask them first, and a refusal says what to do instead."
)


class ClientGone:
    """Set once the client of one POST has gone away: cancels that POST's calls under way.

    The calls hand it their cancel scope (`cancels`) instead of each watching in a task of their own.
    """

    __slots__ = ("_event", "_scopes", "is_set")

    def __init__(self) -> None:
        self.is_set = False
        self._scopes: set[anyio.CancelScope] = set()
        self._event: anyio.Event | None = None

    def set(self) -> None:
        if self.is_set:
            return
        self.is_set = True
        for scope in self._scopes:
            scope.cancel()
        if self._event is not None:
            self._event.set()

    async def wait(self) -> None:
        if not self.is_set:
            if self._event is None:
                self._event = anyio.Event()
            await self._event.wait()

    def cancels(self, scope: anyio.CancelScope) -> None:
        """Cancel `scope` when the client goes away (at once if it has); `forget` it when the call ends."""
        if self.is_set:
            scope.cancel()
        self._scopes.add(scope)

    def forget(self, scope: anyio.CancelScope) -> None:
        self._scopes.discard(scope)


def _version() -> str:
    try:
        return metadata.version("xivmcp-bus")
    except metadata.PackageNotFoundError:
        return "0"


class _XivServer(Server[Any]):
    """The package's low-level server, advertising `listChanged` to 2025-era sessions (the session
    manager builds their initialize result from the defaults, which would say false)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


def _tool(offered: OfferedTool, extensions: bool) -> types.Tool:
    """A list entry as the real host's `McpTool.ToListEntry`; the outputSchema only as an extension."""
    d = offered.definition
    return types.Tool(
        name=d.name,
        description=offered.description,
        input_schema=input_schema_of(d),
        output_schema=offered.output_schema if extensions else None,
        annotations=types.ToolAnnotations(
            read_only_hint=d.read_only, destructive_hint=d.destructive, open_world_hint=False
        ),
    )


def json_text(value: Any) -> str:
    """A result as the real host writes it for the assistant: compact JSON (System.Text.Json's
    default), non-ASCII as it is (its relaxed escaping)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def result_text(outcome: CallOutcome, *, extensions: bool = False) -> str:
    """The text content of a successful call: a string of XIV MCP's own tools as it is, anything
    else as JSON text; a plugin's result is always JSON text (a string in quotes), as the real
    host holds it as a JsonNode. With the extensions a plugin's string goes as it is too."""
    value = outcome.result
    if isinstance(value, str) and (extensions or not outcome.from_plugin):
        return value
    return json_text(value)


def _content(outcome: CallOutcome, text: str) -> list[types.ContentBlock]:
    """The result's text, then each image's caption (if any) and the image (base64), as `CallTool` has them."""
    content: list[types.ContentBlock] = [types.TextContent(text=text)]
    for image in outcome.images:
        caption = [] if image.caption is None else [types.TextContent(text=image.caption)]
        content += [*caption, types.ImageContent(data=base64.b64encode(image.data).decode(), mime_type=image.mime_type)]
    return content


def _result(outcome: CallOutcome, name: str, has_output_schema: bool, extensions: bool) -> types.CallToolResult:
    if outcome.error is not None:
        return types.CallToolResult(content=[types.TextContent(text=outcome.error)], is_error=True)
    text = result_text(outcome, extensions=extensions)
    if not extensions:
        return types.CallToolResult(content=_content(outcome, text), is_error=False)
    value = outcome.result
    if has_output_schema and not isinstance(value, dict):
        # MCP clients refuse a result without the structuredContent an outputSchema promises.
        error = f"{name} advertises an outputSchema but returned no JSON object; this is a bug in its plugin."
        return types.CallToolResult(content=[types.TextContent(text=error)], is_error=True)
    structured = value if isinstance(value, dict) else None
    return types.CallToolResult(content=_content(outcome, text), structured_content=structured)


def _cursor(params: types.PaginatedRequestParams | None) -> int:
    cursor = params.cursor if params is not None else None
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise MCPError(types.INVALID_PARAMS, f"Invalid cursor {cursor[:40]!r}: pass the nextCursor of the last page.")
    return int(cursor)


class ToolList:
    """tools/list's tools as MCP `Tool`s, ordered by name as the real host orders them: built once
    each time what is listed changes (the host's `OfferedTools.stamp`), not on every request, nor
    on every page of one."""

    def __init__(self, host: Host, *, extensions: bool = False) -> None:
        self._offered = host.offered
        self._extensions = extensions
        self._stamp: Hashable = object()
        """What the list was built for; nothing is equal to this first one."""
        self._tools: list[types.Tool] = []
        self._made: dict[int, tuple[OfferedTool, types.Tool]] = {}
        """Each offered tool's MCP `Tool`, by the identity of its (immutable) definition, so a
        change builds only the tools that are new (one plugin's registration among thousands)."""

    def tools(self) -> list[types.Tool]:
        """The tools listed now (`OfferedTools.all`), by name."""
        stamp = self._offered.stamp()
        if stamp != self._stamp:
            made = [self._made_tool(offered) for offered in self._offered.all()]
            self._tools = sorted(made, key=lambda tool: tool.name)
            self._stamp = stamp
        return self._tools

    def _made_tool(self, offered: OfferedTool) -> types.Tool:
        entry = self._made.get(id(offered.definition))
        if entry is not None and entry[0] == offered:
            return entry[1]
        if len(self._made) >= MADE_TOOLS:
            self._made.clear()  # definitions of plugins long gone: build the current ones again
        tool = _tool(offered, self._extensions)
        self._made[id(offered.definition)] = (offered, tool)
        return tool


class Handlers:
    """XIV MCP's handlers of MCP requests, over one host; `build_server` hands them to the package."""

    def __init__(self, host: Host, notifier: Notifier) -> None:
        self.host = host
        self.notifier = notifier
        self.extensions = host.config.simulator_extensions
        self.tool_list = ToolList(host, extensions=self.extensions)
        self.caches = CacheResources(host, notifier)

    # --- tools ---------------------------------------------------------------------------

    async def list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        tools = self.tool_list.tools()
        start = _cursor(params)
        more = start + PAGE_SIZE < len(tools)
        next_cursor = str(start + PAGE_SIZE) if more else None
        return types.ListToolsResult(tools=tools[start : start + PAGE_SIZE], next_cursor=next_cursor)

    async def call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        name = params.name
        registered = self.host.registry.get(name)
        if registered is None:  # a protocol error, not a tool result, as the real host answers it
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}")
        if registered.owner == HOST_NAME and not self.host.offered.is_available(name):
            # The real host's words for its own tool whose plugin is away; a plugin's hidden tool
            # goes on to the gate instead, "so the refusal says why".
            text = f"'{name}' is not available right now: the plugin it needs is not installed or not loaded."
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        has_output_schema = self.extensions and registered.definition.output_schema is not None
        return await self._call(ctx, name, params.arguments or {}, has_output_schema)

    def input_schema(self, name: str) -> dict[str, Any] | None:
        registered = self.host.registry.get(name)
        return None if registered is None else input_schema_of(registered.definition)

    async def _call(
        self, ctx: ServerRequestContext[Any], name: str, arguments: dict[str, Any], has_output_schema: bool
    ) -> types.CallToolResult:
        # F3: the real host sends no progress notifications; lines go to the job log alone (J5).
        token = progress_token_from_params(ctx.params) if self.extensions else None
        gone: ClientGone | None = getattr(ctx.request, "scope", {}).get(CLIENT_GONE)
        outcome: CallOutcome | None = None
        with anyio.CancelScope() as call_scope:  # the client going away ends this call, not the session
            if gone is not None:
                gone.cancels(call_scope)  # the plugin then gets Cancel
            try:
                if token is None:
                    outcome = await self._run(name, arguments, None)
                else:
                    outcome = await self._run_with_progress(ctx, token, name, arguments)
            finally:
                if gone is not None:
                    gone.forget(call_scope)
        return _result(outcome or CallOutcome(error="Cancelled."), name, has_output_schema, self.extensions)

    async def _run(
        self, name: str, arguments: dict[str, Any], on_progress: Callable[[str], None] | None
    ) -> CallOutcome:
        try:
            return await self.host.call_tool(name, arguments, on_progress=on_progress)
        except Exception as exc:  # a fault of the host itself, in the real host's words
            log.exception("calling %s failed", name)
            return CallOutcome(error=f"Tool '{name}' failed: {type(exc).__name__}: {exc}")

    async def _run_with_progress(
        self, ctx: ServerRequestContext[Any], token: types.ProgressToken, name: str, arguments: dict[str, Any]
    ) -> CallOutcome:
        """Run the call while a task of its own sends its progress lines to the caller."""
        lines, lines_out = anyio.create_memory_object_stream[str](PROGRESS_BUFFER)

        def on_progress(line: str) -> None:
            try:
                lines.send_nowait(line)
            except (anyio.WouldBlock, anyio.ClosedResourceError):
                pass  # a burst beyond the buffer, or after the end: progress is advisory

        async with anyio.create_task_group() as tg:
            tg.start_soon(_forward_progress, ctx, token, lines_out)
            try:
                outcome = await self._run(name, arguments, on_progress)
            finally:
                lines.close()  # _forward_progress sends what is left, then ends
        return outcome

    # --- resources -----------------------------------------------------------------------

    async def list_resources(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        return self.caches.listing()

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> Any:
        """None, as the real host answers (`McpServer.HandleMessage`), rather than "Method not found"."""
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def read_resource(self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> Any:
        return self.caches.read(ctx, params)

    async def subscribe(self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> Any:
        self.caches.subscribe(ctx, params, on=True)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams) -> Any:
        self.caches.subscribe(ctx, params, on=False)
        return types.EmptyResult()


async def _forward_progress(
    ctx: ServerRequestContext[Any], token: types.ProgressToken, lines: anyio.abc.ObjectReceiveStream[str]
) -> None:
    """Send each progress line to the caller, in the form its protocol era reads."""
    count = 0
    async with lines:
        async for line in lines:
            count += 1
            try:
                if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    await ctx.session.report_progress(count, None, line)
                else:
                    await ctx.session.send_progress_notification(token, count, None, line)
            except Exception:  # advisory: a closed stream must not fail the call
                pass


_NEEDS_URI: Final = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})


async def real_words(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """A server middleware: what the real host answers before any handler (`HandleMessage`) in
    its words, where the package would answer in its own: "Method not found: {method}",
    "Missing tool name", "Missing uri", and prompts/list's empty list (without the prompts
    capability, which the real host does not advertise either)."""
    params = ctx.params if isinstance(ctx.params, dict) else {}
    if ctx.request_id is not None:
        if ctx.method == "prompts/list":
            return {"prompts": []}
        if ctx.method == "tools/call" and params.get("name") is None:
            raise MCPError(types.INVALID_PARAMS, "Missing tool name")
        if ctx.method in _NEEDS_URI and params.get("uri") is None:
            raise MCPError(types.INVALID_PARAMS, "Missing uri")
    try:
        return await call_next(ctx)
    except MCPError as exc:
        if exc.code == types.METHOD_NOT_FOUND:
            raise MCPError(types.METHOD_NOT_FOUND, f"Method not found: {ctx.method}") from None
        raise


def build_server(host: Host, notifier: Notifier) -> Server[Any]:
    """The low-level server with XIV MCP's handlers, sharing `notifier`'s sessions and listen streams."""
    handlers = Handlers(host, notifier)
    server = _XivServer(
        "XivMcp",
        version=_version(),
        title="XIV MCP",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=handlers.input_schema,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_list_resource_templates=handlers.list_resource_templates,
        on_read_resource=handlers.read_resource,
        on_subscribe_resource=handlers.subscribe,
        on_unsubscribe_resource=handlers.unsubscribe,
        on_subscriptions_listen=notifier.listen,
    )
    server.middleware += [notifier.sessions.middleware, real_words]
    return server
