"""The baseline of bench.mcp: the official `mcp` package's own server, with nothing of ours in it
but the load it gets.

The low-level `Server` with one in-process tool, `echo` (it returns its `text` argument as
TextContent), mounted with `StreamableHTTPSessionManager(json_response=True)` in Starlette and
served by uvicorn exactly as our host serves its endpoint (`gates.mcp.uvicorn_server`), with the
same Host / Origin checks. With `--bus`, `echo` first makes the plugin path's bus round trip
(`rawplugin_echo` through an Invoke gate): bench.mcp's `sdk_bus` target.

RawPlugin keeps its own Invoke for XIV MCP (S1), so the bench's peers make that round trip to
`BenchEcho.XivMcp.Invoke` instead: RawPlugin's very handler, served by a process of its own for
every caller (`role_echo_peer`), with the same signature and payloads.

`role_baseline_server` is the role `python -m bench.mcp --role baseline-server`, `role_echo_peer`
the role `echo-peer`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
from typing import Any

from ._mcp_client import MCP_PATH
from ._proc import on_stdin_eof, report
from ._profile import profiled

ECHO_PEER = "BenchEcho"
ECHO_GATE = f"{ECHO_PEER}.XivMcp.Invoke"
"""RawPlugin's Invoke handler, open to the bench's peers (RawPlugin's own answers XIV MCP alone)."""


def role_echo_peer(args: argparse.Namespace) -> None:
    """`ECHO_GATE`, served by `plugins_sample.raw_gates.RawPlugin.invoke` for every caller; reports
    ready once the broker holds the gate."""
    import anyio

    import broker
    from plugins_sample.raw_gates import RawPlugin

    async def main() -> None:
        async with broker.connect(args.bus, ECHO_PEER) as pi, anyio.create_task_group() as tg:
            provider = pi.get_ipc_provider(ECHO_GATE, params=(str, str, str), returns=str)
            provider.register_func(RawPlugin(pi, tg).invoke)
            await pi.flush()
            report("ready", ECHO_GATE)
            await anyio.sleep_forever()

    with profiled(args.profile, args.role):
        asyncio.run(main())


def role_baseline_server(args: argparse.Namespace) -> None:
    """The low-level `Server` with one in-process tool, `echo`, on Streamable HTTP (JSON responses).

    With `--bus`, `echo` first makes the plugin path's round trip on the bus (the `sdk_bus` target)."""
    import mcp_types as types
    from mcp.server import Server, ServerRequestContext
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp.shared.exceptions import MCPError
    from starlette.applications import Starlette
    from starlette.routing import Route

    echo = types.Tool(
        name="echo",
        description="Returns its 'text' argument unchanged.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        annotations=types.ToolAnnotations(read_only_hint=True),
    )

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        return types.ListToolsResult(tools=[echo])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        if params.name != "echo":
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:80]!r}")
        text = (params.arguments or {}).get("text")
        if invoke is not None:  # sdk_bus: the text comes back from RawPlugin's handler
            reply = await invoke.invoke_func("bench", "rawplugin_echo", json.dumps(params.arguments or {}))
            text = json.loads(reply)["result"]["echo"].get("text")
        return types.CallToolResult(content=[types.TextContent(text=text if isinstance(text, str) else "")])

    import broker

    invoke: broker.CallGateSubscriber | None = None
    server = Server("BenchBaseline", version="1", on_list_tools=list_tools, on_call_tool=call_tool)
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and an
    # accepted socket inherits the listener's; without it Nagle holds h11's body behind its
    # headers until the client's delayed ACK (~40 ms a response on Linux).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    port = sock.getsockname()[1]
    # The same Host / Origin checks as our host's endpoint (loopback names with our port).
    names = ("127.0.0.1", "localhost")
    security = TransportSecuritySettings(
        allowed_hosts=[f"{n}:{port}" for n in names],
        allowed_origins=[f"http://{n}" for n in names] + [f"http://{n}:{port}" for n in names],
    )
    manager = StreamableHTTPSessionManager(app=server, json_response=True, security_settings=security)
    app = Starlette(routes=[Route(MCP_PATH, StreamableHTTPASGIApp(manager))])
    # uvicorn exactly as our host runs it; no lifespan (the manager runs around it).
    from gates.mcp import uvicorn_server

    userver = uvicorn_server(app, lifespan="off")

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def stop_soon() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(setattr, userver, "should_exit", True)

        nonlocal invoke
        on_stdin_eof(stop_soon)
        bus = broker.connect(args.bus, "BenchSdkBus") if args.bus else contextlib.nullcontext(None)
        async with manager.run(), bus as pi:
            if pi is not None:
                invoke = pi.get_ipc_subscriber(ECHO_GATE)
            await userver.startup(sockets=[sock])
            report("ready", f"http://127.0.0.1:{port}{MCP_PATH}")
            await userver.main_loop()
            await userver.shutdown(sockets=[sock])

    with profiled(args.profile, args.role):
        asyncio.run(main())
    sock.close()
