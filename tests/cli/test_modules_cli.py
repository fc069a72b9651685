"""`xivmcp modules` and `xivmcp tools`, run as the real subprocesses against a system of real processes
(F1, F3, W5).

The player sees every module of the real host (`gates/contract/real_host_catalog.json`) with its
title and default modes, and each of its tools, those the simulated game does not perform marked
"not simulated"; their settings are kept and shown like any other's. `xivmcp tools --builtin`
prints every built-in once and how many the game performs; plain `xivmcp tools` is what tools/list
lists. The host runs with its MCP endpoint, so that list is compared with the assistant's own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import anyio
import pytest

from gates.contract import BUILTIN_TOOL_NAMES, REAL_HOST
from gates.host.tools._core_definitions import CORE_DEFINITIONS
from gates.testing import Assistant, assistant_client
from tests.host._system import ROOT, WAIT, XivMcpSystem, host_system

pytestmark = pytest.mark.asyncio

PERFORMED = frozenset(d.name for d in CORE_DEFINITIONS) & BUILTIN_TOOL_NAMES
"""The real host's built-ins the simulated game performs: the host registers a definition for each."""


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    """Broker and host (`--test-clock`) as processes, with the host's MCP endpoint."""
    with host_system(tmp_path_factory.mktemp("system"), "--test-clock") as started:
        yield started


async def cli(argv: list[str], expect_code: int = 0) -> str:
    """Run an `xivmcp` command to its end; check its exit code; return its stdout (stderr if it failed)."""
    with anyio.fail_after(WAIT * 2):
        done = await anyio.run_process(argv, cwd=ROOT, check=False)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == expect_code, f"{argv[2:]} exited {done.returncode}: {out} {err}"
    return out if expect_code == 0 else err


def _modes(reading: str | None, changes: str | None) -> str:
    return ", ".join(f"{access} {mode}" for access, mode in (("reading", reading), ("changes", changes)) if mode)


async def test_f1_w5_xivmcp_modules_lists_every_real_module_with_its_title_and_default_modes(
    system: XivMcpSystem,
) -> None:
    cards = json.loads(await cli(system.cli("modules", "--json")))["modules"]
    assert [card["id"] for card in cards] == [module.id for module in REAL_HOST.modules]
    for module, card in zip(REAL_HOST.modules, cards, strict=True):
        shown = (card["title"], card["description"], card["reading"], card["changes"], card["plugin"], card["on"])
        assert shown == (module.title, module.description, module.reading, module.changes, module.plugin, True)
        tools = sorted(t.name for t in REAL_HOST.tools if t.module == module.id)
        assert sorted(tool["name"] for tool in card["tools"]) == tools
    assert {t["name"] for card in cards for t in card["tools"] if t["simulated"]} == PERFORMED

    text = await cli(system.cli("modules"))
    for module in REAL_HOST.modules:
        driven = f"; offered while {module.plugin} is loaded" if module.plugin else ""
        assert f"\n{module.id} ({module.title}): {_modes(module.reading, module.changes)}{driven}\n" in f"\n{text}"
    assert "\n  get_position: allow\n" in text  # performed: no mark
    assert "\n  get_item_sources: deny (not simulated)\n" in text  # online: reading deny by default
    assert "\n  take_screenshot: ask\n" in text  # screen: reading ask, performed
    assert "\n  press_xivmcp_control: deny (not simulated; dev builds only)\n" in text
    assert "\n  farm_duty_item: not available now (not simulated)\n" in text  # AutoDuty is not loaded


async def test_w5_a_setting_of_a_module_the_game_does_not_perform_is_kept_and_shown(system: XivMcpSystem) -> None:
    said = await cli(system.cli("module", "online", "reading", "allow"))
    assert said == "Online lookups (online): reading is now allow.\n"
    said = await cli(system.cli("tool", "get_fashion_report", "deny"))
    assert said == "get_fashion_report is set to deny on its own (Online lookups).\n"
    said = await cli(system.cli("module", "plugin_management", "off"))
    assert said == "Plugin management (plugin_management) is turned off.\n"
    error = await cli(system.cli("module", "online", "changes", "allow"), expect_code=1)
    assert error.strip() == "Online lookups (online) has no changes: only reading."
    try:
        text = await cli(system.cli("modules"))
        assert "\nonline (Online lookups): reading allow\n" in text
        assert "\n  get_item_sources: allow (not simulated)\n" in text
        assert "\n  get_fashion_report: deny (set on its own: deny) (not simulated)\n" in text
        assert "\nplugin_management (Plugin management): OFF (its tools are not offered)\n" in text
        cards = {card["id"]: card for card in json.loads(await cli(system.cli("modules", "--json")))["modules"]}
        [report] = [tool for tool in cards["online"]["tools"] if tool["name"] == "get_fashion_report"]
        assert report == {"name": "get_fashion_report", "setting": "deny", "mode": "deny", "available": True,
                          "simulated": False}  # fmt: skip
    finally:
        await cli(system.cli("module", "online", "reading", "default"))
        await cli(system.cli("tool", "get_fashion_report", "group"))
        await cli(system.cli("module", "plugin_management", "on"))


async def test_f1_calling_a_built_in_the_game_does_not_perform_is_refused_alike_whatever_its_module_says(
    system: XivMcpSystem,
) -> None:
    unknown = "No tool named 'get_item_sources'; `xivmcp plugins` lists every plugin's tools."
    assert (await cli(system.cli("call", "get_item_sources"), expect_code=1)).strip().endswith(unknown)
    await cli(system.cli("module", "online", "reading", "allow"))
    try:
        assert (await cli(system.cli("call", "get_item_sources"), expect_code=1)).strip().endswith(unknown)
    finally:
        await cli(system.cli("module", "online", "reading", "default"))


async def test_f1_xivmcp_tools_builtin_prints_every_built_in_once_and_counts_those_simulated(
    system: XivMcpSystem,
) -> None:
    lines = (await cli(system.cli("tools", "--builtin"))).splitlines()
    named = [line.split()[0] for line in lines if line.startswith("  ")]
    assert len(named) == len(set(named)) and set(named) == BUILTIN_TOOL_NAMES
    assert "  get_position (reading): simulated" in lines
    assert "  catch_fish (changes): not simulated" in lines
    assert "  capture_ui_events (changes): not simulated; dev builds only" in lines
    assert "autoduty (AutoDuty; offered while AutoDuty is loaded): 4 of 5 simulated" in lines

    core_modules = [m.id for m in REAL_HOST.modules if m.plugin is None]
    integrations = [m.id for m in REAL_HOST.modules if m.plugin is not None]
    core = [t for t in REAL_HOST.tools if t.module in core_modules]
    driven = [t for t in REAL_HOST.tools if t.module in integrations]
    assert len(core) + len(driven) == len(REAL_HOST.tools)
    assert lines[-1] == (
        f"simulated here: {len(PERFORMED)} of {len(REAL_HOST.tools)} built-in tools ({len(core)} core in "
        f"{len(core_modules)} modules, {len(driven)} in {len(integrations)} integrations)"
    )
    reply = json.loads(await cli(system.cli("tools", "--builtin", "--json")))
    assert reply["count"] == {
        "simulated": len(PERFORMED),
        "total": len(REAL_HOST.tools),
        "core": len(core),
        "coreModules": len(core_modules),
        "integrations": len(driven),
        "integrationModules": len(integrations),
    }


async def test_f3_xivmcp_tools_lists_what_tools_list_lists(system: XivMcpSystem) -> None:
    raw = system.start_plugin("plugins_sample.raw_gates")
    try:
        raw.wait_line("RawPlugin: registered 3 tools")
        await cli(system.cli("enable", "RawPlugin"))
        async with assistant_client(system.mcp_url, system.token) as client:
            listed = await Assistant(client).tool_names()
        lines = (await cli(system.cli("tools"))).splitlines()
        assert [line.split()[0] for line in lines[:-1]] == listed == sorted(listed)
        assert lines[-1] == f"{len(listed)} tools offered to the assistant now (tools/list)"
        assert "rawplugin_echo (RawPlugin, read-only)" in lines
        assert "echo (core, read-only; this simulator's own)" in lines
        assert "set_map_flag (core)" in lines
        tools = json.loads(await cli(system.cli("tools", "--json")))["tools"]
        echo = next(t for t in tools if t["toolset"] == "RawPlugin" and t["name"] == "rawplugin_echo")
        assert echo["description"].endswith("[Provided by the third-party plugin RawPlugin.]")
    finally:
        raw.kill()
