"""The raw MCP client the benches measure with: HTTP/1.1 keep-alive on asyncio, no HTTP library.

An `McpSession` is one connection and the MCP session opened on it (initialize with protocol
2025-11-25, the Mcp-Session-Id header, notifications/initialized), closed with DELETE. Requests
are prepared bytes (`call_body`), so the measured path is a write and a read on a socket. Every
reply is checked (`check_call`): a JSON-RPC result for that id, not isError, echoing that call's
text, so a misconfigured target cannot look fast. `run_phase` is one measured phase: calls shared
by one task per session, bounded in count and in time; `generate_load` is bench.mcp's whole load
on one target, the same for every target.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ._stats import CallerFigures, caller_figures

PROTOCOL_VERSION = "2025-11-25"
MCP_PATH = "/mcp"
POLL_SECONDS = 0.05
"""Between two tools/list polls while waiting for a tool to be listed (a bounded retry loop)."""


def jsonrpc_request(method: str, params: dict[str, Any], rid: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def initialize_request(client: str, version: str, rid: int = 1) -> bytes:
    """The body of an `initialize` request from `client` at `version`."""
    params = {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": client, "version": version},
    }
    return jsonrpc_request("initialize", params, rid)


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
            status, headers, body = await self._post(initialize_request("bench-mcp", "1", next(self._ids)))
            reply = json_reply(status, headers, body)
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
        reply = json_reply(*await self._post(jsonrpc_request(method, params, rid)))
        if reply.get("id") != rid or not isinstance(reply.get("result"), dict):
            raise BadReply(f"{method}: {json.dumps(reply)[:300]}")
        result: dict[str, Any] = reply["result"]
        return result

    def call_body(self, tool: str, text: str) -> tuple[int, bytes]:
        rid = next(self._ids)
        return rid, jsonrpc_request("tools/call", {"name": tool, "arguments": {"text": text}}, rid)

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


def json_reply(status: int, headers: dict[bytes, bytes], body: bytes) -> dict[str, Any]:
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
    as the first text content (an `echo` tool) or as {"echo": {"text": …}} (RawPlugin's echo), which
    XIV MCP sends as JSON text (and, with the simulator's extensions, as structuredContent too)."""
    reply = json_reply(status, headers, body)
    result = reply.get("result")
    if reply.get("id") != rid or not isinstance(result, dict):
        raise BadReply(f"tools/call {rid}: not its result: {json.dumps(reply)[:300]}")
    content = result.get("content") or [{}]
    first = content[0].get("text") if isinstance(content[0], dict) else None
    if result.get("isError"):
        raise BadReply(f"tools/call {rid}: isError: {str(first)[:300]}")
    if first != text and _json_or_none(first) != {"echo": {"text": text}}:
        raise BadReply(f"tools/call {rid}: does not echo its text: {json.dumps(result)[:300]}")


def _json_or_none(text: object) -> object:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


async def run_phase(
    sessions: list[McpSession], tool: str, calls: int, seconds: float, numbers: Iterator[int], text_size: int
) -> tuple[list[int], float]:
    """`calls` tools/call round trips shared by one task per session, or as many as start within
    `seconds` (a slow target still finishes in time); (latencies in ns, elapsed s).

    Each call's `text` is `text_size` characters: its number from `numbers` (8 digits), then filler,
    so every reply can be checked against its own call (`check_call`)."""
    filler = "x" * (text_size - 8)
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


async def wait_for_tool(session: McpSession, tool: str, within: float) -> None:
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


def phase_failsafe(phase_seconds: float) -> float:
    """Seconds a phase may take before it is abandoned: a failsafe only, generous enough for a
    slow, busy or profiled machine."""
    return 60.0 + 4 * phase_seconds


@dataclass(frozen=True)
class Load:
    """What the load generator does against one target."""

    url: str
    token: str | None
    tool: str
    warmup: int
    sequential: int
    """Calls of the 1-caller phase (latency)."""
    concurrent: int
    """Calls shared by `callers` callers (calls/s)."""
    callers: int
    phase_seconds: float
    """At most this long for each measured phase, half of it for each warm-up."""
    text_size: int


async def generate_load(load: Load, connect_within: float, listed_within: float) -> CallerFigures:
    """Open sessions, wait for the tool, warm up, then 1 caller (latency) and `callers` callers (calls/s)."""
    numbers = itertools.count()
    sessions = [McpSession(load.url, load.token) for _ in range(load.callers)]
    tool, size, failsafe = load.tool, load.text_size, phase_failsafe(load.phase_seconds)
    try:
        # One session first; the others open only after the 1-caller phase, so none sits idle
        # long enough for the server's keep-alive timeout (uvicorn: 5 s) to close it.
        async with asyncio.timeout(connect_within):
            await sessions[0].open(connect_within)
        await wait_for_tool(sessions[0], tool, listed_within)
        warm, cap = load.phase_seconds / 2, load.phase_seconds
        async with asyncio.timeout(failsafe):
            await run_phase(sessions[:1], tool, load.warmup, warm, numbers, size)
            lat_1, elapsed_1 = await run_phase(sessions[:1], tool, load.sequential, cap, numbers, size)
        async with asyncio.timeout(connect_within):
            await asyncio.gather(*(s.open(connect_within) for s in sessions[1:]))
        async with asyncio.timeout(failsafe):
            await run_phase(sessions, tool, max(load.warmup // 2, 4 * len(sessions)), warm, numbers, size)
            lat_n, elapsed_n = await run_phase(sessions, tool, load.concurrent, cap, numbers, size)
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
    return caller_figures(lat_1, elapsed_1, lat_n, elapsed_n, len(sessions))
