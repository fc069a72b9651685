"""The MCP endpoint answers HTTP as the real host's listener does (F7), in raw HTTP with exact headers
and with the official client.

Followed: `XivMcp/Mcp/McpServer.cs` @b0e2678c (`HandleHttp`, `HandleMessage`, `IsLocalOrigin`,
`WriteText`, `Error`) and `XivMcp/Mcp/McpServer.Resources.cs` @b2eb72ad (`OpenEventStream`,
`Subscribe`). Each request here sends only the headers it names: no Accept, no Content-Type
unless a test says so.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .xiv_mcp_support import XivSystem

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
TEXT = "text/plain; charset=utf-8"
JSON = "application/json; charset=utf-8"


def base_of(xiv: XivSystem) -> str:
    return xiv.url.removesuffix("/mcp")


def bearer(xiv: XivSystem, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {xiv.token}", **more}


async def send(
    xiv: XivSystem, body: Any, headers: dict[str, str], *, path: str = "/mcp", method: str = "POST"
) -> httpx2.Response:
    """One request with exactly `headers` (and the client's Host, Content-Length)."""
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with httpx2.AsyncClient(timeout=10) as http:
        request = http.build_request(method, base_of(xiv) + path, content=content if method == "POST" else None)
        for name in ("accept", "accept-encoding", "user-agent", "connection", "content-type"):
            request.headers.pop(name, None)
        request.headers.update(headers)
        return await http.send(request)


def text_of(response: httpx2.Response, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"] == TEXT
    assert response.headers["cache-control"] == "no-store"
    return response.text


def rpc(id_: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, **({} if params is None else {"params": params})}


@pytest.mark.asyncio
async def test_f7_sessions_are_optional_and_only_an_unknown_id_gets_404(xiv: XivSystem) -> None:
    # SPEC: F7
    started = await send(xiv, INITIALIZE, bearer(xiv))
    assert started.status_code == 200 and started.headers["content-type"] == JSON
    assert started.headers["mcp-session-id"]
    # a client that ignores Mcp-Session-Id: served statelessly, calls included
    listed = await send(xiv, rpc(2, "tools/list"), bearer(xiv))
    called = await send(xiv, rpc(3, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}), bearer(xiv))
    assert listed.status_code == 200 and "echo" in {t["name"] for t in listed.json()["result"]["tools"]}
    assert called.status_code == 200 and called.json()["result"]["isError"] is False
    # the session it was given still works
    session = bearer(xiv, **{"Mcp-Session-Id": started.headers["mcp-session-id"]})
    assert (await send(xiv, rpc(4, "ping"), session)).json() == {"jsonrpc": "2.0", "id": 4, "result": {}}
    # only an id that names no session is refused
    unknown = bearer(xiv, **{"Mcp-Session-Id": "0" * 32})
    for method in ("POST", "GET", "DELETE", "PUT"):
        answer = await send(xiv, rpc(5, "tools/list"), unknown, method=method)
        assert text_of(answer, 404) == "Unknown session; initialize again.", method


@pytest.mark.asyncio
async def test_f7_get_without_a_session_or_an_event_stream_accept_is_405(xiv: XivSystem) -> None:
    # SPEC: F7
    started = await send(xiv, INITIALIZE, bearer(xiv))
    sid = started.headers["mcp-session-id"]
    for headers in (bearer(xiv, Accept="text/event-stream"), bearer(xiv, **{"Mcp-Session-Id": sid})):
        answer = await send(xiv, None, headers, method="GET")
        assert text_of(answer, 405) == "GET needs an Mcp-Session-Id header and Accept: text/event-stream"
        assert answer.headers["allow"] == "POST, DELETE"
    # kept: the package's transport holds one event stream per session (the real host, a list)
    stream_headers = bearer(xiv, **{"Mcp-Session-Id": sid, "Accept": "text/event-stream"})
    async with httpx2.AsyncClient(timeout=10) as http, http.stream("GET", xiv.url, headers=stream_headers) as first:
        assert first.status_code == 200 and first.headers["content-type"].startswith("text/event-stream")
        assert (await http.get(xiv.url, headers=stream_headers)).status_code == 409
    other = await send(xiv, None, bearer(xiv), method="PUT")
    assert text_of(other, 405) == "Method not allowed" and other.headers["allow"] == "GET, POST, DELETE"
    nothing_to_end = await send(xiv, None, bearer(xiv), method="DELETE")
    assert nothing_to_end.status_code == 200 and nothing_to_end.content == b""
    ended = await send(xiv, None, bearer(xiv, **{"Mcp-Session-Id": sid}), method="DELETE")
    assert ended.status_code == 200
    again = await send(xiv, rpc(2, "ping"), bearer(xiv, **{"Mcp-Session-Id": sid}))
    assert text_of(again, 404) == "Unknown session; initialize again."


@pytest.mark.asyncio
async def test_f7_accept_and_content_type_are_not_checked_on_post(xiv: XivSystem) -> None:
    # SPEC: F7
    for headers in ({}, {"Accept": "text/plain"}, {"Content-Type": "text/plain"}, {"Accept": "application/json"}):
        answer = await send(xiv, rpc(1, "tools/list"), bearer(xiv, **headers))
        assert answer.status_code == 200, (headers, answer.text)
        assert answer.json()["result"]["tools"]


@pytest.mark.asyncio
async def test_f7_a_loopback_or_localhost_origin_is_served_whatever_its_port(xiv: XivSystem) -> None:
    # SPEC: F7, S5
    local = (
        "http://localhost:6274",  # a browser-based MCP inspector
        "http://LOCALHOST",
        "https://localhost:1",
        "http://127.0.0.1:9",
        "http://127.0.0.2:8080",
        "http://[::1]:3000",
    )
    for origin in local:
        answer = await send(xiv, rpc(1, "ping"), bearer(xiv, Origin=origin))
        assert answer.status_code == 200, (origin, answer.text)
    port = xiv.url.split(":")[2].split("/")[0]
    foreign = ("https://evil.example", f"http://127.0.0.1:{port}.evil.example", "http://localhost.evil", "null")
    for origin in foreign:
        assert text_of(await send(xiv, rpc(1, "ping"), bearer(xiv, Origin=origin)), 403) == "Forbidden origin"
    # the origin is judged before the token
    assert text_of(await send(xiv, rpc(1, "ping"), {"Origin": "https://evil.example"}), 403) == "Forbidden origin"


@pytest.mark.asyncio
async def test_f7_the_401_is_the_real_hosts_text_with_a_bare_bearer_challenge(xiv: XivSystem) -> None:
    # SPEC: F7, S5
    expected = "Missing or invalid bearer token. See the XIV MCP settings window (/xivmcp)."
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": xiv.token}):
        answer = await send(xiv, rpc(1, "ping"), headers)
        assert text_of(answer, 401) == expected
        assert answer.headers["www-authenticate"] == "Bearer"
    assert (await send(xiv, rpc(1, "ping"), {"Authorization": f"bEaReR   {xiv.token}"})).status_code == 200


@pytest.mark.asyncio
async def test_f7_json_rpc_batches_are_answered_message_by_message(xiv: XivSystem) -> None:
    # SPEC: F7
    batch = [
        rpc(1, "ping"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        rpc(2, "nope/x"),
        5,
        rpc(3, "tools/call", {"name": "echo", "arguments": {"text": "b"}}),
    ]
    answer = await send(xiv, batch, bearer(xiv))
    assert answer.status_code == 200 and answer.headers["content-type"] == JSON
    replies = answer.json()
    assert replies[:3] == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found: nope/x"}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}},
    ]
    assert replies[3]["id"] == 3 and replies[3]["result"]["isError"] is False and len(replies) == 4
    only_notifications = await send(xiv, [{"jsonrpc": "2.0", "method": "notifications/initialized"}], bearer(xiv))
    assert only_notifications.status_code == 202 and only_notifications.content == b""
    assert (await send(xiv, [], bearer(xiv))).status_code == 202
    # a batch that opens a session names it, as initialize does alone
    opened = await send(xiv, [INITIALIZE, rpc(2, "ping")], bearer(xiv))
    assert opened.status_code == 200 and opened.headers["mcp-session-id"]
    assert [reply["id"] for reply in opened.json()] == [1, 2]


@pytest.mark.asyncio
async def test_f7_slash_is_the_endpoint_and_any_other_path_is_the_real_404(xiv: XivSystem) -> None:
    # SPEC: F7
    for path in ("/", "/mcp/", "/mcp//", "//"):
        answer = await send(xiv, rpc(1, "ping"), bearer(xiv), path=path)
        assert answer.status_code == 200 and answer.json()["result"] == {}, path
    for path in ("/other", "/mcp/x", "/MCP", "/consoles"):
        # the path is judged first: no token, a foreign origin, still the 404
        answer = await send(xiv, rpc(1, "ping"), {"Origin": "https://evil.example"}, path=path)
        assert text_of(answer, 404) == "Not found. The MCP endpoint is /mcp", path
    # the console's paths are the console's, with or without its key (never served as /mcp)
    for path in ("/console", "/console/", "/console/no-such-key/"):
        answer = await send(xiv, rpc(1, "ping"), bearer(xiv), path=path, method="GET")
        assert answer.status_code != 200 or "jsonrpc" not in answer.text, path
        assert answer.text != "Not found. The MCP endpoint is /mcp", path


@pytest.mark.asyncio
async def test_f7_protocol_errors_in_the_real_hosts_words(xiv: XivSystem) -> None:
    # SPEC: F7
    parse = await send(xiv, b"{not json", bearer(xiv))
    assert parse.status_code == 400 and parse.headers["content-type"] == JSON
    error = parse.json()
    assert error["id"] is None and error["error"]["code"] == -32700
    assert error["error"]["message"].startswith("Parse error: ")
    invalid = await send(xiv, b'"text"', bearer(xiv))
    assert invalid.status_code == 200
    assert invalid.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}}
    ignored = await send(xiv, {"jsonrpc": "2.0", "id": 9}, bearer(xiv))  # no method: nothing to answer
    assert ignored.status_code == 202
    answers = {
        "Method not found: resources/nothing": rpc(1, "resources/nothing"),
        "Missing tool name": rpc(2, "tools/call", {"arguments": {}}),
        "Missing uri": rpc(3, "resources/read", {}),
        "Subscriptions need a session: send the Mcp-Session-Id header from initialize.": rpc(
            4, "resources/subscribe", {"uri": "xiv://cache/plugins"}
        ),
    }
    for message, request in answers.items():
        answer = (await send(xiv, request, bearer(xiv))).json()
        assert answer["error"]["message"] == message, answer
        assert "data" not in answer["error"]
    prompts = await send(xiv, rpc(5, "prompts/list"), bearer(xiv))
    assert prompts.json()["result"] == {"prompts": []}


@pytest.mark.asyncio
async def test_f7_the_official_client_works_at_slash_from_an_inspectors_origin(xiv: XivSystem) -> None:
    # SPEC: F7
    headers = bearer(xiv, Origin="http://localhost:6274")
    for era in ("legacy", "auto"):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(base_of(xiv) + "/", http_client=http), mode=era) as client,
        ):
            listed = await client.list_tools()
            assert "echo" in {tool.name for tool in listed.tools}, era
            result = await client.call_tool("echo", {"text": "from the inspector"})
            content = result.content[0]
            assert isinstance(content, types.TextContent) and "from the inspector" in content.text, era


@pytest.mark.asyncio
async def test_f7_resources_are_caches_listed_with_a_title_and_read_as_the_real_hosts_document(
    xiv: XivSystem,
) -> None:
    # SPEC: F7, A9
    listed = (await send(xiv, rpc(1, "resources/list"), bearer(xiv))).json()["result"]["resources"]
    assert [r["uri"] for r in listed] == ["xiv://cache/plugins", "xiv://cache/audit", "xiv://cache/jobs"]
    for resource in listed:
        assert resource["name"] == resource["uri"].removeprefix("xiv://cache/") and resource["title"]
        assert resource["mimeType"] == "application/json"
        assert resource["description"].endswith(" Subscribe to get notified when the snapshot is refreshed.")
        assert "[This simulator's own cache: the real XIV MCP has no cache by this id.]" in resource["description"]
    read = (await send(xiv, rpc(2, "resources/read", {"uri": "Plugins"}), bearer(xiv))).json()["result"]
    [content] = read["contents"]
    assert content["uri"] == "xiv://cache/plugins" and content["mimeType"] == "application/json"
    document = json.loads(content["text"])
    assert list(document) == ["cache", "version", "entries", "data"] and document["cache"] == "plugins"
    unknown = (await send(xiv, rpc(3, "resources/read", {"uri": "xiv://cache/retainerz"}), bearer(xiv))).json()
    assert unknown["error"] == {"code": -32002, "message": "Resource not found: xiv://cache/retainerz"}
    # subscribing needs a session first, then a known cache
    started = await send(xiv, INITIALIZE, bearer(xiv))
    session = bearer(xiv, **{"Mcp-Session-Id": started.headers["mcp-session-id"]})
    await send(xiv, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    subscribed = await send(xiv, rpc(4, "resources/subscribe", {"uri": "xiv://cache/audit"}), session)
    assert subscribed.json()["result"] == {}
    unknown = (await send(xiv, rpc(5, "resources/subscribe", {"uri": "nothing"}), session)).json()
    assert unknown["error"] == {"code": -32002, "message": "Resource not found: nothing"}
