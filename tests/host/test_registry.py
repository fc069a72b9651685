"""The tool registry: ownership, change events and concurrency (SPEC A2, T6)."""

from __future__ import annotations

import logging
import threading

import pytest

from gates.contract import HOST_NAME, NameTakenError, ToolDefinition
from gates.host.policy._registry import RegistryChange, ToolRegistry


def tool(name: str, *capabilities: str, description: str = "Does a thing.") -> ToolDefinition:
    return ToolDefinition(name=name, description=description, capabilities=["read_game", *capabilities])


def core() -> list[ToolDefinition]:
    return [tool("navigate_to", "move_character"), tool("wait")]


def test_register_tool_keeps_the_owner_and_lists_tools_per_owner() -> None:
    registry = ToolRegistry(core())
    registry.register("MyPlugin", tool("myplugin_follow", "move_character"))
    registry.register("MyPlugin", tool("myplugin_status"))
    registry.register("Other", tool("other_ping"))
    registered = registry.get("myplugin_follow")
    assert registered is not None and registered.owner == "MyPlugin"
    assert [t.name for t in registry.tools_of("MyPlugin")] == ["myplugin_follow", "myplugin_status"]
    assert registry.owner_of("navigate_to") == HOST_NAME
    assert registry.owner_of("nothing_here") is None
    assert {t.owner for t in registry.all()} == {HOST_NAME, "MyPlugin", "Other"}
    assert "other_ping" in registry and len(registry) == 5


def test_register_tool_refuses_a_name_registered_by_another_plugin() -> None:
    registry = ToolRegistry()
    registry.register("Other", tool("shared_name"))
    with pytest.raises(NameTakenError, match="'shared_name' is already registered by another plugin"):
        registry.register("MyPlugin", tool("shared_name"))
    owner = registry.get("shared_name")
    assert owner is not None and owner.owner == "Other"


def test_t6_register_tool_refuses_a_name_of_xivmcps_own_tools() -> None:
    registry = ToolRegistry(core())
    with pytest.raises(NameTakenError, match="'wait' is an XIV MCP tool"):
        registry.register("MyPlugin", tool("wait", "move_character"))


def test_a2_registering_again_replaces_the_owners_tool_and_raises_a_change() -> None:
    registry = ToolRegistry()
    changes: list[RegistryChange] = []
    registry.on_change(changes.append)
    registry.register("MyPlugin", tool("myplugin_follow", "move_character"))
    registry.register("MyPlugin", tool("myplugin_follow", "move_character", description="Follows better."))
    current = registry.get("myplugin_follow")
    assert current is not None and current.definition.description == "Follows better."
    assert [(c.version, c.added, c.replaced) for c in changes] == [
        (1, ("myplugin_follow",), ()),
        (2, (), ("myplugin_follow",)),
    ]


def test_a2_registering_an_identical_definition_changes_nothing() -> None:
    registry = ToolRegistry()
    registry.register("MyPlugin", tool("myplugin_follow", "move_character"))
    version = registry.version
    changes: list[RegistryChange] = []
    registry.on_change(changes.append)
    registry.register("MyPlugin", tool("myplugin_follow", "move_character"))
    assert registry.version == version and changes == []


def test_unregister_tool_only_removes_the_owners_own_tool() -> None:
    registry = ToolRegistry(core())
    registry.register("MyPlugin", tool("myplugin_follow", "move_character"))
    assert registry.unregister("Other", "myplugin_follow") is False
    assert registry.unregister("MyPlugin", "navigate_to") is False
    assert registry.unregister("MyPlugin", "no_such_tool") is False
    assert registry.unregister("MyPlugin", "myplugin_follow") is True
    assert registry.get("myplugin_follow") is None
    assert registry.get("navigate_to") is not None


def test_unregister_all_removes_every_tool_of_the_owner_and_counts_them() -> None:
    registry = ToolRegistry(core())
    for name in ("myplugin_a", "myplugin_b", "myplugin_c"):
        registry.register("MyPlugin", tool(name))
    registry.register("Other", tool("other_a"))
    changes: list[RegistryChange] = []
    registry.on_change(changes.append)
    assert registry.unregister_all("MyPlugin") == 3
    assert registry.unregister_all("MyPlugin") == 0
    assert registry.tools_of("MyPlugin") == ()
    assert [t.name for t in registry.tools_of("Other")] == ["other_a"]
    assert len(changes) == 1 and set(changes[0].removed) == {"myplugin_a", "myplugin_b", "myplugin_c"}


def test_a2_each_change_bumps_the_version_and_unsubscribing_stops_events() -> None:
    registry = ToolRegistry()
    seen: list[int] = []
    unsubscribe = registry.on_change(lambda change: seen.append(change.version))
    registry.register("MyPlugin", tool("myplugin_a"))
    registry.unregister("MyPlugin", "myplugin_a")
    unsubscribe()
    unsubscribe()
    registry.register("MyPlugin", tool("myplugin_b"))
    assert seen == [1, 2]
    assert registry.version == 3


def test_a2_a_callback_can_read_the_registry_and_a_failing_one_does_not_undo_the_change(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry()
    observed: list[bool] = []

    def failing(change: RegistryChange) -> None:
        raise RuntimeError("listener bug")

    registry.on_change(failing)
    registry.on_change(lambda change: observed.append("myplugin_a" in registry))
    with caplog.at_level(logging.ERROR, logger="gates.registry"):
        registry.register("MyPlugin", tool("myplugin_a"))
    assert observed == [True]
    assert registry.get("myplugin_a") is not None
    assert "callback failed" in caplog.text


def test_a2_concurrent_registrations_from_many_threads_are_all_kept_and_delivered_in_order() -> None:
    registry = ToolRegistry()
    versions: list[int] = []
    registry.on_change(lambda change: versions.append(change.version))
    start = threading.Barrier(8)

    def plugin(index: int) -> None:
        start.wait()
        for n in range(50):
            registry.register(f"Plugin{index}", tool(f"plugin{index}_tool_{n}"))
        for n in range(0, 50, 2):
            registry.unregister(f"Plugin{index}", f"plugin{index}_tool_{n}")

    threads = [threading.Thread(target=plugin, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(registry) == 8 * 25
    assert versions == list(range(1, 8 * 75 + 1))
    assert registry.version == 8 * 75


def test_a2_when_two_plugins_race_for_one_name_exactly_one_wins() -> None:
    registry = ToolRegistry()
    start = threading.Barrier(16)
    refused: list[str] = []

    def claim(index: int) -> None:
        start.wait()
        try:
            registry.register(f"Plugin{index}", tool("contested_name"))
        except NameTakenError:
            refused.append(f"Plugin{index}")

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winner = registry.get("contested_name")
    assert winner is not None
    assert len(refused) == 15 and winner.owner not in refused
    assert registry.version == 1
