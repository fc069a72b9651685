"""`Plugin`: tools declared from functions, served over the bus by the client or called in-process.

    plugin = Plugin("MyPlugin")

    @plugin.tool(capabilities=["game_ui"])
    def myplugin_set_flag(x: Annotated[float, Meta(ge=1, le=42)], y: float) -> FlagPlaced: ...

    @plugin.long_running_tool(capabilities=["move_character", "combat"])
    async def myplugin_farm(call: McpCall, minutes: int = 60) -> FarmResult: ...

    plugin.run()                                  # a plugin process: --bus, --data-dir, -v
    async with plugin.connected() as client: ...  # the same from async code (jobs, hooks: `client`)
    plugin.call("myplugin_set_flag", {"x": 21.4, "y": 9.8})   # a unit test: no bus, no host (K4)

The decorators return the function itself, so a test may also call it directly. Over the bus and
in-process a call goes the same way: the arguments are bound by `FunctionTool.run`, and an
exception becomes the text the assistant reads (`McpToolError`'s message as it is, any other as
"TypeName: message"), by the same `error_text` the client uses.
"""

from __future__ import annotations

import asyncio
import itertools
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio
import anyio.abc
import msgspec

from gates.contract import Gate, HostReplyError, ToolDefinition, encode_json, escaped

from ._call import CallCancelledError, McpCall, error_text
from ._client import XivMcpClient
from ._declaration import ToolDeclarationError, function_path
from ._entry import parse_command_line, run_on_asyncio
from ._tool import FunctionTool, declare_tool

__all__ = ["Plugin", "ToolOutcome"]

QuickFunction = TypeVar("QuickFunction", bound=Callable[..., object])
LongRunningFunction = TypeVar("LongRunningFunction", bound=Callable[..., Awaitable[object]])
F = TypeVar("F", bound=Callable[..., object])

_DECODE_JSON: Final = msgspec.json.Decoder()
_CANCELLED: Final = "Cancelled."


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a call of `Plugin.call` came to: the result in JSON form, or the error the assistant reads."""

    result: Any = None
    """The result as `Invoke` sends it (Structs as objects, enums as values); None after an error."""
    error: str | None = None
    """The error text the assistant reads, or None when the call succeeded."""
    progress: tuple[str, ...] = ()
    """The lines a long-running tool reported with `call.progress`, in order."""

    @property
    def structured(self) -> dict[str, Any] | None:
        """The ``structuredContent`` the MCP front gives the assistant: the result when it is an object."""
        return self.result if self.error is None and isinstance(self.result, dict) else None


class Plugin:
    """A plugin's tools, declared from functions; one `XivMcpClient` serves them while connected.

    `internal_name` is the plugin's InternalName on the bus (letters, digits and `_`, starting with a
    letter): its gates are `<internal_name>.XivMcp.Invoke` and `.Cancel`, and the player enables it
    by this name. Tools are declared with the decorators, then the plugin runs as a process:

        plugin = Plugin("MyPlugin", display_name="My Plugin", version="1.2.0")

        @plugin.tool(read_only=True)
        def myplugin_status() -> Status:
            \"\"\"Whom My Plugin follows right now, if anyone.\"\"\"

        if __name__ == "__main__":
            plugin.run()
    """

    def __init__(
        self,
        internal_name: str,
        *,
        display_name: str | None = None,
        version: str | None = None,
        repo: str | None = None,
    ) -> None:
        """`display_name`, `version` and `repo` are the plugin's manifest, as Dalamud would know it
        (XIV MCP's messages show the display name; dependencies check the version)."""
        self.internal_name = internal_name
        self.display_name = display_name
        self.version = version
        self.repo = repo
        self._tools: dict[str, FunctionTool] = {}
        self._clients: list[XivMcpClient] = []
        self._call_ids = itertools.count(1)

    @property
    def definitions(self) -> list[ToolDefinition]:
        """Every tool's definition, in declaration order, as it is sent to ``XivMcp.RegisterTool``."""
        return [tool.definition for tool in self._tools.values()]

    def tool(
        self,
        function: None = None,
        *,
        name: str | None = None,
        read_only: bool = False,
        destructive: bool = False,
        capabilities: Sequence[str] = (),
    ) -> Callable[[QuickFunction], QuickFunction]:
        """Declare a tool that answers at once (``def`` or ``async def``); returns the function unchanged.

        `read_only=True` for a tool that changes nothing, else `capabilities` (ids of the catalog,
        such as "game_ui") say what it does; `destructive=True` marks what cannot be undone.
        `name` is the tool's name (default: the function's, in snake_case): 3 to 64 characters a-z,
        0-9 and _, prefixed with the plugin's name, as `myplugin_status`. The description and each
        argument's come from the docstring, the input schema from the parameters' annotations, the
        output schema from the return annotation.
        `function` is there only to refuse ``@plugin.tool`` without parentheses, with what to write.

        Raises `ToolDeclarationError`, at import, naming the function and what to write instead.
        """
        if function is not None:
            _refuse_bare(function, "tool")
        return self._declarer(name, read_only, destructive, capabilities, long_running=False)

    def long_running_tool(
        self,
        function: None = None,
        *,
        name: str | None = None,
        read_only: bool = False,
        destructive: bool = False,
        capabilities: Sequence[str] = (),
    ) -> Callable[[LongRunningFunction], LongRunningFunction]:
        """Declare a tool that may take long: ``async def tool(call: McpCall, ...)``; returns it unchanged.

        XIV MCP gets ``{"pending": true}`` at once and the result when the coroutine returns; the
        call reports progress, asks for approvals and sees cancellation through `call`. The other
        arguments are those of `tool`, and so is the `ToolDeclarationError` a mistake raises.
        `function` is there only to refuse ``@plugin.long_running_tool`` without parentheses.

            @plugin.long_running_tool(capabilities=["move_character"])
            async def myplugin_patrol(call: McpCall, laps: int = 3) -> Patrolled:
                for lap in range(laps):
                    call.progress(f"lap {lap + 1} of {laps}")
                    await call.sleep(30)   # raises CallCancelledError when the call is cancelled
        """
        if function is not None:
            _refuse_bare(function, "long_running_tool")
        return self._declarer(name, read_only, destructive, capabilities, long_running=True)

    def _declarer(
        self, name: str | None, read_only: bool, destructive: bool, capabilities: Sequence[str], *, long_running: bool
    ) -> Callable[[F], F]:
        def declare(func: F) -> F:
            self._add(
                declare_tool(
                    func,
                    name=name,
                    read_only=read_only,
                    destructive=destructive,
                    capabilities=capabilities,
                    long_running=long_running,
                )
            )
            return func

        return declare

    def _add(self, tool: FunctionTool) -> None:
        name = tool.definition.name
        if (other := self._tools.get(name)) is not None:
            raise ToolDeclarationError(
                tool.function,
                f"{other.function.__name__} ({function_path(other.function)}) already declares the "
                f"tool {name!r} in {self.internal_name}; give one of them another name (name=...).",
            )
        self._tools[name] = tool
        for client in self._clients:  # declared while connected: XIV MCP hears of it now (T7)
            _serve_with(client, tool)

    # --- in-process calls (K4) --------------------------------------------------------------

    def call(self, name: str, arguments: dict[str, Any] | None = None, *, approve: bool = True) -> ToolOutcome:
        """Run a tool here, as XIV MCP would have it run, with no bus and no host; for sync code.

        Arguments go through JSON first, as they would over the bus. `approve` is the player's
        answer to every `call.request_approval` of the call. From async code use `call_async`.
        """
        if _loop_running():
            raise RuntimeError(
                f"Plugin.call({name!r}) runs an event loop of its own, and this thread already runs one; "
                f"from async code write `await plugin.call_async({name!r}, ...)`."
            )
        return anyio.run(self._call_in_process, name, arguments, approve)

    async def call_async(
        self, name: str, arguments: dict[str, Any] | None = None, *, approve: bool = True
    ) -> ToolOutcome:
        """`call`, for a test that already runs an event loop."""
        return await self._call_in_process(name, arguments, approve)

    async def _call_in_process(self, name: str, arguments: dict[str, Any] | None, approve: bool) -> ToolOutcome:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none yet"
            raise LookupError(f"{self.internal_name} has no tool named {name!r}; its tools are: {known}.")
        sent: dict[str, Any] = _DECODE_JSON.decode(encode_json(arguments or {}))
        host = _InProcessHost(approve)
        call = McpCall(host, f"{self.internal_name}-local-{next(self._call_ids)}", name, sent)
        try:
            result = await tool.run(sent, call if tool.long_running else None)
        except CallCancelledError:
            return ToolOutcome(error=_CANCELLED, progress=tuple(host.progress))
        except Exception as exc:
            return ToolOutcome(error=error_text(exc), progress=tuple(host.progress))
        return ToolOutcome(result=result, progress=tuple(host.progress))

    # --- on the bus -------------------------------------------------------------------------

    @property
    def client(self) -> XivMcpClient:
        """The plugin's connection while it serves (`run` or `connected`): its `pi` reaches any other
        gate on the bus, the game's among them (``GameClient(plugin.client.pi)``). Outside, for
        example in `plugin.call` without a bus, there is none: RuntimeError says so."""
        if not self._clients:
            raise RuntimeError(
                f"{self.internal_name} is not connected to the bus: `plugin.client` exists while `plugin.run()` "
                "or `async with plugin.connected():` serves the tools (plugin.call runs them without a bus)."
            )
        return self._clients[-1]

    @asynccontextmanager
    async def connected(self, bus: str | None = None) -> AsyncIterator[XivMcpClient]:
        """Serve the tools over the bus while the block runs; the client is there for jobs and hooks.

        `bus` is found as the commands find it when None ($XIVMCP_BUS, else the running host's).
        """
        client = XivMcpClient(
            self.internal_name, bus=bus, display_name=self.display_name, version=self.version, repo=self.repo
        )
        for tool in self._tools.values():
            _serve_with(client, tool)
        async with client:
            self._clients.append(client)
            try:
                yield client
            finally:
                self._clients.remove(client)

    def run(self, *, bus: str | None = None, argv: Sequence[str] | None = None) -> None:
        """Serve the tools until Ctrl-C or SIGTERM: the entry point of a plugin process (``plugin.run()``).

        Either ends the process as leaving the bus does: running calls are cancelled (their
        ``finally`` blocks run), the tools go with the process, and it exits with status 0.

        Without `bus`, the command line says where (``--bus``, ``--data-dir``, ``-v``; from
        `argv`, by default the process's own); with `bus`, the command line is not read.
        """
        if bus is None:
            bus = parse_command_line(self.internal_name, argv)
        run_on_asyncio(self._serve, bus, name=self.internal_name)

    async def _serve(self, bus: str) -> None:
        name = self.internal_name
        async with anyio.create_task_group() as tg:
            await tg.start(_stop_on_sigterm, tg.cancel_scope)  # before joining: a SIGTERM at once is heard
            async with self.connected(bus) as client:
                # What the samples say, for the person who started it and for a test that waits for
                # "NAME: registered N tools" (`gates.testing`'s plugin processes).
                _say(f"{name}: connected to {client.pi.endpoint}")
                client.on_registration_failed(lambda message: _say(f"{name}: XIV MCP refused a tool: {message}"))
                await client.wait_registered()
                count = len(self._tools)
                _say(f"{name}: registered {count} tool{'' if count == 1 else 's'}")
                await anyio.sleep_forever()


def _say(line: str) -> None:
    print(escaped(line), flush=True)  # a refusal quotes the plugin's own text: one line (S3)


async def _stop_on_sigterm(scope: anyio.CancelScope, *, task_status: anyio.abc.TaskStatus[None]) -> None:
    """SIGTERM (a service manager, `kill PID`) stops the plugin as Ctrl-C does. Windows has no
    such signal for a console process: Ctrl-C and Ctrl-Break arrive as KeyboardInterrupt there."""
    if sys.platform == "win32":
        task_status.started()
        return
    with anyio.open_signal_receiver(signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            scope.cancel()
            return


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _serve_with(client: XivMcpClient, tool: FunctionTool) -> None:
    """Hand a declared tool to a client, which registers it and answers its calls."""

    async def answer(arguments: dict[str, Any]) -> object:
        return await tool.run(arguments, None)

    async def run_long(call: McpCall) -> object:
        return await tool.run(call.args, call)

    if tool.long_running:
        client.add_long_running_tool(tool.definition, run_long)
    else:
        client.add_tool(tool.definition, answer)


def _refuse_bare(function: Callable[..., object], decorator: str) -> None:
    raise ToolDeclarationError(
        function,
        f"@plugin.{decorator} needs to be called, with what the tool does: write "
        f"@plugin.{decorator}(read_only=True) for a tool that changes nothing, or @plugin.{decorator}("
        'capabilities=["game_ui"]) for one that acts.',
    )


class _InProcessHost:
    """What an `McpCall` run by `Plugin.call` asks XIV MCP for, answered here: progress is kept,
    approvals get the test's answer, and any other gate says it needs a real host."""

    def __init__(self, approve: bool) -> None:
        self.approve = approve
        self.progress: list[str] = []

    def queue_progress(self, call_id: str, text: str) -> None:
        self.progress.append(text)

    async def host_call(self, gate: str, *args: str) -> dict[str, Any]:
        if gate in (Gate.REQUEST_APPROVAL, Gate.GET_APPROVAL):
            return {"approvalId": f"{args[0]}-approval", "state": "approved" if self.approve else "denied"}
        raise HostReplyError(
            f"{gate} needs XIV MCP, and a tool run by Plugin.call runs without it; test this part with a "
            "system (`async with plugin.connected(bus)`) instead."
        )
