"""The plugin-side client: the Python counterpart of the contract's `XivMcpClient.cs`.

    async with XivMcpClient("MyPlugin") as mcp:
        mcp.add_tool(ToolDefinition(name="myplugin_status", description="…", read_only=True),
                     lambda args: {"following": None})
        mcp.add_long_running_tool(definition, farm)      # async def farm(call: McpCall) -> object
        await anyio.sleep_forever()

It provides `<InternalName>.XivMcp.Invoke` and `.Cancel` (for XIV MCP alone), registers every tool whenever XIV
MCP says `Ready` (so again after each host restart), stops running calls on `Disposing`, and
turns a handler's `McpToolError` into its message and any other exception into
"TypeName: message". It works whether or not the host is running. The module is long because it
is one class, as `XivMcpClient.cs` is: its registration, calls and progress share the client's state.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.abc
import msgspec
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from broker import IpcError, PluginInterface, connect
from gates.contract import (
    API_VERSION,
    HOST_NAME,
    MANIFEST_GATE,
    DeclaredTool,
    DependencyDeclaration,
    Gate,
    HostReplyError,
    Message,
    Mode,
    PluginGate,
    PluginManifest,
    PluginState,
    StatusReply,
    ToolDefinition,
    decode_host_reply,
    encode_json,
    find_bus,
    plugin_gate,
)

from ._call import CallCancelledError, McpCall, McpToolError, error_text
from ._entry import bus_keys
from ._jobs import JobsMixin

__all__ = ["XivMcpClient"]

log = logging.getLogger("gates.plugin")


def _log_bug(plugin: str, tool: str, exc: Exception) -> None:
    """An exception other than McpToolError is a bug in the tool: the assistant gets "Type: message",
    the plugin's author the traceback on stderr (a refusal the tool meant, McpToolError, is not logged)."""
    if not isinstance(exc, McpToolError):
        log.error(
            "%s: %s raised %s (the assistant got %r)", plugin, tool, type(exc).__name__, error_text(exc), exc_info=exc
        )


PROGRESS_FLUSH_SECONDS = 2.0
"""How long a call's end waits for its progress lines still queued to reach XIV MCP."""

T = TypeVar("T")
QuickHandler = Callable[[dict[str, Any]], Any]
LongHandler = Callable[["McpCall"], Awaitable[Any]]

_decode_args = msgspec.json.Decoder().decode
UNAVAILABLE = "unavailable"


@dataclass(slots=True)
class _Tool:
    definition: ToolDefinition
    quick: QuickHandler | None
    long: LongHandler | None


class XivMcpClient(JobsMixin):
    """A plugin's connection to XIV MCP over the bus, with tools from `ToolDefinition`s and handlers.

    `Plugin` builds one from its functions; use it directly for code ported from C#. Use it as
    `async with XivMcpClient("MyPlugin") as mcp:`; it raises what `broker.connect` raises.
    """

    def __init__(
        self,
        internal_name: str,
        *,
        bus: str | None = None,
        display_name: str | None = None,
        version: str | None = None,
        repo: str | None = None,
    ) -> None:
        """`display_name`, `version` and `repo` are the plugin's manifest, as Dalamud would know it
        in the game: XIV MCP's messages show the display name, and other plugins' dependencies on
        this one are checked against the version (`plugin_outdated`)."""
        self.internal_name = internal_name
        self.bus = bus
        self.manifest = PluginManifest(name=display_name, version=version, repo=repo)
        self._tools: dict[str, _Tool] = {}
        self._dependencies: list[DeclaredTool] | None = None
        self._calls: dict[str, McpCall] = {}
        self._pi: PluginInterface | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._api_version: int | None = None
        self._progress_send: MemoryObjectSendStream[tuple[str, str]] | None = None
        self._progress_queued: dict[str, int] = {}
        """Progress lines queued but not yet handed to XIV MCP, by call id."""
        self._progress_changed = anyio.Event()
        self._failure_hooks: list[Callable[[str], Any]] = []
        self._registered_hooks: list[Callable[[str, str], Any]] = []
        self._registered = anyio.Event()
        self._register_lock = anyio.Lock()

    # --- life cycle -----------------------------------------------------------------------

    async def __aenter__(self) -> XivMcpClient:
        self._cm = self._run()
        await self._cm.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._cm.__aexit__(None, None, None)

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[None]:
        bus = find_bus(self.bus)
        async with (
            connect(bus, self.internal_name, curve=bus_keys(bus)) as pi,
            anyio.create_task_group() as tg,
        ):
            self._pi, self._tg = pi, tg
            send, receive = anyio.create_memory_object_stream[tuple[str, str]](1000)
            self._progress_send = send
            tg.start_soon(self._send_progress, receive)
            # Invoke and Cancel are XIV MCP's alone (S1): any other process is refused by the
            # framework, and nothing runs (past the player's modes, approvals and audit).
            pi.get_ipc_provider(
                plugin_gate(self.internal_name, PluginGate.INVOKE), params=(str, str, str), returns=str
            ).register_func(self._on_invoke, callers=(HOST_NAME,))
            pi.get_ipc_provider(plugin_gate(self.internal_name, PluginGate.CANCEL), params=(str,)).register_action(
                self._on_cancel, callers=(HOST_NAME,)
            )
            pi.get_ipc_subscriber(Message.READY).subscribe(self._on_ready)
            pi.get_ipc_subscriber(Message.DISPOSING).subscribe(self._on_disposing)
            pi.on_connection_change(self._on_connection)
            if pi.get_ipc_subscriber(Gate.IS_READY).has_function():
                tg.start_soon(self._register_all)
            try:
                yield
            finally:
                await self.aclose()
                self._progress_send = None
                send.close()  # and `_send_progress` closes its end
                tg.cancel_scope.cancel()

    async def aclose(self) -> None:
        """Unregister everything (XIV MCP's side) and stop running calls."""
        self._cancel_all()
        if self._pi is not None and self.is_available:
            with anyio.move_on_after(2), anyio.CancelScope(shield=True):
                try:
                    await self.host_call(Gate.UNREGISTER_ALL, self.internal_name)
                except (IpcError, HostReplyError):
                    pass

    @property
    def pi(self) -> PluginInterface:
        """The client's connection to the bus; raises `RuntimeError` outside `async with`."""
        if self._pi is None:
            raise RuntimeError("Use the client inside `async with XivMcpClient(...)`.")
        return self._pi

    @property
    def is_available(self) -> bool:
        """XIV MCP is loaded and speaks this API version."""
        return (
            self._pi is not None
            and self._pi.get_ipc_subscriber(Gate.IS_READY).has_function()
            and self._api_version in (None, API_VERSION)
        )

    def on_registration_failed(self, hook: Callable[[str], Any]) -> None:
        """Call `hook(message)` with XIV MCP's message whenever it rejects a definition."""
        self._failure_hooks.append(hook)

    def on_registered(self, hook: Callable[[str, str], Any]) -> None:
        """Call `hook(tool_name, state)` each time XIV MCP accepted a tool's registration; `state`
        is your plugin's state in its reply (`undecided`, `enabled`, `awaiting_consent`, …)."""
        self._registered_hooks.append(hook)

    async def wait_registered(self) -> None:
        """Wait until every tool was sent to XIV MCP at least once."""
        await self._registered.wait()

    # --- tools ----------------------------------------------------------------------------

    def add_tool(self, definition: ToolDefinition, handler: QuickHandler) -> None:
        """A tool that answers at once: `handler(args)` returns the result (may be async)."""
        self._add(_Tool(definition, handler, None))

    def add_long_running_tool(self, definition: ToolDefinition, handler: LongHandler) -> None:
        """A tool that may take long: `await handler(call)`; see `McpCall`."""
        self._add(_Tool(definition, None, handler))

    def _add(self, tool: _Tool) -> None:
        self._tools[tool.definition.name] = tool
        # Before the first registration, `_register_all` sends it with the rest.
        if self._tg is not None and self._registered.is_set() and self.is_available:
            self._tg.start_soon(self._register_one, tool)

    async def remove_tool(self, name: str) -> bool:
        """Stop offering tool `name`; whether XIV MCP had it (False while XIV MCP is unavailable)."""
        self._tools.pop(name, None)
        if not self.is_available:
            return False
        reply = await self.host_call(Gate.UNREGISTER_TOOL, self.internal_name, name)
        return bool(reply.get("removed"))

    async def uses_tools(self, *dependencies: DeclaredTool) -> list[dict[str, Any]]:
        """Declare the tools your jobs use; replaces the previous declaration."""
        self._dependencies = list(dependencies)
        if not self.is_available:
            return []
        reply = await self.host_call(
            Gate.DECLARE_DEPENDENCIES, self.internal_name, encode_json(DependencyDeclaration(tools=self._dependencies))
        )
        deps: list[dict[str, Any]] = reply.get("dependencies", [])
        return deps

    async def get_status(self) -> StatusReply | None:
        """Your state in XIV MCP, or None while XIV MCP is unavailable."""
        if not self.is_available:
            return None
        text = await self.pi.get_ipc_subscriber(Gate.GET_STATUS).invoke_func(self.internal_name)
        return decode_host_reply(text, StatusReply)

    async def check_permission(self, capability: str) -> Mode:
        """Allow, ask or deny for one capability (deny unless enabled or while unavailable)."""
        if not self.is_available:
            return Mode.DENY
        reply = await self.host_call(Gate.CHECK_PERMISSION, self.internal_name, capability)
        return Mode(reply.get("mode", "deny"))

    async def state(self) -> str:
        """Your plugin's state in XIV MCP (`enabled`, `undecided`, …), or `unavailable` without it."""
        status = await self.get_status()
        return UNAVAILABLE if status is None else PluginState(status.state).value

    # --- registration ---------------------------------------------------------------------

    def _on_connection(self, connected: bool) -> None:
        """Back on the bus (a broker restart, a freeze, a blip): register again (B3). The same
        definitions again are never growth, so a host that still had them changes nothing."""
        if connected and self._tg is not None and self._registered.is_set():
            self._tg.start_soon(self._register_all)

    def _on_ready(self, *_: object) -> None:
        if self._tg is not None:
            self._tg.start_soon(self._register_all)

    async def _register_all(self) -> None:
        async with self._register_lock:
            try:
                self._api_version = await self.pi.get_ipc_subscriber(Gate.API_VERSION).invoke_func()
            except IpcError as exc:
                log.info("%s: XIV MCP is not available yet (%s)", self.internal_name, exc)
                return
            if self._api_version != API_VERSION:
                self._failed(f"XIV MCP speaks API version {self._api_version}; this client needs {API_VERSION}.")
                return
            await self._declare_manifest()
            sent: set[str] = set()
            while todo := [t for name, t in self._tools.items() if name not in sent]:
                for tool in todo:  # tools added meanwhile are picked up by the next round
                    sent.add(tool.definition.name)
                    await self._register_one(tool)
            if self._dependencies is not None:
                await self.uses_tools(*self._dependencies)
            self._registered.set()

    async def _declare_manifest(self) -> None:
        """Tell the simulator's host what Dalamud would (display name, version, repo) before registering.

        A host without the gate (the real XIV MCP reads Dalamud's plugin list instead) is skipped."""
        gate = self.pi.get_ipc_subscriber(MANIFEST_GATE)
        if not gate.has_function():
            return
        try:
            await self.host_call(MANIFEST_GATE, self.internal_name, encode_json(self.manifest))
        except (HostReplyError, IpcError) as exc:
            self._failed(f"XIV MCP refused the plugin's manifest: {exc}")

    async def _register_one(self, tool: _Tool) -> None:
        try:
            reply = await self.host_call(Gate.REGISTER_TOOL, self.internal_name, encode_json(tool.definition))
        except HostReplyError as exc:
            self._failed(str(exc))
            return
        except IpcError as exc:
            self._failed(f"Could not register {tool.definition.name}: {exc}")
            return
        for hook in list(self._registered_hooks):
            try:
                hook(tool.definition.name, str(reply.get("state", "")))
            except Exception:
                log.exception("%s: an on_registered hook failed", self.internal_name)

    def _failed(self, message: str) -> None:
        log.warning("%s: XIV MCP rejected a tool: %s", self.internal_name, message)
        for hook in list(self._failure_hooks):
            hook(message)

    async def host_call(self, gate: str, *args: str) -> dict[str, Any]:
        """Call one of XIV MCP's gates and decode its JSON reply; raises `HostReplyError` with its refusal."""
        text = await self.pi.get_ipc_subscriber(gate).invoke_func(*args)
        return decode_host_reply(text, dict[str, Any])

    # --- calls ----------------------------------------------------------------------------

    async def _on_invoke(self, call_id: str, tool_name: str, args_json: str) -> str:
        tool = self._tools.get(tool_name)
        if tool is None:
            return encode_json({"error": f"{self.internal_name} has no tool named {tool_name!r}."})
        try:
            args = _decode_args(args_json) if args_json and args_json.strip() else {}
        except msgspec.DecodeError as exc:
            return encode_json({"error": f"The arguments are not valid JSON: {exc}."})
        if not isinstance(args, dict):
            return encode_json({"error": "The arguments must be a JSON object."})
        if tool.quick is not None:
            try:
                result = tool.quick(args)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as exc:
                _log_bug(self.internal_name, tool_name, exc)
                return encode_json({"error": error_text(exc)})
            return encode_json({"result": result})
        assert tool.long is not None and self._tg is not None
        call = McpCall(self, call_id, tool_name, args)
        self._calls[call_id] = call
        self._tg.start_soon(self._run_long, tool.long, call)
        return encode_json({"pending": True})

    async def _run_long(self, handler: LongHandler, call: McpCall) -> None:
        try:
            result = await handler(call)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._finish(call, None, "Cancelled.")
            raise
        except CallCancelledError:
            await self._finish(call, None, "Cancelled.")
        except Exception as exc:
            _log_bug(self.internal_name, call.tool, exc)
            await self._finish(call, None, error_text(exc))
        else:
            await self._finish(call, result, None)

    async def _finish(self, call: McpCall, result: Any, error: str | None) -> None:
        self._calls.pop(call.id, None)
        # The call's last progress lines go before its end: once XIV MCP has the result, it takes
        # no more lines for the call (and whoever waits would miss "3 of 3").
        with anyio.move_on_after(PROGRESS_FLUSH_SECONDS):
            while self._progress_queued.get(call.id):
                await self._progress_changed.wait()
        self._progress_queued.pop(call.id, None)
        try:
            if error is None:
                reply = await self.host_call(Gate.COMPLETE_CALL, call.id, encode_json(result))
            else:
                reply = await self.host_call(Gate.FAIL_CALL, call.id, error)
        except (IpcError, HostReplyError) as exc:
            log.warning("%s: could not finish call %s: %s", self.internal_name, call.id, exc)
            return
        if reply.get("accepted") is False:  # XIV MCP had the call's end already: this one changed nothing
            log.warning("%s: XIV MCP had already ended call %s of %s", self.internal_name, call.id, call.tool)

    def _on_cancel(self, call_id: str) -> None:
        call = self._calls.get(call_id)
        if call is not None:
            call.cancelled.set()

    def _on_disposing(self, *_: object) -> None:
        self._cancel_all()

    def _cancel_all(self) -> None:
        for call in list(self._calls.values()):
            call.cancelled.set()

    def queue_progress(self, call_id: str, text: str) -> None:
        """Queue a progress line for call `call_id` (what `McpCall.progress` does); never waits."""
        if self._progress_send is not None:
            try:
                self._progress_send.send_nowait((call_id, text))
                self._progress_queued[call_id] = self._progress_queued.get(call_id, 0) + 1
            except anyio.WouldBlock:
                log.warning("%s: dropped a progress line (too many queued)", self.internal_name)

    async def _send_progress(self, receive: MemoryObjectReceiveStream[tuple[str, str]]) -> None:
        with receive:
            async for call_id, text in receive:
                try:
                    await self.host_call(Gate.REPORT_PROGRESS, call_id, text)
                except (IpcError, HostReplyError) as exc:
                    log.info("%s: progress line not recorded: %s", self.internal_name, exc)
                finally:
                    if call_id in self._progress_queued:
                        self._progress_queued[call_id] -= 1
                    changed, self._progress_changed = self._progress_changed, anyio.Event()
                    changed.set()
