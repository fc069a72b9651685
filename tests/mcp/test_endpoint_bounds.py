"""The endpoint holds its ground (S5): a bound on connections and on the time a request head may take.

The head deadline is tested on the endpoint's own HTTP server (`uvicorn_server`) in this process,
with a short deadline; the connection cap on the real host's endpoint, with 200 connections that
never send a byte. Nothing measures time: each test waits, under a generous `fail_after`, for the
server to close a connection.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator

import anyio
import anyio.abc
import httpx2
import pytest
from starlette.types import Receive, Scope, Send

from gates.mcp import HttpLimits, uvicorn_server

from .xiv_mcp_support import WAIT, XivSystem

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


async def _hello(scope: Scope, receive: Receive, send: Send) -> None:
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.asynccontextmanager
async def serving(limits: HttpLimits) -> AsyncIterator[int]:
    """The endpoint's HTTP server (its protocol and bounds) with a one-word app; yields the port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    server = uvicorn_server(_hello, lifespan="off", limits=limits)
    await server.startup(sockets=[sock])
    try:
        yield sock.getsockname()[1]
    finally:
        await server.shutdown(sockets=[sock])
        sock.close()


async def closed_by_server(stream: anyio.abc.SocketStream) -> bytes:
    """Read until the server closes the connection; what it sent before."""
    received = b""
    with anyio.fail_after(WAIT):
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return received


@pytest.mark.asyncio
async def test_s5_a_connection_that_never_finishes_its_request_head_is_closed() -> None:
    async with serving(HttpLimits(header_seconds=0.2)) as port:
        async with await anyio.connect_tcp("127.0.0.1", port) as slow:
            await slow.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
            assert await closed_by_server(slow) == b""
        # after a response on a kept-alive connection, the next head has the same deadline
        async with await anyio.connect_tcp("127.0.0.1", port) as kept:
            await kept.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await kept.send(b"GET / HTTP/1.1\r\nX-Slow: ")
            answered = await closed_by_server(kept)
            assert answered.startswith(b"HTTP/1.1 200") and answered.endswith(b"ok")


@pytest.mark.asyncio
async def test_s5_200_idle_connections_do_not_starve_a_real_client(xiv: XivSystem) -> None:
    port = int(xiv.url.split(":")[2].split("/")[0])
    async with contextlib.AsyncExitStack() as stack:
        idle = [await stack.enter_async_context(await anyio.connect_tcp("127.0.0.1", port)) for _ in range(200)]
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Authorization": f"Bearer {xiv.token}",
        }
        async with httpx2.AsyncClient(timeout=WAIT) as http:
            answer = await http.post(xiv.url, json=INITIALIZE, headers=headers)
        assert answer.status_code == 200 and answer.json()["result"]["serverInfo"]["name"] == "XivMcp"
        assert await closed_by_server(idle[0]) == b""  # the oldest idle one made room
