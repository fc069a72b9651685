"""DeclareDependencies: the rules of a declaration and each entry's state (rules G6)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gates.contract import DependencyState, InvalidDocumentError, ok_reply
from gates.host import DependencyError
from gates.host.policy._dependencies import (
    MAX_DEPENDENCIES,
    Dependency,
    DependencyBook,
    PluginWorld,
    check_dependencies,
    check_dependency,
    parse_dependencies,
)

ANNOUNCE: dict[str, Any] = {
    "tool": "otherplugin_announce",
    "plugin": "OtherPlugin",
    "name": "Other Plugin",
    "repo": "https://example.com/repo.json",
    "minVersion": "1.2.0",
}


def declare(*tools: dict[str, Any]) -> tuple[Dependency, ...]:
    return parse_dependencies(json.dumps({"tools": list(tools)}))


def without(key: str) -> dict[str, Any]:
    return {k: v for k, v in ANNOUNCE.items() if k != key}


# --------------------------------------------------------------------------- the declaration


def test_g6_the_docs_example_is_accepted() -> None:
    navigate, announce = declare({"tool": "navigate_to"}, ANNOUNCE)
    assert navigate == Dependency("navigate_to") and navigate.builtin
    assert announce == Dependency(
        "otherplugin_announce", "OtherPlugin", "Other Plugin", "https://example.com/repo.json", "1.2.0"
    )
    assert not announce.builtin
    assert declare({**ANNOUNCE, "repo": "official"})[0].repo == "official"


def test_g6_a_declaration_replaces_the_previous_one_and_an_empty_one_clears_it() -> None:
    book = DependencyBook()
    book.declare("MyPlugin", declare({"tool": "navigate_to"}, {"tool": "wait"}))
    book.declare("MyPlugin", declare(ANNOUNCE))
    assert [d.tool for d in book.declared("MyPlugin")] == ["otherplugin_announce"]
    book.declare("MyPlugin", parse_dependencies('{"tools": []}'))
    assert book.declared("MyPlugin") == ()
    book.declare("MyPlugin", declare(ANNOUNCE))
    book.forget("MyPlugin")
    assert book.declared("MyPlugin") == ()


@pytest.mark.parametrize("key", ["plugin", "name", "repo", "minVersion"])
def test_g6_a_built_in_tool_is_named_alone(key: str) -> None:
    with pytest.raises(DependencyError, match="'navigate_to' is built into XIV MCP; declare it with 'tool' alone"):
        declare({"tool": "navigate_to", key: ANNOUNCE[key]})


@pytest.mark.parametrize("key", ["plugin", "name", "repo", "minVersion"])
def test_g6_another_plugins_tool_needs_plugin_name_repo_and_min_version(key: str) -> None:
    with pytest.raises(DependencyError, match=f"is not an XIV MCP tool.*'{key}' is missing"):
        declare(without(key))
    with pytest.raises(DependencyError, match=f"'{key}' is missing"):
        declare({**ANNOUNCE, key: "  "})


@pytest.mark.parametrize("repo", ["http://example.com/repo.json", "example.com/repo.json", "https://", "ftp://x/y"])
def test_g6_the_repo_must_be_an_https_url_or_official(repo: str) -> None:
    with pytest.raises(DependencyError, match='must be the https URL of the plugin\'s repo.json, or "official"'):
        declare({**ANNOUNCE, "repo": repo})


@pytest.mark.parametrize("version", ["1", "v1.2", "1.2.x", "latest", "1.2.3.4.5"])
def test_g6_min_version_must_look_like_a_version(version: str) -> None:
    with pytest.raises(DependencyError, match='must be a version like "1.2.0"'):
        declare({**ANNOUNCE, "minVersion": version})


def test_g6_the_plugin_must_be_an_internal_name() -> None:
    with pytest.raises(DependencyError, match="'Other Plugin' is not a valid plugin internal name"):
        declare({**ANNOUNCE, "plugin": "Other Plugin"})


def test_g6_at_most_64_tools() -> None:
    tools = [{**ANNOUNCE, "tool": f"other_tool_{n}"} for n in range(MAX_DEPENDENCIES)]
    assert len(declare(*tools)) == 64
    with pytest.raises(DependencyError, match="Declare at most 64 tools; this declaration has 65"):
        declare(*tools, {**ANNOUNCE, "tool": "other_tool_64"})


def test_g6_a_tool_declared_twice_is_refused() -> None:
    with pytest.raises(DependencyError, match="'navigate_to' is declared twice"):
        declare({"tool": "navigate_to"}, {"tool": "navigate_to"})


def test_g6_a_malformed_tool_name_or_document_is_refused() -> None:
    with pytest.raises(DependencyError, match="'Bad-Name' is not a valid tool name"):
        declare({**ANNOUNCE, "tool": "Bad-Name"})
    with pytest.raises(
        InvalidDocumentError, match="dependency declaration is not valid.*missing required field `tools`"
    ):
        parse_dependencies("{}")
    with pytest.raises(InvalidDocumentError, match=r"missing required field `tool` - at `\$\.tools\[0\]`"):
        parse_dependencies('{"tools": [{"plugin": "X"}]}')


def test_g6_what_counts_as_built_in_can_be_supplied() -> None:
    [dependency] = parse_dependencies('{"tools": [{"tool": "scan_area"}]}', is_builtin=lambda t: t == "scan_area")
    assert dependency.builtin


# --------------------------------------------------------------------------- evaluation


def no_tools(tool: str) -> str | None:
    return None


def nobody_enabled(plugin: str) -> bool:
    return False


def test_g6_a_built_in_with_optional_plugins_is_ok_and_lists_them_with_what_happens_without() -> None:
    entry = check_dependency(Dependency("navigate_to"), PluginWorld(), owner_of=no_tools, enabled=nobody_enabled)
    assert entry.state is DependencyState.OK and entry.plugin is None
    assert entry.message.startswith("Ready. Without vnavmesh: XIV MCP puts a flag on your map")
    assert [(i.plugin, i.needed, i.installed, i.outdated) for i in entry.install] == [
        ("vnavmesh", False, False, False),
        ("Lifestream", False, False, False),
    ]
    assert all(i.without and i.reason and i.repo.startswith("https://") for i in entry.install)
    loaded = check_dependency(
        Dependency("navigate_to"),
        PluginWorld(connected=frozenset({"vnavmesh"})),
        owner_of=no_tools,
        enabled=nobody_enabled,
    )
    assert [i.plugin for i in loaded.install] == ["Lifestream"]


def test_g6_needed_true_gives_state_needs_plugin() -> None:
    entry = check_dependency(Dependency("find_vendors"), PluginWorld(), owner_of=no_tools, enabled=nobody_enabled)
    assert entry.state is DependencyState.NEEDS_PLUGIN
    assert entry.message == "Needs Item Vendor Location, which is not installed or not enabled."
    [install] = entry.install
    assert install.needed and install.repo == "official" and install.without is None
    ready = check_dependency(
        Dependency("find_vendors"),
        PluginWorld(connected=frozenset({"ItemVendorLocation"})),
        owner_of=no_tools,
        enabled=nobody_enabled,
    )
    assert ready.state is DependencyState.OK and ready.install == [] and ready.message == "Ready."


def test_g6_a_built_in_that_needs_no_plugin_is_ready() -> None:
    entry = check_dependency(Dependency("wait"), PluginWorld(), owner_of=no_tools, enabled=nobody_enabled)
    assert (entry.state, entry.message, entry.install) == (DependencyState.OK, "Ready.", [])


ANNOUNCE_DEPENDENCY = Dependency(
    "otherplugin_announce", "OtherPlugin", "Other Plugin", "https://example.com/repo.json", "1.2.0"
)


def state_of(world: PluginWorld, owner: str | None = "OtherPlugin", enabled: bool = True) -> DependencyState:
    entry = check_dependency(
        ANNOUNCE_DEPENDENCY,
        world,
        owner_of=lambda tool: owner if tool == "otherplugin_announce" else None,
        enabled=lambda plugin: enabled,
    )
    return entry.state


def test_g6_a_plugin_tool_whose_plugin_is_not_connected_is_plugin_not_loaded() -> None:
    entry = check_dependency(ANNOUNCE_DEPENDENCY, PluginWorld(), owner_of=no_tools, enabled=nobody_enabled)
    assert entry.state is DependencyState.PLUGIN_NOT_LOADED and entry.plugin == "OtherPlugin"
    [install] = entry.install
    assert (install.plugin, install.name, install.repo, install.needed) == (
        "OtherPlugin", "Other Plugin", "https://example.com/repo.json", True,
    )  # fmt: skip
    assert install.reason == "Provides otherplugin_announce."
    installed = PluginWorld(installed=frozenset({"OtherPlugin"}))
    assert state_of(installed) is DependencyState.PLUGIN_NOT_LOADED


def test_g6_a_plugin_known_not_to_be_installed_is_plugin_missing() -> None:
    world = PluginWorld(installed=frozenset({"SomethingElse"}))
    entry = check_dependency(ANNOUNCE_DEPENDENCY, world, owner_of=no_tools, enabled=nobody_enabled)
    assert entry.state is DependencyState.PLUGIN_MISSING
    assert entry.message == "Needs Other Plugin 1.2.0 or newer, which is not installed."
    assert not entry.install[0].installed


def test_g6_an_older_version_than_min_version_is_plugin_outdated() -> None:
    world = PluginWorld(connected=frozenset({"OtherPlugin"}), versions={"OtherPlugin": "1.1.9"})
    entry = check_dependency(ANNOUNCE_DEPENDENCY, world, owner_of=no_tools, enabled=nobody_enabled)
    assert entry.state is DependencyState.PLUGIN_OUTDATED
    assert entry.message == "Needs Other Plugin 1.2.0 or newer; 1.1.9 is installed."
    assert entry.install[0].outdated and entry.install[0].installed
    same = PluginWorld(connected=frozenset({"OtherPlugin"}), versions={"otherplugin": "1.2"})
    assert state_of(same) is DependencyState.OK  # 1.2 is 1.2.0; names compare case-insensitively
    unknown = PluginWorld(connected=frozenset({"OtherPlugin"}), versions={"OtherPlugin": "dev-build"})
    assert state_of(unknown) is DependencyState.OK


def test_g6_a_connected_plugin_without_the_tool_is_tool_missing() -> None:
    world = PluginWorld(connected=frozenset({"OtherPlugin"}))
    assert state_of(world, owner=None) is DependencyState.TOOL_MISSING
    assert state_of(world, owner="ThirdPlugin") is DependencyState.TOOL_MISSING


def test_g6_a_plugin_the_player_has_not_enabled_is_not_enabled_else_ok() -> None:
    world = PluginWorld(connected=frozenset({"OtherPlugin"}))
    assert state_of(world, enabled=False) is DependencyState.NOT_ENABLED
    assert state_of(world) is DependencyState.OK


def test_g6_entries_reach_the_wire_with_tool_plugin_state_message_and_install() -> None:
    entries = check_dependencies(
        [Dependency("wait"), ANNOUNCE_DEPENDENCY], PluginWorld(), owner_of=no_tools, enabled=nobody_enabled
    )
    wire = [json.loads(ok_reply(e)) for e in entries]
    assert wire[0] == {"ok": True, "tool": "wait", "plugin": None, "state": "ok", "message": "Ready.", "install": []}
    assert set(wire[1]["install"][0]) == {"plugin", "name", "repo", "needed", "installed", "outdated", "reason"}
