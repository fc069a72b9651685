"""Installed plugins as Dalamud knows them, and the dependency states they give (F2, G6).

The host runs in-process on the real bus; each plugin is a peer of the test's. A plugin that
declared its manifest stays installed once its process leaves, so its tool's state is
`plugin_not_loaded`; one the host never heard of is `plugin_missing`; one whose declared version
is older than `minVersion` is `plugin_outdated`.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from gates.contract import MANIFEST_GATE

from ._system import WAIT, inprocess_host, ok, plugin_peer

pytestmark = pytest.mark.asyncio


def needs(plugin: str, tool: str, name: str, min_version: str) -> dict[str, str]:
    return {"tool": tool, "plugin": plugin, "name": name, "repo": "official", "minVersion": min_version}


async def test_f2_dependency_states_come_from_the_installed_plugins(tmp_path: Path) -> None:
    # SPEC: G6, W7
    async with inprocess_host(tmp_path, auto_enable=True) as (endpoint, host):
        async with plugin_peer(endpoint, "Gone") as gone:
            manifest = '{"name": "Gone Plugin", "version": "2.0.0", "repo": "official"}'
            reply = await gone.pi.get_ipc_subscriber(MANIFEST_GATE).invoke_func("Gone", manifest)
            assert json.loads(reply)["plugin"] == {
                "internalName": "Gone",
                "name": "Gone Plugin",
                "version": "2.0.0",
                "repo": "official",
                "loaded": True,
            }
        async with plugin_peer(endpoint, "Old") as old, plugin_peer(endpoint, "Asker") as asker:
            await old.pi.get_ipc_subscriber(MANIFEST_GATE).invoke_func("Old", '{"version": "1.1"}')
            declaration = {
                "tools": [
                    needs("Gone", "gone_tool", "Gone Plugin", "1.0.0"),
                    needs("Never", "never_tool", "Never Plugin", "1.0.0"),
                    needs("Old", "old_tool", "Old Plugin", "1.2.0"),
                ]
            }
            reply = await ok(asker.pi, "DeclareDependencies", "Asker", json.dumps(declaration))
    states = [(e["tool"], e["state"], e["message"]) for e in reply["dependencies"]]
    assert states == [
        ("gone_tool", "plugin_not_loaded", "Gone Plugin is installed but not enabled in Dalamud."),
        ("never_tool", "plugin_missing", "Needs Never Plugin 1.0.0 or newer, which is not installed."),
        ("old_tool", "plugin_outdated", "Needs Old Plugin 1.2.0 or newer; 1.1 is installed."),
    ]
    assert host.installed.display_name("gone") == "Gone Plugin"


async def test_f2_a_manifest_is_the_callers_own_and_is_checked(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "Mine") as mine:
        gate = mine.pi.get_ipc_subscriber(MANIFEST_GATE)
        other = json.loads(await gate.invoke_func("Theirs", "{}"))
        bad = json.loads(await gate.invoke_func("Mine", '{"version": "new"}'))
    assert other["ok"] is False and "Mine" in other["error"] and "Theirs" in other["error"]
    assert bad == {"ok": False, "error": "The manifest's 'version' must be like \"1.2.0\", not 'new'."}


async def test_f2_the_kit_declares_the_plugins_manifest_before_it_registers(tmp_path: Path) -> None:
    from gates.plugin import Plugin

    kit = Plugin("KitPlugin", display_name="Kit Plugin", version="0.9.1", repo="https://example.com/repo.json")

    @kit.tool(read_only=True)
    def kitplugin_look() -> str:
        """Looks."""
        return "seen"

    async with inprocess_host(tmp_path) as (endpoint, host), kit.connected(endpoint) as client:
        with anyio.fail_after(WAIT):
            await client.wait_registered()
        found = host.installed.find("KitPlugin")
    assert found is not None
    assert (found.display_name, found.version, found.repo) == ("Kit Plugin", "0.9.1", "https://example.com/repo.json")


async def test_f2_the_players_installed_list_gives_plugin_outdated_then_plugin_missing(tmp_path: Path) -> None:
    from gates.player import Install, PlayerClient, Uninstall

    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "Asker") as asker:
        player = PlayerClient.for_data_dir(asker.pi, tmp_path)
        declaration = json.dumps({"tools": [needs("OtherPlugin", "otherplugin_announce", "Other Plugin", "1.2.0")]})

        async def state() -> tuple[str, str]:
            [entry] = (await ok(asker.pi, "DeclareDependencies", "Asker", declaration))["dependencies"]
            return entry["state"], entry["message"]

        with anyio.fail_after(WAIT):
            await player.send(Install(plugin="OtherPlugin", name="Other Plugin", version="1.0.0"))
            assert await state() == ("plugin_outdated", "Needs Other Plugin 1.2.0 or newer; 1.0.0 is installed.")
            await player.send(Install(plugin="OtherPlugin", version="1.2"))
            assert await state() == ("plugin_not_loaded", "Other Plugin is installed but not enabled in Dalamud.")
            await player.send(Uninstall(plugin="OtherPlugin"))
            assert (await state())[0] == "plugin_missing"
