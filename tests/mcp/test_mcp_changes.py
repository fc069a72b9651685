"""What changes reaches the AI app, and what the app does reaches the plugin (A2, A9, J3, G8, J5, F3).

list_changed when a plugin starts and when it is killed, resources/updated for subscribed caches,
a cancelled call reaching the plugin's Cancel, and no progress notifications (the real host sends
none; `test_simulator_extensions.py` shows them with the simulator's extensions).
"""

from __future__ import annotations

import functools
from typing import Any

import anyio
import httpx2
import pytest

from .xiv_mcp_support import (
    AUDIT_URI,
    JOBS_URI,
    MODERN,
    MYPLUGIN_TOOLS,
    PLUGINS_URI,
    RAWPLUGIN_TOOLS,
    TOOLS,
    WAIT,
    Session,
    StartPlugin,
    XivSystem,
    connect,
)

pytestmark = pytest.mark.asyncio
ERAS = pytest.mark.parametrize("era", ["legacy", MODERN], ids=["2025-11-25", "2026-07-28"])
PEER_GONE = 10.0
"""A killed plugin is noticed when the broker stops hearing from it (its peer timeout)."""


@ERAS
async def test_list_changed_when_a_plugin_starts_and_when_it_is_killed(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: A2
    async with connect(xiv, era) as s:
        await s.watch()
        async with s.events.expect(TOOLS):
            plugin = await start_plugin("raw_gates")
        await s.wait_offered(*RAWPLUGIN_TOOLS)
        async with s.events.expect(TOOLS, within=PEER_GONE):
            plugin.kill()  # kill -9: no goodbye, no UnregisterAll
        names = await s.wait_offered(*RAWPLUGIN_TOOLS, offered=False)
    assert "echo" in names


@ERAS
async def test_no_list_changed_when_the_offered_tools_stay_the_same(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: A2
    async with connect(xiv, era) as s:
        await s.watch(AUDIT_URI)
        await start_plugin("myplugin")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        async with s.events.expect(AUDIT_URI):  # a barrier: the registration's last list_changed came before
            await xiv.run_cli("mode", "MyPlugin", "chat_send", "ask")  # a change (a setting left as it is is none)
        seen = s.events.counts.get(TOOLS, 0)
        try:
            # No tool of MyPlugin sends chat: the host changes (on_change fires), the tools do not.
            # The audit line the setting writes is the barrier: a list_changed would come before it.
            async with s.events.expect(AUDIT_URI):
                await xiv.run_cli("mode", "MyPlugin", "chat_send", "deny")
        finally:
            await xiv.run_cli("mode", "MyPlugin", "chat_send", "default")
        assert s.events.counts.get(TOOLS, 0) == seen


@ERAS
async def test_resources_are_listed_read_and_updated_for_subscribers(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: A9
    async with connect(xiv, era) as s:
        listed = await s.client.list_resources()
        assert {str(r.uri) for r in listed.resources} == {PLUGINS_URI, AUDIT_URI, JOBS_URI}
        assert all(r.mime_type == "application/json" for r in listed.resources)
        assert all(str(r.uri) == f"xiv://cache/{r.name}" and r.title for r in listed.resources)
        await s.watch(PLUGINS_URI, AUDIT_URI, JOBS_URI)
        async with s.events.expect(JOBS_URI):  # SPEC: J10 - jobs are a cache resource too
            await s.client.call_tool(
                "start_job", {"name": "hello", "steps": [{"tool": "echo", "args": {"text": "hi"}}]}
            )
        jobs = await _wait_json(s, JOBS_URI, lambda d: any(j["name"] == "hello" for j in d["data"]))
        assert [j["state"] for j in jobs["data"] if j["name"] == "hello"][-1] in ("queued", "running", "completed")
        async with s.events.expect(PLUGINS_URI):
            await start_plugin("raw_gates")
        await s.wait_offered(*RAWPLUGIN_TOOLS)
        plugins = await _wait_json(s, PLUGINS_URI, lambda d: any(p["name"] == "RawPlugin" for p in d["data"]))
        async with s.events.expect(AUDIT_URI):
            await s.client.call_tool("rawplugin_echo", {"n": 1})
        audit = await _wait_json(s, AUDIT_URI, lambda d: _calls(d, "rawplugin_echo"))
    assert plugins["cache"] == "plugins" and plugins["version"] >= 1 and plugins["entries"] == []
    [raw] = [p for p in plugins["data"] if p["name"] == "RawPlugin"]
    assert raw["state"] == "enabled" and {t["name"] for t in raw["tools"]} >= {"rawplugin_echo"}
    assert _calls(audit, "rawplugin_echo")[-1]["details"]["ok"] is True


@ERAS
async def test_f3_resource_templates_are_an_empty_list_as_the_real_host_answers(xiv: XivSystem, era: str) -> None:
    # SPEC: A9
    async with connect(xiv, era) as s:
        listed = await s.client.list_resource_templates()
    assert listed.resource_templates == []


@ERAS
async def test_reading_an_unknown_resource_is_the_real_hosts_resource_not_found(xiv: XivSystem, era: str) -> None:
    """McpServer.Resources.cs @b2eb72ad `ReadResource`: -32002 "Resource not found: {uri}"; a cache
    is found by its id in any case, with or without the prefix (`CacheRegistry.Get`)."""
    # SPEC: A9, F7
    from mcp.shared.exceptions import MCPError

    async with connect(xiv, era) as s:
        with pytest.raises(MCPError) as caught:
            await s.client.read_resource("xiv://cache/nothing")
        found = [await s.client.read_resource(uri) for uri in ("XIV://CACHE/Jobs/", "jobs")]
    assert (caught.value.code, caught.value.message) == (-32002, "Resource not found: xiv://cache/nothing")
    assert [str(result.contents[0].uri) for result in found] == [JOBS_URI, JOBS_URI]


async def test_f3_a_plugins_progress_reaches_no_mcp_client_by_default(
    xiv: XivSystem, start_plugin: StartPlugin
) -> None:
    """The real host sends no notifications/progress: a plugin's ReportProgress goes to the job log
    alone (J5). A 2025-era caller with a progressToken is the one that could hear of it (on its GET
    stream), so it is the one that must not."""
    # SPEC: J5
    async with connect(xiv, "legacy") as s:
        await s.watch(AUDIT_URI)
        await start_plugin("myplugin", "--seconds-per-kill", "0.02")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        lines: list[str | None] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            lines.append(message)

        with anyio.fail_after(WAIT):
            result = await s.client.call_tool("myplugin_farm", {"kills": 3}, None, on_progress)
        # A barrier: an audit line written after the call, announced on the GET stream that progress
        # would have come on before it.
        try:
            async with s.events.expect(AUDIT_URI):
                await xiv.run_cli("mode", "MyPlugin", "chat_send", "ask")
        finally:
            await xiv.run_cli("mode", "MyPlugin", "chat_send", "default")
    assert not result.is_error and result.structured_content is None
    assert lines == []


@ERAS
async def test_cancelling_a_call_reaches_the_plugin_and_it_stops(
    xiv: XivSystem, era: str, start_plugin: StartPlugin
) -> None:
    # SPEC: J3, G8
    async with connect(xiv, era) as s:
        await s.watch(AUDIT_URI)
        plugin = await start_plugin("myplugin", "--seconds-per-kill", "0.02")
        await s.wait_offered(*MYPLUGIN_TOOLS)
        before = len(_calls(await s.read_json(AUDIT_URI), "myplugin_farm"))
        async with anyio.create_task_group() as tg:
            tg.start_soon(s.client.call_tool, "myplugin_farm", {"minutes": 600})
            await plugin.expect("MyPlugin: farming", WAIT)
            tg.cancel_scope.cancel()  # the app gives up: notifications/cancelled (2025), the POST closed (2026)
        await plugin.expect("MyPlugin: stopped farming safely", WAIT)
        # ... and answered FailCall("Cancelled."); XIV MCP's own two minutes run on the test clock.
        audit = await _wait_json(s, AUDIT_URI, lambda d: len(_calls(d, "myplugin_farm")) > before)
    [farm] = _calls(audit, "myplugin_farm")[before:]
    assert farm["details"]["ok"] is False and farm["details"]["error"] == "Cancelled."


def _calls(audit: dict[str, Any], tool: str) -> list[dict[str, Any]]:
    return [e for e in audit["data"] if e["kind"] == "call" and e.get("tool") == tool]


async def _wait_json(s: Session, uri: str, ready: Any) -> Any:
    """Read `uri` each time it is updated until `ready(document)`."""
    with anyio.fail_after(WAIT):
        while True:
            seen = s.events.counts.get(uri, 0)
            document = await s.read_json(uri)
            if ready(document):
                return document
            await s.events.wait_beyond(uri, seen)


async def test_a_client_that_goes_away_cancels_its_call(xiv: XivSystem, start_plugin: StartPlugin) -> None:
    """A 2025-era client whose POST connection drops without notifications/cancelled."""
    # SPEC: J3
    headers = {
        "Authorization": f"Bearer {xiv.token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    plugin = await start_plugin("myplugin", "--seconds-per-kill", "0.02")
    async with connect(xiv, "legacy") as s:
        await s.watch()
        await s.wait_offered(*MYPLUGIN_TOOLS)
    client = {"name": "test", "version": "1"}
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
    async with httpx2.AsyncClient(timeout=10) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        started = await http.post(xiv.url, json=initialize, headers=headers)
        headers["Mcp-Session-Id"] = started.headers["mcp-session-id"]
        farm = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "myplugin_farm"}}
        async with anyio.create_task_group() as tg:
            tg.start_soon(functools.partial(http.post, xiv.url, json=farm, headers=headers))
            await plugin.expect("MyPlugin: farming", WAIT)
            tg.cancel_scope.cancel()  # the request's connection is closed, nothing else is sent
    await plugin.expect("MyPlugin: stopped farming safely", WAIT)
