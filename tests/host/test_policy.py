"""The player's decisions per plugin and the gate's verdicts (rules G5, T1, T7, A3, A5, A6)."""

from __future__ import annotations

import json

import pytest

from gates.contract import Answer, Mode, PluginState, ToolDefinition, UnknownCapabilityError, ok_reply
from gates.host import SettingError, StoreError
from gates.host.policy._decision import Allow, Ask, Deny
from gates.host.policy._policy import Policies
from gates.host.policy._records import PluginRecord, Registration, ReviewKind, registration_of

OWNER = "MyPlugin"
NAME = "My Plugin"


def tool(name: str, *capabilities: str, read_only: bool = False) -> ToolDefinition:
    return ToolDefinition(
        name=name, description="Does a thing.", read_only=read_only, capabilities=["read_game", *capabilities]
    )


FOLLOW = tool("myplugin_follow", "move_character")
BUY = tool("myplugin_buy", "move_character", "spend_gil")
STATUS = tool("myplugin_status", read_only=True)
PURGE = tool("myplugin_purge", "discard_items")


def registration(*tools: ToolDefinition) -> Registration:
    return registration_of(tools)


def enabled_policies(*tools: ToolDefinition) -> Policies:
    policies = Policies()
    policies.enable(OWNER, registration(*tools))
    return policies


# --------------------------------------------------------------------------- states


def test_g5_a_new_plugin_is_undecided_and_its_calls_are_refused_naming_the_setting() -> None:
    policies = Policies()
    assert policies.state(OWNER) is PluginState.UNDECIDED
    assert not policies.can_run(OWNER)
    review = policies.on_registered(OWNER, registration(FOLLOW, BUY))
    assert review.kind is ReviewKind.NEW_PLUGIN
    assert review.new_tools == ("myplugin_follow", "myplugin_buy")
    assert review.new_capabilities == ("spend_gil", "move_character")  # riskiest first
    decision = policies.decide(OWNER, STATUS, NAME)
    assert decision == Deny(
        "My Plugin's tools aren't allowed yet. The player can allow the plugin in /xivmcp → Third-party plugins.",
        reason="undecided",
    )


def test_g5_enabling_lets_the_plugin_run() -> None:
    policies = enabled_policies(STATUS)
    assert policies.state(OWNER) is PluginState.ENABLED and policies.can_run(OWNER)
    assert policies.decide(OWNER, STATUS) == Allow()


def test_g5_keep_disabled_is_not_asked_again_while_the_registration_stays_the_same() -> None:
    policies = Policies()
    policies.keep_disabled(OWNER, registration(FOLLOW, STATUS))
    assert policies.state(OWNER) is PluginState.KEPT_DISABLED
    assert policies.on_registered(OWNER, registration(FOLLOW, STATUS)).kind is ReviewKind.NONE
    assert policies.on_registered(OWNER, registration(FOLLOW)).kind is ReviewKind.NONE
    decision = policies.decide(OWNER, FOLLOW, NAME)
    assert decision == Deny(
        "My Plugin's tools aren't allowed yet. The player can allow the plugin in /xivmcp → Third-party plugins.",
        reason="kept_disabled",
    )


def test_a6_a_kept_disabled_plugin_whose_registration_grows_is_asked_again() -> None:
    policies = Policies()
    policies.keep_disabled(OWNER, registration(FOLLOW))
    review = policies.on_registered(OWNER, registration(FOLLOW, BUY))
    assert review.kind is ReviewKind.CHANGED
    assert review.new_tools == ("myplugin_buy",) and review.new_capabilities == ("spend_gil",)
    assert policies.state(OWNER) is PluginState.KEPT_DISABLED


def test_t7_a_new_tool_pauses_an_enabled_plugin_until_the_player_consents_again() -> None:
    policies = enabled_policies(FOLLOW)
    review = policies.on_registered(OWNER, registration(FOLLOW, STATUS))
    assert review.kind is ReviewKind.CHANGED and review.new_tools == ("myplugin_status",)
    assert policies.state(OWNER) is PluginState.AWAITING_CONSENT
    for definition in (FOLLOW, STATUS):  # all its tools pause, old ones too
        decision = policies.decide(OWNER, definition, NAME)
        assert isinstance(decision, Deny)
        assert decision.message == (
            "My Plugin changed its registration (new tools or capabilities) and waits for the player to "
            "consent again in /xivmcp → Third-party plugins."
        )
    assert policies.check_permission(OWNER, "move_character") is Mode.DENY
    policies.enable(OWNER, registration(FOLLOW, STATUS))
    assert policies.state(OWNER) is PluginState.ENABLED
    assert policies.decide(OWNER, STATUS) == Allow()


def test_a6_a_capability_new_to_the_plugin_asks_again_one_it_had_on_another_tool_does_not() -> None:
    # SPEC: F5 - the real host compares the declared capabilities with the plugin's reviewed ones as
    # a whole (RegistrationReview.Check: `!policy.ReviewedCapabilities.Contains(c.Id)`), not tool by tool
    policies = enabled_policies(FOLLOW, BUY)
    moved = tool("myplugin_follow", "move_character", "spend_gil")  # spend_gil: BUY's, consented already
    assert policies.on_registered(OWNER, registration(moved, BUY)).kind is ReviewKind.NONE
    assert policies.state(OWNER) is PluginState.ENABLED
    grown = tool("myplugin_follow", "move_character", "chat_send")  # chat_send: no consented tool had it
    review = policies.on_registered(OWNER, registration(grown, BUY))
    assert review.kind is ReviewKind.CHANGED
    assert review.new_tools == () and review.new_capabilities == ("chat_send",)
    assert policies.state(OWNER) is PluginState.AWAITING_CONSENT


def test_a6_removing_tools_or_capabilities_never_asks() -> None:
    policies = enabled_policies(FOLLOW, BUY, STATUS)
    assert policies.on_registered(OWNER, registration(FOLLOW)).kind is ReviewKind.NONE
    fewer = tool("myplugin_buy", "move_character")
    assert policies.on_registered(OWNER, registration(FOLLOW, fewer)).kind is ReviewKind.NONE
    assert policies.on_registered(OWNER, {}).kind is ReviewKind.NONE
    assert policies.state(OWNER) is PluginState.ENABLED


def test_a6_consent_covers_only_what_was_shown() -> None:
    policies = Policies()
    review = policies.enable(OWNER, registration(FOLLOW), current=registration(FOLLOW, BUY))
    assert review.kind is ReviewKind.CHANGED and review.new_tools == ("myplugin_buy",)
    assert policies.state(OWNER) is PluginState.AWAITING_CONSENT
    assert policies.enable(OWNER, registration(FOLLOW, BUY), current=registration(FOLLOW, BUY)).kind is (
        ReviewKind.NONE
    )
    assert policies.state(OWNER) is PluginState.ENABLED


def test_g5_disabling_an_enabled_plugin_keeps_it_disabled() -> None:
    policies = enabled_policies(FOLLOW)
    policies.disable(OWNER)
    assert policies.state(OWNER) is PluginState.KEPT_DISABLED


def test_t2_a_suspended_plugin_is_refused_until_the_player_lifts_it_and_returns_to_its_decision() -> None:
    policies = enabled_policies(FOLLOW)
    policies.suspend(OWNER, "myplugin_follow: gil 1,000 → 800 (not declared)")
    assert policies.state(OWNER) is PluginState.SUSPENDED and not policies.can_run(OWNER)
    decision = policies.decide(OWNER, FOLLOW, NAME)
    assert decision == Deny(
        "My Plugin is suspended by XIV MCP (myplugin_follow: gil 1,000 → 800 (not declared)). "
        "Only the player can lift that, in /xivmcp → Third-party plugins.",
        reason="suspended",
    )
    assert policies.lift_suspension(OWNER) is PluginState.ENABLED
    assert policies.record(OWNER).suspend_reason is None

    awaiting = enabled_policies(FOLLOW)
    awaiting.on_registered(OWNER, registration(FOLLOW, BUY))
    awaiting.suspend(OWNER, "x")
    assert awaiting.lift_suspension(OWNER) is PluginState.AWAITING_CONSENT


def test_t2_f5_a_suspended_plugin_not_enabled_or_awaiting_consent_is_refused_for_that_first() -> None:
    # SPEC: F5 - the real host's order (ToolGate.InvokeAsync): not enabled, awaiting consent, suspended
    where = "/xivmcp → Third-party plugins"
    awaiting = enabled_policies(FOLLOW)
    awaiting.suspend(OWNER, "x")
    awaiting.on_registered(OWNER, registration(FOLLOW, BUY))  # a suspended plugin's registration grows
    assert awaiting.decide(OWNER, FOLLOW, NAME) == Deny(
        f"My Plugin changed its registration (new tools or capabilities) and waits for the player to consent "
        f"again in {where}.",
        reason="awaiting_consent",
    )
    kept = enabled_policies(FOLLOW)
    kept.suspend(OWNER, "x")
    kept.disable(OWNER)  # the player turns a suspended plugin off
    assert kept.decide(OWNER, FOLLOW, NAME) == Deny(
        f"My Plugin's tools aren't allowed yet. The player can allow the plugin in {where}.", reason="kept_disabled"
    )


# --------------------------------------------------------------------------- modes


def test_t1_capabilities_default_to_allow_for_reading_and_ask_for_the_rest() -> None:
    policies = enabled_policies(FOLLOW, BUY, STATUS)
    assert policies.capability_mode(OWNER, "read_game") is Mode.ALLOW
    assert policies.capability_mode(OWNER, "spend_gil") is Mode.ASK
    assert policies.capability_mode(OWNER, "discard_items") is Mode.ASK
    assert policies.capability_mode(OWNER, "no_such_capability") is Mode.DENY
    assert policies.decide(OWNER, BUY) == Ask(("move_character", "spend_gil"))
    assert policies.decide(OWNER, STATUS) == Allow()


def test_t1_the_player_sets_each_capability_of_each_plugin() -> None:
    policies = enabled_policies(FOLLOW, BUY)
    policies.set_capability_mode(OWNER, "move_character", Mode.ALLOW)
    assert policies.decide(OWNER, FOLLOW) == Allow()
    assert policies.decide(OWNER, BUY) == Ask(("move_character", "spend_gil"))  # strictest section wins
    policies.set_capability_mode(OWNER, "spend_gil", Mode.ALLOW)
    assert policies.decide(OWNER, BUY) == Allow()
    policies.set_capability_mode(OWNER, "spend_gil", None)
    assert policies.capability_mode(OWNER, "spend_gil") is Mode.ASK
    assert policies.capability_mode("OtherPlugin", "move_character") is Mode.ASK  # per plugin


def test_a3_a_denied_capability_blocks_the_tool_naming_the_setting() -> None:
    policies = enabled_policies(BUY)
    policies.set_capability_mode(OWNER, "move_character", Mode.ALLOW)
    policies.set_capability_mode(OWNER, "spend_gil", Mode.DENY)
    decision = policies.decide(OWNER, BUY, NAME)
    assert decision == Deny('"Spend gil" is blocked for My Plugin in /xivmcp, so myplugin_buy can\'t run.')


def test_t1_a_critical_capability_can_never_be_set_to_allow() -> None:
    policies = enabled_policies(PURGE)
    with pytest.raises(SettingError, match=r'"Destroy items" \(discard_items\) is critical'):
        policies.set_capability_mode(OWNER, "discard_items", Mode.ALLOW)
    policies.set_capability_mode(OWNER, "discard_items", Mode.DENY)
    assert isinstance(policies.decide(OWNER, PURGE), Deny)


def test_t1_setting_an_unknown_capability_is_refused() -> None:
    with pytest.raises(UnknownCapabilityError, match="Unknown capability 'teleport'"):
        Policies().set_capability_mode(OWNER, "teleport", Mode.ALLOW)


def test_a5_a_tool_set_on_its_own_ignores_its_capabilities_settings() -> None:
    policies = enabled_policies(FOLLOW, BUY)
    policies.set_tool_mode(OWNER, "myplugin_buy", Mode.ALLOW)
    assert policies.decide(OWNER, BUY) == Allow()
    policies.set_capability_mode(OWNER, "move_character", Mode.ALLOW)
    policies.set_tool_mode(OWNER, "myplugin_follow", Mode.DENY)
    assert policies.decide(OWNER, FOLLOW, NAME) == Deny(
        "myplugin_follow is set to Deny for My Plugin in /xivmcp, so it can't run. The player can change it there."
    )
    policies.set_tool_mode(OWNER, "myplugin_follow", Mode.ASK)
    assert policies.decide(OWNER, FOLLOW) == Ask(("move_character",))
    policies.set_tool_mode(OWNER, "myplugin_follow", None)
    assert policies.decide(OWNER, FOLLOW) == Allow()


def test_a5_critical_tools_still_ask_every_time() -> None:
    policies = enabled_policies(PURGE)
    policies.set_tool_mode(OWNER, "myplugin_purge", Mode.ALLOW)
    assert policies.tool_mode(OWNER, PURGE) is Mode.ASK
    assert policies.decide(OWNER, PURGE) == Ask(("discard_items",), critical=True)
    policies.remember(OWNER, PURGE, Answer.APPROVE_SESSION)
    policies.remember(OWNER, PURGE, Answer.ALWAYS_ALLOW)
    assert policies.decide(OWNER, PURGE) == Ask(("discard_items",), critical=True)


def test_a3_approve_for_this_session_skips_the_next_ask_until_the_session_ends() -> None:
    policies = enabled_policies(BUY)
    policies.remember(OWNER, BUY, Answer.APPROVE_ONCE)
    assert isinstance(policies.decide(OWNER, BUY), Ask)
    policies.remember(OWNER, BUY, Answer.APPROVE_SESSION)
    assert policies.decide(OWNER, BUY) == Allow("approved_session")
    assert policies.clear_session(OWNER) == 1
    assert isinstance(policies.decide(OWNER, BUY), Ask)
    policies.remember(OWNER, BUY, Answer.APPROVE_SESSION)
    policies.suspend(OWNER, "x")
    policies.lift_suspension(OWNER)
    assert isinstance(policies.decide(OWNER, BUY), Ask)  # a suspension ends the session's approvals


def test_a3_always_allow_sets_just_that_tool_to_allow() -> None:
    policies = enabled_policies(FOLLOW, BUY)
    policies.remember(OWNER, BUY, Answer.ALWAYS_ALLOW)
    assert policies.record(OWNER).tool_modes == {"myplugin_buy": Mode.ALLOW}
    assert policies.decide(OWNER, BUY) == Allow()
    assert policies.capability_mode(OWNER, "spend_gil") is Mode.ASK
    assert isinstance(policies.decide(OWNER, FOLLOW), Ask)


def test_g5_check_permission_is_deny_unless_the_plugin_can_run() -> None:
    policies = Policies()
    assert policies.check_permission(OWNER, "read_game") is Mode.DENY
    policies.enable(OWNER, registration(BUY))
    assert policies.check_permission(OWNER, "read_game") is Mode.ALLOW
    assert policies.check_permission(OWNER, "spend_gil") is Mode.ASK
    policies.suspend(OWNER, "x")
    assert policies.check_permission(OWNER, "read_game") is Mode.DENY
    with pytest.raises(UnknownCapabilityError, match="Unknown capability 'gil'"):
        policies.check_permission(OWNER, "gil")


# --------------------------------------------------------------------------- approvals during a call


def test_g9_a_request_for_an_undeclared_capability_is_denied_and_flagged() -> None:
    policies = enabled_policies(BUY)
    for capability in ("chat_send", "no_such_capability"):
        decision = policies.decide_request(OWNER, BUY, capability)
        assert isinstance(decision, Deny) and decision.flagged and decision.reason == "refused"
        assert "can only ask for capabilities it declared" in decision.message


def test_g9_a_request_follows_the_tool_then_the_capability_then_the_session() -> None:
    policies = enabled_policies(BUY)
    assert policies.decide_request(OWNER, BUY, "spend_gil") == Ask(("spend_gil",))
    policies.remember(OWNER, BUY, Answer.APPROVE_SESSION, capability="spend_gil")
    assert policies.decide_request(OWNER, BUY, "spend_gil") == Allow("approved_session")
    assert policies.decide_request(OWNER, BUY, "move_character") == Ask(("move_character",))
    policies.set_capability_mode(OWNER, "move_character", Mode.DENY)
    denied = policies.decide_request(OWNER, BUY, "move_character", NAME)
    assert isinstance(denied, Deny) and not denied.flagged
    policies.set_tool_mode(OWNER, "myplugin_buy", Mode.ALLOW)
    assert policies.decide_request(OWNER, BUY, "move_character") == Allow()


def test_g9_a_request_is_denied_while_the_plugin_cannot_run() -> None:
    policies = enabled_policies(BUY)
    policies.on_registered(OWNER, registration(BUY, FOLLOW))
    decision = policies.decide_request(OWNER, BUY, "spend_gil", NAME)
    assert isinstance(decision, Deny) and decision.reason == "awaiting_consent"


# --------------------------------------------------------------------------- replies


def test_g5_register_reply_reports_state_and_capability_modes() -> None:
    policies = Policies()
    undecided = json.loads(ok_reply(policies.register_reply(OWNER, BUY)))
    assert undecided == {
        "ok": True,
        "name": "myplugin_buy",
        "enabled": False,
        "awaitingConsent": False,
        "state": "undecided",
        "capabilities": [
            {"id": "read_game", "mode": "deny"},
            {"id": "move_character", "mode": "deny"},
            {"id": "spend_gil", "mode": "deny"},
        ],
    }
    policies.enable(OWNER, registration(BUY))
    enabled = policies.register_reply(OWNER, BUY)
    assert enabled.state is PluginState.ENABLED
    assert [c.mode for c in enabled.capabilities] == [Mode.ALLOW, Mode.ASK, Mode.ASK]


def test_g5_get_status_reports_state_tools_capabilities_and_dependencies() -> None:
    policies = enabled_policies(FOLLOW, BUY)
    policies.set_tool_mode(OWNER, "myplugin_follow", Mode.ALLOW)
    status = json.loads(ok_reply(policies.status_reply(OWNER, [FOLLOW, BUY])))
    assert status == {
        "ok": True,
        "state": "enabled",
        "canRun": True,
        "suspendReason": None,
        "tools": [
            {"name": "myplugin_follow", "mode": "allow", "own": True},
            {"name": "myplugin_buy", "mode": "ask", "own": False},
        ],
        "capabilities": [
            {"id": "read_game", "mode": "allow"},
            {"id": "move_character", "mode": "ask"},
            {"id": "spend_gil", "mode": "ask"},
        ],
        "dependencies": [],
    }
    policies.suspend(OWNER, "undeclared gil change")
    suspended = policies.status_reply(OWNER, [FOLLOW])
    assert suspended.state is PluginState.SUSPENDED and not suspended.can_run
    assert suspended.suspend_reason == "undeclared gil change"
    assert [t.mode for t in suspended.tools] == [Mode.DENY]


def test_g5_check_permission_reply() -> None:
    policies = enabled_policies(BUY)
    reply = json.loads(ok_reply(policies.permission_reply(OWNER, "spend_gil")))
    assert reply == {
        "ok": True,
        "capability": "spend_gil",
        "mode": "ask",
        "enabled": True,
        "suspended": False,
        "state": "enabled",
    }


# --------------------------------------------------------------------------- persistence


class MemoryStore:
    def __init__(self) -> None:
        self.saved: dict[str, PluginRecord] = {}
        self.fail = False
        self.writes = 0

    def load(self) -> dict[str, PluginRecord]:
        return {owner: record.copy() for owner, record in self.saved.items()}

    def save(self, owner: str, record: PluginRecord) -> None:
        if self.fail:
            raise StoreError("disk full")
        self.saved[owner] = record.copy()
        self.writes += 1


def test_a6_the_consented_registration_survives_a_restart_so_the_same_tools_are_not_asked_again() -> None:
    store = MemoryStore()
    first = Policies(store)
    first.enable(OWNER, registration(FOLLOW, BUY))
    first.set_capability_mode(OWNER, "spend_gil", Mode.DENY)
    restarted = Policies(store)
    for definition in (FOLLOW, BUY):  # the plugin registers again, one tool at a time
        assert restarted.on_registered(OWNER, registration(definition)).kind is ReviewKind.NONE
    assert restarted.on_registered(OWNER, registration(FOLLOW, BUY)).kind is ReviewKind.NONE
    assert restarted.state(OWNER) is PluginState.ENABLED
    assert restarted.capability_mode(OWNER, "spend_gil") is Mode.DENY


def test_a_setting_set_to_what_it_is_already_writes_nothing() -> None:
    """Each write waits for the disk; --auto-enable sets the same modes again on every tool."""
    store = MemoryStore()
    policies = Policies(store)
    policies.enable(OWNER, registration(FOLLOW))
    policies.set_capability_mode(OWNER, "move_character", Mode.ALLOW)
    assert store.writes == 2
    policies.set_capability_mode(OWNER, "move_character", Mode.ALLOW)
    policies.enable(OWNER, registration(FOLLOW))
    policies.set_tool_mode(OWNER, "myplugin_buy", None)
    assert store.writes == 2
    version = policies.version
    policies.set_capability_mode(OWNER, "move_character", Mode.ASK)
    assert store.writes == 3 and policies.version == version + 1
    assert Policies(store).capability_mode(OWNER, "move_character") is Mode.ASK


def test_a_failed_write_leaves_the_decision_unchanged() -> None:
    store = MemoryStore()
    policies = Policies(store)
    store.fail = True
    with pytest.raises(StoreError):
        policies.enable(OWNER, registration(FOLLOW))
    assert policies.state(OWNER) is PluginState.UNDECIDED
    assert OWNER not in store.saved


# --------------------------------------------------------------------------- what is offered


def test_the_offered_list_follows_every_change_of_the_registry_and_of_the_players_decisions() -> None:
    """The third-party list is kept between tools/list pages; each change must show at once. It is
    the real host's list (F3): enabled and not awaiting consent; denied and suspended tools stay."""
    from gates.host.policy._registry import ToolRegistry
    from gates.host.tools._offer import OfferedTools

    registry, policies = ToolRegistry(), Policies()
    offered = OfferedTools(registry, policies)

    def names() -> list[str]:
        return [t.definition.name for t in offered.all() if t.toolset == OWNER]

    registry.register(OWNER, FOLLOW)
    registry.register(OWNER, STATUS)
    assert names() == []  # undecided
    policies.enable(OWNER, registration(FOLLOW, STATUS))
    assert names() == ["myplugin_follow", "myplugin_status"]
    kept = offered.all()
    assert all(a is b for a, b in zip(kept, offered.all(), strict=True))  # kept while nothing changes
    policies.set_tool_mode(OWNER, "myplugin_follow", Mode.DENY)
    assert names() == ["myplugin_follow", "myplugin_status"]  # listed: the call says why it can't run
    policies.set_tool_mode(OWNER, "myplugin_follow", None)
    policies.set_capability_mode(OWNER, "move_character", Mode.DENY)
    assert names() == ["myplugin_follow", "myplugin_status"]
    policies.set_capability_mode(OWNER, "move_character", None)
    registry.register(OWNER, BUY)
    policies.on_registered(OWNER, registration(FOLLOW, STATUS, BUY))
    assert names() == []  # awaiting consent: none of its tools is listed
    policies.enable(OWNER, registration(FOLLOW, STATUS, BUY))
    assert names() == ["myplugin_follow", "myplugin_status", "myplugin_buy"]
    policies.suspend(OWNER, "it did something")
    assert names() == ["myplugin_follow", "myplugin_status", "myplugin_buy"]  # suspended: still listed
    policies.lift_suspension(OWNER)
    registry.unregister(OWNER, "myplugin_status")
    assert names() == ["myplugin_follow", "myplugin_buy"]
    policies.disable(OWNER)
    assert names() == []
    policies.enable(OWNER, registration(FOLLOW, BUY))
    policies.forget(OWNER)
    assert names() == []
