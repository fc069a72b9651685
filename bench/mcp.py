"""Latency and throughput of MCP `tools/call` over Streamable HTTP: the `mcp` package alone, our host, a plugin.

    python -m bench.mcp            # full run: a table and the ratio against the target
    python -m bench.mcp --quick    # a short run
    python -m bench.mcp --json     # the same figures as one JSON object on stdout

Three targets, each served on 127.0.0.1 by uvicorn (h11) with JSON responses, each started fresh
every round, and all measured by THE SAME load generator:

* baseline: the official `mcp` package's low-level `Server` with an in-process `echo` tool (it
  returns its `text` argument as TextContent), mounted with `StreamableHTTPSessionManager(json_response=True)`
  in Starlette, in a child process of its own;
* core:     our host's core tool `echo` ({"text": …}): `python -m xivmcp broker` and
  `python -m xivmcp host --http 127.0.0.1:0 --auto-enable` as children, called with the bearer
  token from the host's data dir;
* plugin:   `rawplugin_echo` of `python -m plugins_sample.raw_gates` on the same host, so each call
  goes HTTP -> host -> broker -> plugin and back; the host also reads the game around each call
  (`python -m xivmcp game` runs beside it, as `xivmcp up` starts it), to judge its side effects.

* sdk_bus:  the baseline server again, whose `echo` makes the plugin path's bus round trip
  (`RawPlugin.XivMcp.Invoke` of `rawplugin_echo`, as a peer of its own) before it answers: what
  awaiting one bus round trip inside an HTTP request costs the SDK's own server, with no host.

With the plugin measured, a peer of its own then calls `RawPlugin.XivMcp.Invoke` directly with the
same payload, sequentially: the bare bus round trip (`bus_median_us`), for the issue 10/10 target
`plugin_median_us <= core_median_us + 1.2 x bus_median_us`. `plugin - sdk_bus` is what the host's
own plugin path adds beyond what the SDK's server pays for the same round trip.

The load generator is a child process too: raw HTTP/1.1 keep-alive connections on asyncio (no
HTTP library in the measured path). Each caller opens its own connection and MCP session
(initialize with protocol 2025-11-25, the Mcp-Session-Id header, notifications/initialized), and
every reply is checked: a JSON-RPC result for that id, not isError, echoing that call's text (so a
misconfigured target cannot look fast). It polls tools/list until the tool is listed, warms up, then:

* 1 caller:   `--n` sequential round trips: median and p99 latency, and calls/s;
* 16 callers: `--calls` calls shared by `--callers` (16) concurrent callers, each its own
  connection and session: calls/s.

Each phase stops early after `--phase-seconds` (a slow target then makes fewer calls, and the
table says so), which bounds a run. The broker, host and plugin are started with no sleeps: the
broker's and host's own stdout lines (`listening on`, `MCP endpoint`, `ready`), the token file
(a bounded retry loop), the plugin's `registered` line, then tools/list polled by the load generator.

Children are `python -m bench.mcp --role ROLE`, `python -m xivmcp …` and `python -m
plugins_sample.raw_gates`; every one is stopped and waited for. `--profile DIR` runs every child
under cProfile (DIR/<role>.prof, figures slower); `--pid-dir DIR` writes their pids for py-spy:

    python -m bench.mcp --targets plugin --phase-seconds 10 --pid-dir /tmp/pids &
    # once /tmp/pids/loadgen-plugin.pid exists (the calls have started):
    py-spy record --pid $(cat /tmp/pids/host.pid) --duration 8 -o host.svg
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import itertools
import json
import logging
import os
import platform
import re
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlsplit

from ._proc import Child, ChildError, Children, on_stdin_eof, report

MODULE = "bench.mcp"
PROTOCOL_VERSION = "2025-11-25"
MCP_PATH = "/mcp"
TEXT_SIZE = 100
"""Characters of the `text` argument of each call (an 8-digit call number, then filler)."""
RATIO_TARGET = 1.3
PLUGIN_PATH_FACTOR = 1.2
"""Issue 10/10: plugin_median_us <= core_median_us + 1.2 x bus_median_us."""

READY_TIMEOUT = 30.0
"""Seconds a server child has to start and report ready (and a tool to be listed)."""
HANDSHAKE_TIMEOUT = 15.0
"""Seconds the load generator has to connect and open a session."""
POLL_SECONDS = 0.05
"""Between two tools/list polls while waiting for a tool to be listed (a bounded retry loop)."""

TARGETS = ("baseline", "core", "plugin", "sdk_bus")
TOOLS = {"baseline": "echo", "core": "echo", "plugin": "rawplugin_echo", "sdk_bus": "echo"}
ON_THE_BUS = ("plugin", "sdk_bus")
"""The targets that need the bus, the game and RawPlugin."""


class Figures(TypedDict):
    median_us: float
    p99_us: float
    rps_1: float
    median_us_16: float
    p99_us_16: float
    rps_16: float
    latency_n: int
    throughput_n: int
    callers: int


def _percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * fraction // 1))
    return sorted_values[int(rank) - 1]


@contextmanager
def _maybe_profile(args: argparse.Namespace) -> Iterator[None]:
    if not args.profile:
        yield
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        os.makedirs(args.profile, exist_ok=True)
        name = args.role if args.target is None else f"{args.role}-{args.target}"
        path = os.path.join(args.profile, f"{name}.prof")
        profiler.dump_stats(path)
        print(f"bench: wrote {path}", file=sys.stderr, flush=True)


# --- baseline: the mcp package's own low-level server ------------------------------------------


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
        if invoke is not None:  # sdk_bus: the text comes back from RawPlugin
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
                invoke = pi.get_ipc_subscriber("RawPlugin.XivMcp.Invoke")
            await userver.startup(sockets=[sock])
            report("ready", f"http://127.0.0.1:{port}{MCP_PATH}")
            await userver.main_loop()
            await userver.shutdown(sockets=[sock])

    with _maybe_profile(args):
        asyncio.run(main())
    sock.close()


# --- the load generator: raw HTTP/1.1 keep-alive, one MCP session per connection ---------------


class BadReply(RuntimeError):
    """The target answered, but not with what a working tools/call returns."""


class McpSession:
    """One keep-alive HTTP/1.1 connection and the MCP session opened on it."""

    def __init__(self, url: str, token: str | None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname is None or parts.port is None:
            raise ValueError(f"need http://HOST:PORT/PATH, got {url!r}")
        self.host, self.port, self.path = parts.hostname, parts.port, parts.path or "/"
        self._auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self._ids = itertools.count(1)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.session_id: str | None = None
        self._head = b""

    def _request_head(self, method: str = "POST") -> bytes:
        session = f"Mcp-Session-Id: {self.session_id}\r\n" if self.session_id else ""
        return (
            f"{method} {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{self._auth}"
            "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
            f"MCP-Protocol-Version: {PROTOCOL_VERSION}\r\n{session}"
        ).encode("latin-1")

    async def open(self, within: float) -> None:
        """Connect (retrying while the port refuses, for a bounded time), then initialize."""
        deadline = time.monotonic() + within
        async with asyncio.timeout(within):
            while True:
                try:
                    self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
                    break
                except ConnectionRefusedError:
                    if time.monotonic() >= deadline:
                        raise
                    await asyncio.sleep(POLL_SECONDS)
            self._head = self._request_head()
            params = {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench-mcp", "version": "1"},
            }
            status, headers, body = await self._post(self._rpc("initialize", params, next(self._ids)))
            reply = _json_reply(status, headers, body)
            if "result" not in reply:
                raise BadReply(f"initialize failed: {reply.get('error')}")
            sid = headers.get(b"mcp-session-id")
            if not sid:
                raise BadReply("initialize answered without an Mcp-Session-Id header")
            self.session_id = sid.decode("latin-1")
            self._head = self._request_head()
            status, _, body = await self._post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            if status not in (200, 202, 204):
                raise BadReply(f"notifications/initialized: HTTP {status} {body[:200]!r}")

    @staticmethod
    def _rpc(method: str, params: dict[str, Any], rid: int) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()

    async def _post(self, body: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
        assert self._writer is not None
        self._writer.write(b"%sContent-Length: %d\r\n\r\n%s" % (self._head, len(body), body))
        return await self._response()

    async def _response(self) -> tuple[int, dict[bytes, bytes], bytes]:
        reader = self._reader
        assert reader is not None
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers: dict[bytes, bytes] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
        length = headers.get(b"content-length")
        if length is not None:
            body = await reader.readexactly(int(length))
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            body = b"".join(chunks)
        elif status in (204, 304) or status < 200:
            body = b""
        else:
            body = await reader.read()  # no length: the body ends with the connection
        return status, headers, body

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A JSON-RPC request; its result (BadReply for an error)."""
        rid = next(self._ids)
        reply = _json_reply(*await self._post(self._rpc(method, params, rid)))
        if reply.get("id") != rid or not isinstance(reply.get("result"), dict):
            raise BadReply(f"{method}: {json.dumps(reply)[:300]}")
        result: dict[str, Any] = reply["result"]
        return result

    def call_body(self, tool: str, text: str) -> tuple[int, bytes]:
        rid = next(self._ids)
        return rid, self._rpc("tools/call", {"name": tool, "arguments": {"text": text}}, rid)

    async def post(self, body: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
        return await self._post(body)

    async def tool_names(self) -> set[str]:
        names: set[str] = set()
        params: dict[str, Any] = {}
        while True:
            result = await self.request("tools/list", params)
            names.update(t.get("name") for t in result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                return names
            params = {"cursor": cursor}

    async def close(self) -> None:
        """End the session (DELETE) and close the connection; quietly, this is clean-up."""
        writer = self._writer
        if writer is None:
            return
        with contextlib.suppress(OSError, asyncio.IncompleteReadError, ValueError, asyncio.TimeoutError):
            if self.session_id is not None:
                async with asyncio.timeout(2.0):
                    writer.write(self._request_head("DELETE") + b"Content-Length: 0\r\n\r\n")
                    await self._response()
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        self._writer = None


def _json_reply(status: int, headers: dict[bytes, bytes], body: bytes) -> dict[str, Any]:
    """The JSON-RPC message of a response: a JSON body, or the last `data:` of an event stream."""
    if status != 200:
        raise BadReply(f"HTTP {status}: {body[:300]!r}")
    if headers.get(b"content-type", b"").startswith(b"text/event-stream"):
        data = [line[5:].strip() for line in body.splitlines() if line.startswith(b"data:")]
        body = data[-1] if data else b""
    try:
        reply = json.loads(body)
    except ValueError as exc:
        raise BadReply(f"not JSON: {body[:300]!r}") from exc
    if not isinstance(reply, dict):
        raise BadReply(f"not a JSON-RPC message: {body[:300]!r}")
    return reply


def check_call(status: int, headers: dict[bytes, bytes], body: bytes, rid: int, text: str) -> None:
    """A tools/call reply must be this call's result, not an isError one, and echo this call's text:
    as the first text content (an `echo` tool) or as {"echo": {"text": …}} (RawPlugin's echo)."""
    reply = _json_reply(status, headers, body)
    result = reply.get("result")
    if reply.get("id") != rid or not isinstance(result, dict):
        raise BadReply(f"tools/call {rid}: not its result: {json.dumps(reply)[:300]}")
    content = result.get("content") or [{}]
    first = content[0].get("text") if isinstance(content[0], dict) else None
    if result.get("isError"):
        raise BadReply(f"tools/call {rid}: isError: {str(first)[:300]}")
    if first != text and result.get("structuredContent") != {"echo": {"text": text}}:
        raise BadReply(f"tools/call {rid}: does not echo its text: {json.dumps(result)[:300]}")


async def _phase(
    sessions: list[McpSession], tool: str, calls: int, seconds: float, numbers: Iterator[int]
) -> tuple[list[int], float]:
    """`calls` tools/call round trips shared by one task per session, or as many as start within
    `seconds` (a slow target still finishes in time); (latencies in ns, elapsed s)."""
    filler = "x" * (TEXT_SIZE - 8)
    perf = time.perf_counter_ns
    latencies: list[int] = []
    remaining = calls
    deadline = perf() + int(seconds * 1e9)

    async def caller(session: McpSession) -> None:
        nonlocal remaining
        while remaining > 0 and perf() < deadline:
            remaining -= 1
            text = f"{next(numbers):08d}{filler}"
            rid, body = session.call_body(tool, text)
            t0 = perf()
            status, headers, reply = await session.post(body)
            latencies.append(perf() - t0)
            check_call(status, headers, reply, rid, text)

    t0 = perf()
    async with asyncio.TaskGroup() as tg:
        for session in sessions:
            tg.create_task(caller(session))
    return latencies, (perf() - t0) / 1e9


async def _wait_for_tool(session: McpSession, tool: str, within: float) -> None:
    """Poll tools/list (a bounded retry loop) until `tool` is listed: a plugin's tool appears once
    the plugin has registered and the host has enabled it."""
    deadline = time.monotonic() + within
    while True:
        names = await session.tool_names()
        if tool in names:
            return
        if time.monotonic() >= deadline:
            raise BadReply(f"{tool!r} not listed within {within:g} s; tools/list has {sorted(names)}")
        await asyncio.sleep(POLL_SECONDS)


def role_loadgen(args: argparse.Namespace) -> None:
    """Open sessions, wait for the tool, warm up, then 1 caller (latency) and `callers` callers (calls/s)."""
    token = Path(args.token_file).read_text(encoding="utf-8").strip() if args.token_file else None
    figures: list[Figures] = []

    async def main() -> None:
        numbers = itertools.count()
        sessions = [McpSession(args.url, token) for _ in range(args.callers)]
        try:
            # One session first; the others open only after the 1-caller phase, so none sits idle
            # long enough for the server's keep-alive timeout (uvicorn: 5 s) to close it.
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                await sessions[0].open(HANDSHAKE_TIMEOUT)
            await _wait_for_tool(sessions[0], args.tool, READY_TIMEOUT)
            warm, cap = args.phase_seconds / 2, args.phase_seconds
            async with asyncio.timeout(_phase_timeout(args)):
                await _phase(sessions[:1], args.tool, args.warmup, warm, numbers)
                lat_1, elapsed_1 = await _phase(sessions[:1], args.tool, args.n, cap, numbers)
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                await asyncio.gather(*(s.open(HANDSHAKE_TIMEOUT) for s in sessions[1:]))
            async with asyncio.timeout(_phase_timeout(args)):
                await _phase(sessions, args.tool, max(args.warmup // 2, 4 * len(sessions)), warm, numbers)
                lat_n, elapsed_n = await _phase(sessions, args.tool, args.calls, cap, numbers)
        finally:
            await asyncio.gather(*(s.close() for s in sessions))
        us_1 = sorted(ns / 1000 for ns in lat_1)
        us_n = sorted(ns / 1000 for ns in lat_n)
        figures.append(
            Figures(
                median_us=statistics.median(us_1),
                p99_us=_percentile(us_1, 0.99),
                rps_1=len(us_1) / elapsed_1,
                median_us_16=statistics.median(us_n),
                p99_us_16=_percentile(us_n, 0.99),
                rps_16=len(us_n) / elapsed_n,
                latency_n=len(us_1),
                throughput_n=len(us_n),
                callers=len(sessions),
            )
        )

    with _maybe_profile(args):
        asyncio.run(main())
    report("result", json.dumps(figures[0]))


def role_bus_client(args: argparse.Namespace) -> None:
    """The bare bus round trip the plugin path makes: `RawPlugin.XivMcp.Invoke` of `rawplugin_echo`
    with the load generator's payload, called by a peer of its own, sequentially."""
    import broker

    payload = json.dumps({"text": "x" * TEXT_SIZE})

    async def main() -> list[int]:
        async with broker.connect(args.bus, "BenchBusClient") as pi:
            invoke = pi.get_ipc_subscriber("RawPlugin.XivMcp.Invoke")
            for i in range(args.warmup):
                await invoke.invoke_func(f"w{i}", "rawplugin_echo", payload)
            times: list[int] = []
            for i in range(args.n):
                started = time.perf_counter_ns()
                await invoke.invoke_func(f"b{i}", "rawplugin_echo", payload)
                times.append(time.perf_counter_ns() - started)
            return times

    with _maybe_profile(args):
        times = asyncio.run(main())
    us = sorted(ns / 1000 for ns in times)
    figures = Figures(
        median_us=statistics.median(us),
        p99_us=_percentile(us, 0.99),
        rps_1=len(us) / (sum(us) / 1e6),
        median_us_16=0.0,
        p99_us_16=0.0,
        rps_16=0.0,
        latency_n=len(us),
        throughput_n=0,
        callers=1,
    )
    report("result", json.dumps(figures))


def _phase_timeout(args: argparse.Namespace) -> float:
    # A failsafe only: generous enough for a slow, busy or profiled machine.
    seconds: float = args.phase_seconds
    return 60.0 + 4 * seconds


# --- the parent: start each target, run the load generator against it --------------------------


def _xivmcp_lines(child: Child, prefixes: Sequence[str], timeout: float) -> dict[str, str]:
    """The rest of the stdout lines `xivmcp PREFIX…`, one per prefix, in whatever order they come
    (other lines go to stderr)."""
    deadline = time.monotonic() + timeout
    found: dict[str, str] = {}
    while len(found) < len(prefixes):
        rest = child.expect("xivmcp", max(0.001, deadline - time.monotonic()))
        prefix = next((p for p in prefixes if p not in found and rest.startswith(p)), None)
        if prefix is None:
            print(f"[{child.role}] xivmcp {rest}", file=sys.stderr, flush=True)
        else:
            found[prefix] = rest[len(prefix) :]
    return found


def run_wrapped(module: str, profile: str) -> None:
    """`python -m module` with sys.argv[1:] under cProfile, written to `profile` at exit (`--profile`).

    Children so started are `python -c "import bench.mcp; bench.mcp.run_wrapped(…)" ARGS…`; nothing
    in the project is edited. SIGTERM raises KeyboardInterrupt until the module installs its own
    handler, so a process without one (the sample plugin) still ends through `finally`.
    """
    import runpy
    import signal

    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.argv = [module, *sys.argv[1:]]
    profiler = cProfile.Profile()
    try:
        profiler.enable()
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except KeyboardInterrupt:
        pass
    finally:
        profiler.disable()
        profiler.dump_stats(profile)
        print(f"bench: wrote {profile}", file=sys.stderr, flush=True)


def _project_command(args: argparse.Namespace, role: str, module: str) -> tuple[str, ...]:
    """`-m module`, or the same through `run_wrapped` under `--profile`."""
    if not args.profile:
        return ("-m", module)
    profile = os.path.join(args.profile, f"{role}.prof")
    return ("-c", f"import {MODULE}; {MODULE}.run_wrapped({module!r}, {profile!r})")


def _read_token(path: Path, timeout: float) -> None:
    """Wait (a bounded retry loop) until the host has written its bearer token."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(FileNotFoundError):
            if path.read_text(encoding="utf-8").strip():
                return
        if time.monotonic() >= deadline:
            raise ChildError(f"no token in {path} within {timeout:g} s")
        time.sleep(POLL_SECONDS)


def _loadgen(children: Children, args: argparse.Namespace, target: str, url: str, token_file: str | None) -> Figures:
    extra = ["--url", url, "--target", target, "--tool", TOOLS[target]]
    extra += ["--warmup", str(args.warmup), "--n", str(args.n)]
    extra += ["--calls", str(args.calls), "--callers", str(args.callers), "--phase-seconds", str(args.phase_seconds)]
    extra += ["--token-file", token_file] if token_file else []
    extra += ["--profile", args.profile] if args.profile else []
    client = children.start("loadgen", *extra)
    if args.pid_dir:
        os.makedirs(args.pid_dir, exist_ok=True)
        Path(args.pid_dir, f"loadgen-{target}.pid").write_text(f"{client.pid}\n", encoding="utf-8")
    try:
        figures: Figures = json.loads(client.expect("result", READY_TIMEOUT + _phase_timeout(args)))
    finally:
        client.stop()
    return figures


def run_baseline(args: argparse.Namespace) -> dict[str, Figures]:
    extra = ["--profile", args.profile] if args.profile else []
    with Children(MODULE) as children:
        url = children.start("baseline-server", *extra, graceful=True).expect("ready", READY_TIMEOUT)
        return {"baseline": _loadgen(children, args, "baseline", url, None)}


def run_host(args: argparse.Namespace, targets: Sequence[str]) -> dict[str, Figures]:
    """Broker, host (and the plugin, if measured) fresh; the load generator against core, then plugin."""
    with tempfile.TemporaryDirectory(prefix="bench-mcp-", ignore_cleanup_errors=True) as tmp:
        data_dir = Path(tmp) / "data"
        out: dict[str, Figures] = {}
        with Children(MODULE) as children:
            bus_child = children.start_command(
                "broker", *_project_command(args, "broker", "xivmcp"), "broker", "--bus", "tcp://127.0.0.1:*"
            )
            listening = _xivmcp_lines(bus_child, ["broker: listening on "], READY_TIMEOUT)["broker: listening on "]
            match = re.match(r"(tcp://\S+)", listening)
            if match is None:
                raise ChildError(f"cannot read the broker's endpoint from {listening!r}")
            bus = match.group(1)
            # The game, as `xivmcp up` starts it: with it, the host reads the game around each plugin
            # call (its side effects, T2), as it does for real.
            game = children.start_command(
                "game", *_project_command(args, "game", "xivmcp"), "game", "--bus", bus, "--test-clock"
            )
            _xivmcp_lines(game, ["game: ready"], READY_TIMEOUT)
            host = children.start_command(
                "host",
                *_project_command(args, "host", "xivmcp"),
                *("host", "--bus", bus, "--data-dir", str(data_dir)),
                *("--http", "127.0.0.1:0", "--auto-enable"),
            )
            # "MCP endpoint http://…/mcp; `xivmcp connect` …" and "ready on tcp://…", in either order.
            lines = _xivmcp_lines(host, ["host: MCP endpoint ", "host: ready"], READY_TIMEOUT)
            endpoint = lines["host: MCP endpoint "].split(";")[0].split()[0]
            token_file = data_dir / "token"
            _read_token(token_file, READY_TIMEOUT)
            if any(t in targets for t in ON_THE_BUS):
                plugin = children.start_command(
                    "plugin", *_project_command(args, "plugin", "plugins_sample.raw_gates"), "--bus", bus
                )
                deadline = time.monotonic() + READY_TIMEOUT
                while True:  # "RawPlugin: connected to …", then "RawPlugin: registered 3 tools"
                    said = plugin.expect("RawPlugin:", max(0.001, deadline - time.monotonic()))
                    if said.startswith("registered"):
                        break
                    print(f"[plugin] RawPlugin: {said}", file=sys.stderr, flush=True)
            if args.pid_dir:  # for py-spy: `py-spy record --pid $(cat DIR/host.pid) …`
                os.makedirs(args.pid_dir, exist_ok=True)
                for child in children.running():
                    Path(args.pid_dir, f"{child.role}.pid").write_text(f"{child.pid}\n", encoding="utf-8")
            for target in ("core", "plugin"):
                if target in targets:
                    out[target] = _loadgen(children, args, target, endpoint, str(token_file))
            if "sdk_bus" in targets:
                extra = ["--profile", args.profile] if args.profile else []
                server = children.start("baseline-server", "--bus", bus, *extra, graceful=True)
                out["sdk_bus"] = _loadgen(children, args, "sdk_bus", server.expect("ready", READY_TIMEOUT), None)
            if "plugin" in targets:
                extra = ["--profile", args.profile] if args.profile else []
                client = children.start(
                    "bus-client", "--bus", bus, "--n", str(args.n), "--warmup", str(args.warmup), *extra
                )
                out["bus"] = json.loads(client.expect("result", _phase_timeout(args)))
        return out


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def summarise(results: dict[str, Figures], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in TARGETS:
        fig = results.get(name)
        out[f"{name}_median_us"] = None if fig is None else round(fig["median_us"], 1)
        out[f"{name}_p99_us"] = None if fig is None else round(fig["p99_us"], 1)
        out[f"{name}_rps_1"] = None if fig is None else round(fig["rps_1"])
        out[f"{name}_rps_{args.callers}"] = None if fig is None else round(fig["rps_16"])
        out[f"{name}_median_us_{args.callers}"] = None if fig is None else round(fig["median_us_16"], 1)
        out[f"{name}_calls_1"] = None if fig is None else fig["latency_n"]
        out[f"{name}_calls_{args.callers}"] = None if fig is None else fig["throughput_n"]
    if args.callers != 16:  # the documented keys exist whatever --callers says; they hold its figures
        for name in TARGETS:
            out[f"{name}_rps_16"] = out[f"{name}_rps_{args.callers}"]
    base = results.get("baseline")
    for name in ("core", "plugin"):
        fig = results.get(name)
        ratio = _ratio(fig and fig["median_us"], base and base["median_us"])
        out[f"{name}_vs_baseline"] = None if ratio is None else round(ratio, 3)
        rps_ratio = _ratio(fig and fig["rps_16"], base and base["rps_16"])
        out[f"{name}_rps_{args.callers}_vs_baseline"] = None if rps_ratio is None else round(rps_ratio, 3)
    bus, core, plugin = results.get("bus"), results.get("core"), results.get("plugin")
    out["bus_median_us"] = None if bus is None else round(bus["median_us"], 1)
    if bus is not None and core is not None and plugin is not None:
        allowed = core["median_us"] + PLUGIN_PATH_FACTOR * bus["median_us"]
        out["plugin_path_limit_us"] = round(allowed, 1)
        out["plugin_path_ok"] = plugin["median_us"] <= allowed
        out["host_adds_us"] = round(plugin["median_us"] - core["median_us"] - bus["median_us"], 1)
    sdk_bus = results.get("sdk_bus")
    if sdk_bus is not None and plugin is not None:
        out["host_plugin_path_us"] = round(plugin["median_us"] - sdk_bus["median_us"], 1)
    out["ratio_target"] = RATIO_TARGET
    out["plugin_ok"] = None if out["plugin_vs_baseline"] is None else out["plugin_vs_baseline"] <= RATIO_TARGET
    from importlib import metadata

    out["config"] = {
        "text_chars": TEXT_SIZE,
        "warmup": args.warmup,
        "latency_calls": args.n,
        "throughput_calls": args.calls,
        "callers": args.callers,
        "phase_seconds": args.phase_seconds,
        "rounds": args.rounds,
        "protocol_version": PROTOCOL_VERSION,
        "python": platform.python_version(),
        "mcp": metadata.version("mcp"),
        "uvicorn": metadata.version("uvicorn"),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
    return out


def render(summary: dict[str, Any], elapsed: float) -> str:
    cfg = summary["config"]
    n = cfg["callers"]
    lines = [
        f"MCP tools/call over Streamable HTTP (JSON responses, protocol {cfg['protocol_version']}) on 127.0.0.1, "
        f"separate processes; {cfg['text_chars']}-char text; 1 caller: {cfg['latency_calls']} sequential calls, "
        f"{n} callers: {cfg['throughput_calls']} calls (warm-up {cfg['warmup']}); median of {cfg['rounds']} "
        "interleaved round(s)",
        f"python {cfg['python']}, mcp {cfg['mcp']}, uvicorn {cfg['uvicorn']}, {cfg['cpus']} CPUs, {cfg['platform']}",
        "",
        f"{'target':<10}{'median us':>12}{'p99 us':>12}{'calls/s @1':>13}{f'calls/s @{n}':>14}",
    ]
    for name in TARGETS:
        if summary[f"{name}_median_us"] is None:
            continue
        lines.append(
            f"{name:<10}{summary[f'{name}_median_us']:>12.1f}{summary[f'{name}_p99_us']:>12.1f}"
            f"{summary[f'{name}_rps_1']:>13,}{summary[f'{name}_rps_{n}']:>14,}"
        )
    lines.append("")

    def per_round(key: str) -> str:
        values = summary.get(key) or []
        return "" if len(values) < 2 else "   rounds: " + ", ".join(f"{v:.2f}" for v in values)

    if summary["core_vs_baseline"] is not None:
        lines.append(f"core median / baseline median   = {summary['core_vs_baseline']:.2f}" + per_round("core_rounds"))
    if summary["plugin_vs_baseline"] is not None:
        ok = "  ok" if summary["plugin_ok"] else "  MISSED"
        lines.append(
            f"plugin median / baseline median = {summary['plugin_vs_baseline']:.2f}   (target <= {RATIO_TARGET})"
            + ok
            + per_round("plugin_rounds")
        )
    if summary.get("plugin_path_limit_us") is not None:
        verdict = "ok" if summary["plugin_path_ok"] else "MISSED"
        lines.append(
            f"bare bus round trip (RawPlugin.XivMcp.Invoke, same payload) = {summary['bus_median_us']:.1f} us; "
            f"plugin median {summary['plugin_median_us']:.1f} us <= core + {PLUGIN_PATH_FACTOR} x bus = "
            f"{summary['plugin_path_limit_us']:.1f} us: {verdict} (the host adds {summary['host_adds_us']:.1f} us "
            "beyond one bus round trip)"
        )
    if summary.get("host_plugin_path_us") is not None:
        lines.append(
            "the SDK's own server making the same bus round trip in its tool (sdk_bus) = "
            f"{summary['sdk_bus_median_us']:.1f} us: plugin - sdk_bus = {summary['host_plugin_path_us']:.1f} us "
            "is the host's own plugin path"
        )
    for name in ("core", "plugin"):
        ratio = summary.get(f"{name}_rps_{n}_vs_baseline")
        if ratio is not None:
            lines.append(f"{name} calls/s @{n} / baseline calls/s @{n} = {ratio:.2f}")
    for name in TARGETS:
        made_1, made_n = summary.get(f"{name}_calls_1"), summary.get(f"{name}_calls_{n}")
        short = [
            f"{made} of {planned} {what} calls"
            for made, planned, what in (
                (made_1, cfg["latency_calls"], "sequential"),
                (made_n, cfg["throughput_calls"], "concurrent"),
            )
            if made is not None and made < planned
        ]
        if short:
            lines.append(
                f"note: {name} made only {' and '.join(short)} within the {cfg['phase_seconds']:g} s a phase "
                "may take (fewest of the rounds)"
            )
    lines.append(f"(run took {elapsed:.1f} s)")
    return "\n".join(lines)


def _combine(rounds: list[Figures]) -> Figures:
    """One target's figures over several rounds: the median of each."""
    return Figures(
        median_us=statistics.median(f["median_us"] for f in rounds),
        p99_us=statistics.median(f["p99_us"] for f in rounds),
        rps_1=statistics.median(f["rps_1"] for f in rounds),
        median_us_16=statistics.median(f["median_us_16"] for f in rounds),
        p99_us_16=statistics.median(f["p99_us_16"] for f in rounds),
        rps_16=statistics.median(f["rps_16"] for f in rounds),
        latency_n=min(f["latency_n"] for f in rounds),
        throughput_n=min(f["throughput_n"] for f in rounds),
        callers=rounds[0]["callers"],
    )


def run_all(args: argparse.Namespace) -> int:
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        print(f"bench: unknown target(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    rounds: dict[str, list[Figures]] = {name: [] for name in TARGETS if name in targets}
    for r in range(args.rounds):
        # Interleaved, so a slow spell of the machine hits every target alike.
        if "baseline" in rounds:
            print(f"bench: round {r + 1}/{args.rounds}: baseline …", file=sys.stderr, flush=True)
            rounds["baseline"].append(run_baseline(args)["baseline"])
        host_targets = [t for t in ("core", "plugin", "sdk_bus") if t in rounds]
        if host_targets:
            print(f"bench: round {r + 1}/{args.rounds}: {', '.join(host_targets)} …", file=sys.stderr, flush=True)
            for name, figures in run_host(args, host_targets).items():
                rounds.setdefault(name, []).append(figures)
    summary = summarise({name: _combine(figs) for name, figs in rounds.items()}, args)
    if "baseline" in rounds:
        for name in ("core", "plugin"):
            if name in rounds:
                pairs = zip(rounds[name], rounds["baseline"], strict=True)
                summary[f"{name}_rounds"] = [round(f["median_us"] / b["median_us"], 3) for f, b in pairs]
    summary["rounds"] = rounds
    if args.json:
        print(json.dumps(summary))
    else:
        print(render(summary, time.perf_counter() - started))
    return 0


ROLES: dict[str, Callable[[argparse.Namespace], None]] = {
    "baseline-server": role_baseline_server,
    "loadgen": role_loadgen,
    "bus-client": role_bus_client,
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.mcp",
        description="MCP tools/call latency and calls/s: the mcp package's own server (baseline), "
        "our host's core echo, a plugin's echo through the bus, and the SDK's server making that bus round trip.",
    )
    p.add_argument("--quick", action="store_true", help="a short run (fewer calls, one round)")
    p.add_argument("--n", type=int, default=None, help="sequential calls for latency (default 1000; --quick 200)")
    p.add_argument("--calls", type=int, default=None, help="calls shared by --callers (default 1500; --quick 400)")
    p.add_argument("--callers", type=int, default=16, help="concurrent callers for calls/s (default 16)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up calls (default 200; --quick 50)")
    p.add_argument(
        "--phase-seconds",
        type=float,
        default=None,
        help="at most this long for each measured phase, half of it for each warm-up; a slow target makes "
        "fewer calls (default 4; --quick 1)",
    )
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds, medians shown (default 5; --quick 1)")
    p.add_argument(
        "--targets", default=",".join(TARGETS), help="comma-separated subset of baseline,core,plugin,sdk_bus"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout (diagnostics on stderr)")
    p.add_argument(
        "--profile", metavar="DIR", default=None, help="cProfile every child into DIR/<role>.prof (slower figures)"
    )
    p.add_argument(
        "--pid-dir",
        metavar="DIR",
        default=None,
        help="write DIR/{broker,host,plugin}.pid once they are ready, then DIR/loadgen-TARGET.pid (for py-spy)",
    )
    # The children's side.
    p.add_argument("--role", choices=sorted(ROLES), default=None, help=argparse.SUPPRESS)
    p.add_argument("--url", default=None, help=argparse.SUPPRESS)
    p.add_argument("--tool", default=None, help=argparse.SUPPRESS)
    p.add_argument("--target", default=None, help=argparse.SUPPRESS)
    p.add_argument("--token-file", default=None, help=argparse.SUPPRESS)
    p.add_argument("--bus", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    if args.role is not None:
        ROLES[args.role](args)
        return 0
    quick = args.quick
    args.n = args.n if args.n is not None else (200 if quick else 1000)
    args.calls = args.calls if args.calls is not None else (400 if quick else 1500)
    args.warmup = args.warmup if args.warmup is not None else (50 if quick else 200)
    args.rounds = args.rounds if args.rounds is not None else (1 if quick else 5)
    args.phase_seconds = args.phase_seconds if args.phase_seconds is not None else (1.0 if quick else 4.0)
    if min(args.n, args.calls, args.callers, args.rounds) < 1 or args.warmup < 0 or not args.phase_seconds > 0:
        print(
            "bench: --n, --calls, --callers and --rounds must be >= 1, --warmup >= 0, --phase-seconds > 0",
            file=sys.stderr,
        )
        return 2
    if args.profile:
        args.profile = os.path.abspath(args.profile)
    if args.pid_dir:
        args.pid_dir = os.path.abspath(args.pid_dir)
    try:
        return run_all(args)
    except ChildError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
