"""The XIV MCP host: the registry, the player's decisions, approvals, calls and the audit log.

`Host` is the composition root of the host's core and holds the logic behind every gate; it
does not know how gates are bound to the bus (`_host_gates.py`) nor how the player reaches it
(`_player.py`). Its methods raise `RefusedError` with the message the caller reads.

    RegisterTool ─► definition checks ─► registry ─► policy review (consent, growth) ─► reply
    call_tool    ─► ToolGate: deny | ask (approval) | allow ─► plugin's Invoke ─► audit
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from broker import PluginInterface

from ._approvals import Approval, Approvals
from ._audit import AuditLog
from ._calls import CallOutcome, PluginCalls
from ._clock import Clock, ManualClock, SystemClock
from ._contract import (
    CAPABILITY_IDS,
    HOST_NAME,
    Answer,
    ApprovalReply,
    ApprovalState,
    AuditKind,
    CheckPermissionReply,
    DependenciesReply,
    DependencyEntry,
    Mode,
    PluginState,
    RegisterReply,
    Risk,
    StatusReply,
    ToolDefinition,
    decode_approval_request,
    encode_json,
    find_capability,
)
from ._core_tools import CORE_DEFINITIONS, CoreTools
from ._decision import Allow, Ask, Deny
from ._definition import acting_capabilities, parse_tool_definition
from ._dependencies import DependencyBook, PluginWorld, check_dependencies, parse_dependencies
from ._endpoint import DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT
from ._errors import RefusedError, quote
from ._policy import Policies, Registration, registration_of
from ._registry import RegistryChange, ToolRegistry
from ._store import PolicyDatabase

log = logging.getLogger("gates.host")


@dataclass(frozen=True, slots=True)
class HostConfig:
    """How to run the host. Only the command line fills this from the environment."""

    bus: str | None = None
    data_dir: Path = field(default_factory=lambda: Path(".xivmcp-data"))
    auto_enable: bool = False
    """Enable every plugin and allow its capabilities (tests and CI)."""
    test_clock: bool = False
    """Use a manual clock that only `advance_clock` moves (tests only)."""
    tick: float = 0.25
    """How often deadlines (approvals, cancelled calls) are checked, in real seconds."""
    mcp_enabled: bool = False
    """Serve AI apps over MCP Streamable HTTP (`xivmcp host` and `xivmcp up` turn it on)."""
    http_host: str = DEFAULT_HTTP_HOST
    http_port: int = DEFAULT_HTTP_PORT
    """Where the MCP endpoint listens; port 0 picks a free one."""
    allow_remote_http: bool = False
    """Allow a non-loopback `http_host` (the endpoint then answers other machines that have the token)."""
    http_required: bool = True
    """False: if the address is taken, warn and run without the endpoint (the default address)."""
    auth_disabled: bool = False
    """TESTS ONLY (MCP conformance runs): serve without the bearer token. Loopback only."""


class Host:
    """Everything the host keeps; one per process."""

    def __init__(self, config: HostConfig, pi: PluginInterface, task_group: anyio.abc.TaskGroup) -> None:
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self.config = config
        self.pi = pi
        self.clock: Clock = ManualClock() if config.test_clock else SystemClock()
        self.audit = AuditLog.in_dir(config.data_dir)
        self._db = PolicyDatabase.in_dir(config.data_dir)
        self.policies = Policies(self._db)
        self.core_tools = CoreTools(self)
        self.registry = ToolRegistry(core=CORE_DEFINITIONS)
        self.approvals = Approvals(self.clock, audit=self.audit)
        self.dependencies = DependencyBook()
        self.calls = PluginCalls(pi, task_group, self.clock, on_finished=self._call_finished)
        self._seen: dict[str, Registration] = {}
        """Each plugin's latest registration as the player would be shown it (in memory)."""
        self._change_listeners: list[Callable[[], None]] = []
        self.registry.on_change(self._registry_changed)

    def close(self) -> None:
        self.calls.disposing()
        self._db.close()
        self.audit.close()

    # --- changes of the offered tools ------------------------------------------------------

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` whenever the set of tools that may run can have changed."""
        self._change_listeners.append(callback)
        return lambda: self._change_listeners.remove(callback)

    def _changed(self) -> None:
        for callback in list(self._change_listeners):
            try:
                callback()
            except Exception:
                log.exception("a change listener failed")

    def _registry_changed(self, change: RegistryChange) -> None:
        self._changed()

    def offered_tools(self) -> list[tuple[str, ToolDefinition]]:
        """(owner, definition) of every third-party tool that may run now."""
        return [
            (t.owner, t.definition)
            for t in self.registry.all()
            if t.owner != HOST_NAME
            and self.policies.can_run(t.owner)
            and self.tool_mode(t.owner, t.definition) is not Mode.DENY
        ]

    def tool_mode(self, owner: str, definition: ToolDefinition) -> Mode:
        return self.policies.check_tool(owner, definition)

    # --- gates a plugin calls --------------------------------------------------------------

    @staticmethod
    def check_owner(owner: str | None, caller: str) -> str:
        """G3: `owner` must be the calling process's InternalName, as the bus reports it."""
        if not owner:
            raise RefusedError("'owner' is required: pass your plugin's InternalName.")
        if owner != caller:
            raise RefusedError(
                f"{quote(owner)} is not your InternalName: this call comes from '{caller}'. "
                "A plugin can only act as itself; pass your own InternalName as owner."
            )
        if owner == HOST_NAME:
            raise RefusedError(f"'{HOST_NAME}' is XIV MCP itself; plugins register under their own InternalName.")
        return owner

    def register_tool(self, owner: str, definition_json: str | None) -> RegisterReply:
        definition = parse_tool_definition(definition_json or "")
        self.registry.register(owner, definition)
        registration = registration_of(t.definition for t in self.registry.tools_of(owner))
        self._seen[owner] = registration
        before = self.policies.state(owner)
        review = self.policies.on_registered(owner, registration)
        if self.config.auto_enable and self.policies.state(owner) is not PluginState.ENABLED:
            self._auto_enable(owner, registration)
        elif review.needs_decision:
            self.audit.record(
                AuditKind.REGISTRATION,
                owner,
                definition.name,
                details={
                    "review": review.kind.value,
                    "newTools": list(review.new_tools),
                    "newCapabilities": list(review.new_capabilities),
                    "state": self.policies.state(owner).value,
                },
            )
        if self.policies.state(owner) is not before:
            self._changed()
        return self.policies.register_reply(owner, definition)

    def _auto_enable(self, owner: str, registration: Registration) -> None:
        if self.policies.state(owner) is PluginState.SUSPENDED:
            return
        self.policies.enable(owner, registration, registration)
        for capability in sorted({c for caps in registration.values() for c in caps}):
            cap = find_capability(capability)
            if cap is not None and cap.risk is not Risk.CRITICAL:
                self.policies.set_capability_mode(owner, capability, Mode.ALLOW)
        self.audit.record(AuditKind.CONSENT, owner, details={"auto": True, "tools": sorted(registration)})

    def unregister_tool(self, owner: str, name: str | None) -> bool:
        if not name:
            raise RefusedError("'name' is required: the tool name to remove.")
        removed = self.registry.unregister(owner, name)
        if removed:
            self._seen[owner] = registration_of(t.definition for t in self.registry.tools_of(owner))
        return removed

    def unregister_all(self, owner: str) -> int:
        removed = self.registry.unregister_all(owner)
        self._seen.pop(owner, None)
        return removed

    def status(self, owner: str) -> StatusReply:
        definitions = [t.definition for t in self.registry.tools_of(owner)]
        return self.policies.status_reply(owner, definitions, self.dependency_entries(owner))

    def check_permission(self, owner: str, capability: str | None) -> CheckPermissionReply:
        if not capability:
            raise RefusedError(f"'capability' is required: one of {', '.join(CAPABILITY_IDS)}.")
        return self.policies.permission_reply(owner, capability)

    def declare_dependencies(self, owner: str, json_text: str | None) -> DependenciesReply:
        declared = parse_dependencies(json_text or "")
        self.dependencies.declare(owner, declared)
        self.audit.record(AuditKind.DEPENDENCIES, owner, details={"tools": [d.tool for d in declared]})
        return DependenciesReply(dependencies=self.dependency_entries(owner))

    def dependency_entries(self, owner: str) -> list[DependencyEntry]:
        world = PluginWorld(connected=frozenset(self.pi.peers))
        return check_dependencies(
            self.dependencies.declared(owner),
            world,
            owner_of=self.registry.owner_of,
            enabled=self.policies.can_run,
        )

    def request_approval(self, caller: str, call_id: str | None, request_json: str | None) -> ApprovalReply:
        if not call_id:
            raise RefusedError("'callId' is required: the id of the call you got in Invoke.")
        owner = self.calls.owner_of(call_id)
        tool_name = self.calls.tool_of(call_id)
        if owner is None or tool_name is None:
            raise RefusedError(f"There is no running call {quote(call_id)}; ask for approval only during a call.")
        if owner != caller:
            raise RefusedError(
                f"The call {quote(call_id)} belongs to {owner}; a plugin asks only during its own calls."
            )
        request = decode_approval_request(request_json or "")
        registered = self.registry.get(tool_name)
        if registered is None:
            raise RefusedError(f"{tool_name} is no longer registered.")
        decision = self.policies.decide_request(owner, registered.definition, request.capability)
        approval = self.approvals.request(call_id, owner, tool_name, request.capability, request.summary, decision)
        return approval.reply()

    def get_approval(self, approval_id: str | None) -> ApprovalReply:
        if not approval_id:
            raise RefusedError("'approvalId' is required: the id RequestApproval returned.")
        return self.approvals.get(approval_id).reply()

    # --- the player ------------------------------------------------------------------------

    def registration_shown(self, plugin: str) -> Registration:
        """What the player decides on: the plugin's registration as last seen, or, while it has no
        tools here (it unregistered them, or is away), the registration they decided on before.
        Deciding again on a plugin that is away must not forget what it was consented to."""
        seen = self._seen.get(plugin)
        if seen:
            return seen
        tools = self.registry.tools_of(plugin)
        if tools:
            return registration_of(t.definition for t in tools)
        if plugin not in self.policies.known():
            raise RefusedError(f"XIV MCP knows no plugin named {quote(plugin)}; see `xivmcp plugins`.")
        return self.policies.record(plugin).consented

    def enable(self, plugin: str) -> PluginState:
        shown = self.registration_shown(plugin)
        self.policies.enable(plugin, shown, shown)
        self.audit.record(AuditKind.CONSENT, plugin, details={"tools": sorted(shown)})
        self._changed()
        return self.policies.state(plugin)

    def keep_disabled(self, plugin: str) -> PluginState:
        self.policies.keep_disabled(plugin, self.registration_shown(plugin))
        self.audit.record(AuditKind.CONSENT, plugin, details={"keptDisabled": True})
        self._changed()
        return self.policies.state(plugin)

    def lift(self, plugin: str) -> PluginState:
        if self.policies.state(plugin) is not PluginState.SUSPENDED:
            raise RefusedError(f"{plugin} is not suspended (it is {self.policies.state(plugin).value}).")
        state = self.policies.lift_suspension(plugin)
        self.audit.record(AuditKind.SUSPENSION, plugin, details={"lifted": True})
        self._changed()
        return state

    def suspend(self, plugin: str, reason: str) -> None:
        """T2: an undeclared effect suspends the plugin, with a reason, until the player lifts it."""
        self.policies.suspend(plugin, reason)
        self.audit.record(AuditKind.SUSPENSION, plugin, flagged=True, details={"reason": reason})
        self._changed()

    def set_mode(self, plugin: str, target: str, mode_text: str) -> str:
        mode = None if mode_text == "default" else Mode(mode_text) if mode_text in ("allow", "ask", "deny") else None
        if mode is None and mode_text != "default":
            raise RefusedError(f"{quote(mode_text)} is not a mode: use allow, ask, deny or default.")
        if target in CAPABILITY_IDS:
            self.policies.set_capability_mode(plugin, target, mode)
        elif self.registry.owner_of(target) == plugin or target in self.policies.record(plugin).consented:
            self.policies.set_tool_mode(plugin, target, mode)
        else:
            raise RefusedError(
                f"{quote(target)} is neither a capability ({', '.join(CAPABILITY_IDS)}) "
                f"nor one of {quote(plugin)}'s tools."
            )
        self.audit.record(AuditKind.SETTING, plugin, details={"target": target, "mode": mode_text})
        self._changed()
        return mode_text

    def answer(self, approval_id: str, answer: Answer) -> Approval:
        approval = self.approvals.answer(approval_id, answer)
        registered = self.registry.get(approval.tool)
        if registered is not None and approval.state is ApprovalState.APPROVED:
            capability = (
                None if "," in approval.capability or approval.call_id.startswith("pre") else approval.capability
            )
            self.policies.remember(approval.plugin, registered.definition, answer, capability)
            if answer is Answer.ALWAYS_ALLOW:
                self._changed()
        return approval

    def advance_clock(self, seconds: float) -> float:
        if not isinstance(self.clock, ManualClock):
            raise RefusedError("The host runs on the real clock; start it with --test-clock to move time by hand.")
        self.clock.advance(seconds)
        self.expire_due()
        return self.clock.now()

    def expire_due(self) -> None:
        self.approvals.expire_due()
        self.calls.expire_due()

    # --- calls as the assistant makes them ------------------------------------------------

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, *, on_progress: Callable[[str], None] | None = None
    ) -> CallOutcome:
        """Decide (allow / ask / deny) and run a third-party tool; errors are written for the assistant."""
        registered = self.registry.get(name)
        if registered is None:
            return CallOutcome(
                error=f"There is no tool named {quote(name)}. List the tools (tools/list) and try again."
            )
        if registered.owner == HOST_NAME:  # XIV MCP's own tools: core trust, always allowed (A5)
            return await self.core_tools.call(name, arguments or {}, on_progress)
        owner, definition = registered.owner, registered.definition
        args_json = encode_json(arguments or {})
        decision = self.policies.decide(owner, definition)
        if isinstance(decision, Ask):
            decision = await self._ask_player(owner, definition, decision)
        if isinstance(decision, Deny):
            self.audit.record(
                AuditKind.DECISION,
                owner,
                name,
                flagged=decision.flagged,
                details={"decision": "deny", "reason": decision.reason, "message": decision.message},
            )
            return CallOutcome(error=decision.message)
        assert isinstance(decision, Allow)
        return await self.calls.invoke(owner, name, args_json, on_progress=on_progress)

    async def _ask_player(self, owner: str, definition: ToolDefinition, ask: Ask) -> Allow | Deny:
        titles = [c.title for c in map(find_capability, ask.capabilities) if c is not None]
        summary = f"{owner} wants to run {definition.name}" + (f" ({', '.join(titles)})" if titles else "")
        approval = self.approvals.request(
            f"pre-{definition.name}", owner, definition.name, ",".join(ask.capabilities), summary, ask
        )
        try:
            decided = await self.approvals.wait_decided(approval.id)
        except anyio.get_cancelled_exc_class():
            # The caller gave up: close the window rather than leave the player a question that
            # no longer runs anything.
            self.approvals.withdraw(approval.id)
            raise
        if decided.state is ApprovalState.APPROVED:
            return Allow("approved")
        how = "did not answer within two minutes" if decided.reason == "expired" else "declined it"
        return Deny(
            f"The player was asked to approve {definition.name} ({approval.id}) and {how}; nothing was run. "
            "Ask the player, or have them set it to Allow in /xivmcp.",
            reason="declined",
        )

    def _call_finished(self, call_id: str, owner: str, tool: str, outcome: CallOutcome) -> None:
        details: dict[str, Any] = {"callId": call_id, "ok": outcome.ok}
        if outcome.error is not None:
            details["error"] = outcome.error[:500]
        self.audit.record(AuditKind.CALL, owner, tool, details=details)

    # --- plugins coming and going ----------------------------------------------------------

    def plugin_left(self, name: str) -> None:
        """Tools are offered only while their process is connected."""
        self.calls.plugin_left(name)
        self.policies.clear_session(name)
        if self.registry.tools_of(name):
            self.registry.unregister_all(name)

    def forget_disconnected(self) -> None:
        """After the bus came back: drop tools of plugins that are not connected (they re-register)."""
        connected = self.pi.peers
        for owner in {t.owner for t in self.registry.all()} - set(connected) - {HOST_NAME}:
            self.plugin_left(owner)

    def plugins_report(self) -> list[dict[str, Any]]:
        """What `/xivmcp → Third-party plugins` shows: every plugin known or connected."""
        names = sorted(set(self.policies.known()) | {t.owner for t in self.registry.all()} - {HOST_NAME})
        report = []
        for name in names:
            record = self.policies.record(name)
            review = self.policies.review(name, self._seen.get(name, {}))
            status = self.status(name)
            tools = [
                {
                    "name": t.definition.name,
                    "mode": self.tool_mode(name, t.definition).value,
                    "readOnly": t.definition.read_only,
                    "capabilities": list(acting_capabilities(t.definition)),
                }
                for t in self.registry.tools_of(name)
            ]
            report.append(
                {
                    "name": name,
                    "state": record.state.value,
                    "connected": name in self.pi.peers,
                    "suspendReason": record.suspend_reason,
                    "tools": tools,
                    "capabilities": [{"id": c.id, "mode": c.mode.value} for c in status.capabilities],
                    "awaits": {
                        "newTools": list(review.new_tools),
                        "newCapabilities": list(review.new_capabilities),
                    }
                    if review.needs_decision
                    else None,
                }
            )
        return report
