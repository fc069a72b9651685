"""The tool registry: ownership, change events and concurrency (rules A2, T6)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
import anyio.lowlevel
import pytest

from gates.contract import HOST_NAME, NameTakenError, ToolDefinition
from gates.host.policy._registry import RegisteredTool, RegistryChange, ToolRegistry


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


async def _interleaved(*tasks: Callable[[], Awaitable[None]]) -> None:
    """Run `tasks` at once on this loop, as the host runs its peers' gate calls."""
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            for task in tasks:
                tg.start_soon(task)


@pytest.mark.asyncio
async def test_a2_registrations_of_many_plugins_interleaved_on_one_loop_are_all_kept_and_delivered_in_order() -> None:
    """Concurrency as the host has it: each plugin's RegisterTool and UnregisterTool calls are
    tasks on the host's one event loop, and the bus interleaves them; readers run in between."""
    registry = ToolRegistry()
    delivered: list[tuple[int, int, str]] = []
    registry.on_change(lambda change: delivered.append((change.version, registry.version, change.owner)))
    inconsistent: list[str] = []

    def plugin(index: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            owner = f"Plugin{index}"
            for n in range(50):
                registry.register(owner, tool(f"plugin{index}_tool_{n}"))
                await anyio.lowlevel.checkpoint()  # the next request on the bus may be another plugin's
            for n in range(0, 50, 2):
                registry.unregister(owner, f"plugin{index}_tool_{n}")
                await anyio.lowlevel.checkpoint()

        return run

    async def reader() -> None:
        while len(delivered) < 8 * 75:
            by_owner = sum(registry.count_of(owner) for owner in registry.owners())
            if not len(registry) == len(registry.all()) == by_owner:
                inconsistent.append(f"{len(registry)} tools, {by_owner} by owner at version {registry.version}")
            await anyio.lowlevel.checkpoint()

    await _interleaved(reader, *(plugin(i) for i in range(8)))
    assert inconsistent == []
    assert len(registry) == 8 * 25
    for index in range(8):
        kept = [t.name for t in registry.tools_of(f"Plugin{index}")]
        assert kept == [f"plugin{index}_tool_{n}" for n in range(1, 50, 2)]
    # every change delivered once, in version order, each after it was visible and before the next
    assert [(version, seen) for version, seen, _ in delivered] == [(v, v) for v in range(1, 8 * 75 + 1)]
    assert registry.version == 8 * 75
    owners = [owner for _, _, owner in delivered]
    assert sum(a != b for a, b in zip(owners, owners[1:], strict=False)) >= 8 * 75 // 2  # really interleaved


@pytest.mark.asyncio
async def test_a2_when_two_plugins_race_for_one_name_exactly_one_wins() -> None:
    registry = ToolRegistry()
    refused: list[str] = []

    def claim(index: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            await anyio.lowlevel.checkpoint()  # every claim is under way before the first lands
            try:
                registry.register(f"Plugin{index}", tool("contested_name"))
            except NameTakenError as exc:
                assert not exc.by_xivmcp
                refused.append(f"Plugin{index}")

        return run

    await _interleaved(*(claim(i) for i in range(16)))
    winner = registry.get("contested_name")
    assert winner is not None
    assert len(refused) == 15 and winner.owner not in refused
    assert registry.version == 1


def test_f1_a_simulator_only_tool_gives_way_to_a_plugin_and_comes_back_when_it_goes() -> None:
    """The real host has no `echo`: a plugin may register it, and the simulator's own echo steps aside."""
    echo = ToolDefinition(name="echo", description="XIV MCP's echo.", read_only=True)
    registry = ToolRegistry([echo, tool("navigate_to", "move_character")], yielding={"echo"})
    mine = ToolDefinition(name="echo", description="Mine.", read_only=True)
    registry.register("P", mine)
    assert registry.owner_of("echo") == "P" and registry.tools_of(HOST_NAME)[0].name == "navigate_to"
    with pytest.raises(NameTakenError):
        registry.register("Q", mine)  # taken by P now, as any plugin's name
    with pytest.raises(NameTakenError):
        registry.register("P", tool("navigate_to"))  # a core tool of the real host never yields
    assert registry.unregister("P", "echo")
    assert registry.get("echo") == RegisteredTool(HOST_NAME, echo)
    registry.register("P", mine)
    assert registry.unregister_all("P") == 1 and registry.owner_of("echo") == HOST_NAME
