"""tools/list's cache (`gates.mcp._server.ToolList`): built once per change of what is offered,
and always what the host offers now, by the real host's rules (A2, A5, W7, F3)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from gates.contract import Mode, ToolDefinition
from gates.host.policy._modules import Modules
from gates.host.policy._policy import Policies
from gates.host.policy._registry import ToolRegistry
from gates.host.tools._core_definitions import CORE_DEFINITIONS
from gates.host.tools._integrations import AUTODUTY_PLUGIN
from gates.host.tools._offer import OfferedTools
from gates.mcp._server import ToolList


class Offering:
    """What the host's offer depends on, with the MCP front's tool list over it."""

    def __init__(self) -> None:
        self.registry = ToolRegistry(core=CORE_DEFINITIONS)
        self.policies = Policies()
        self.modules = Modules(None)  # every module of the real host
        self.connected: set[str] = set()
        self.offered = OfferedTools(self.registry, self.policies, self.modules, lambda: self.connected)
        self.tools = ToolList(cast(Any, SimpleNamespace(offered=self.offered)))

    def names(self) -> list[str]:
        listed = self.tools.tools()
        assert [t.name for t in listed] == sorted(t.definition.name for t in self.offered.all())  # never stale
        return [t.name for t in listed]


def test_the_list_is_built_once_until_what_is_offered_changes() -> None:
    offering = Offering()
    first = offering.tools.tools()
    assert offering.tools.tools() is first
    offering.registry.register("P", ToolDefinition(name="p_look", description="Looks.", read_only=True))
    assert offering.tools.tools() is not first  # a registration: built again (P is not enabled: not offered)
    assert "p_look" not in offering.names()


def test_the_list_follows_the_player_the_modules_and_the_integrations_plugins() -> None:
    offering = Offering()
    offering.registry.register("P", ToolDefinition(name="p_look", description="Looks.", read_only=True))
    assert "p_look" not in offering.names()
    offering.policies.enable("P", {"p_look": frozenset()})
    assert "p_look" in offering.names()

    assert "get_position" in offering.names()
    offering.modules.set_on("game_data", False)
    assert "get_position" not in offering.names()

    assert "run_duty" not in offering.names()  # AutoDuty's tools: only while AutoDuty is loaded
    offering.connected.add(AUTODUTY_PLUGIN)
    assert "run_duty" in offering.names()
    offering.connected.discard(AUTODUTY_PLUGIN)
    assert "run_duty" not in offering.names()


def test_f3_the_real_hosts_listing_rules_for_a_plugins_tools() -> None:
    """Listed while enabled and not awaiting consent, whatever else: suspended, or set to deny
    (`XivMcp/Api/PluginApi.cs` RegisterTool's `Available`, `ToolGate.IsListed`)."""
    offering = Offering()
    look = ToolDefinition(name="p_look", description="Looks around.", read_only=True)
    act = ToolDefinition(name="p_act", description="Acts.", capabilities=["game_ui"])
    offering.registry.register("P", look)
    offering.registry.register("P", act)
    offering.policies.enable("P", {"p_look": frozenset(), "p_act": frozenset({"game_ui"})})
    offering.policies.set_tool_mode("P", "p_act", Mode.DENY)
    offering.policies.set_capability_mode("P", "game_ui", Mode.DENY)
    assert {"p_look", "p_act"} <= set(offering.names())  # denied: still listed, the call says why
    offering.policies.suspend("P", "p_act: 10 gil spent. (not declared)")
    assert {"p_look", "p_act"} <= set(offering.names())  # suspended: still listed
    descriptions = {t.name: t.description for t in offering.tools.tools()}
    assert descriptions["p_look"] == "Looks around. [Provided by the third-party plugin P.]"
    offering.policies.lift_suspension("P")
    offering.policies.on_registered("P", {"p_look": frozenset(), "p_act": frozenset({"game_ui", "spend_gil"})})
    assert "p_act" not in offering.names()  # awaiting consent: not listed
    offering.policies.disable("P")
    assert "p_look" not in offering.names()  # kept disabled: not listed


def test_f3_a_plugin_is_named_by_its_display_name_and_a_new_one_is_listed_at_once() -> None:
    """The host names a plugin's tools by the installed plugins' display names (F2); a manifest
    declared after the tools registered moves `names_version`, so the list is built again."""
    names = {"P": "P"}
    version = 0
    registry, policies = ToolRegistry(core=CORE_DEFINITIONS), Policies()
    offered = OfferedTools(registry, policies, display_name=names.__getitem__, names_version=lambda: version)
    tools = ToolList(cast(Any, SimpleNamespace(offered=offered)))
    registry.register("P", ToolDefinition(name="p_look", description="Looks around.", read_only=True))
    policies.enable("P", {"p_look": frozenset()})

    def description() -> str | None:
        return next(t.description for t in tools.tools() if t.name == "p_look")

    assert description() == "Looks around. [Provided by the third-party plugin P.]"
    names["P"], version = "Peeking Plugin", version + 1
    assert description() == "Looks around. [Provided by the third-party plugin Peeking Plugin.]"
