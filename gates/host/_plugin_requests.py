"""The logic behind each gate a plugin calls: registering tools, status, permissions, dependencies, approvals.

Every method takes the caller's InternalName as the bus reports it (G3: `check_owner`) and
raises `RefusedError` with the message the plugin reads; `_gate_handlers.py` turns that into
``{"ok": false, "error": …}``. Nothing here knows how gates are bound to the bus.

    RegisterTool ─► definition checks ─► registry ─► policy review (consent, growth) ─► reply
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from gates.contract import (
    HOST_NAME,
    ApprovalReply,
    ApprovalState,
    CheckPermissionReply,
    DefinitionError,
    DependenciesReply,
    DependencyEntry,
    Gate,
    InstalledInfo,
    ManifestReply,
    Mode,
    PluginState,
    RefusedError,
    RegisterReply,
    Risk,
    StatusReply,
    ToolDefinition,
    decode_manifest,
    decode_tool_definition,
    encode_json,
    find_capability,
    quote,
    refuse_control_characters,
    validate_tool_definition,
)

from ._plugin_documents import parse_approval_request
from .base._audit import AuditKind
from .base._config import HostLimits
from .calls._plugin_calls import PluginCalls
from .policy._approvals import ApprovalKind
from .policy._dependencies import DependencyBook, check_dependencies, parse_dependencies
from .policy._installed import InstalledPlugin
from .policy._records import Registration
from .policy._state import HostState

__all__ = ["PluginRequests", "check_owner"]


def check_owner(owner: str | None, caller: str, installed: Callable[[str], InstalledPlugin | None]) -> str:
    """G3: `owner` must name the calling process, checked and worded as the real host's
    `PluginOwners.Validate`; returns the installed spelling (names compare case-insensitively).

    The real host finds the caller on the call stack; here the bus says which process sent the call."""
    if not owner or not owner.strip():
        raise RefusedError("Pass your plugin's internal name as the owner.")
    if owner.casefold() == HOST_NAME.casefold():
        raise RefusedError(f"'{HOST_NAME}' can't be an owner.")
    found = installed(owner)
    if found is None:
        raise RefusedError(
            f"No installed plugin has the internal name {quote(owner)}. "
            "Pass your plugin's InternalName (IDalamudPluginInterface.InternalName)."
        )
    if found.internal_name.casefold() != caller.casefold():
        raise RefusedError(
            f"This call comes from {caller}, not from {found.internal_name}: a plugin can only act as itself."
        )
    return caller


class PluginRequests:
    """What the host does for the gates plugins call (`owner` is already checked by the caller)."""

    def __init__(
        self,
        state: HostState,
        *,
        dependencies: DependencyBook,
        calls: PluginCalls,
        auto_enable: bool,
        limits: HostLimits | None = None,
        output_schemas: bool = False,
    ) -> None:
        self._registry = state.registry
        self._policies = state.policies
        self._registrations = state.registrations
        self._approvals = state.approvals
        self._audit = state.audit
        self._changed = state.changed
        self._dependencies = dependencies
        self._calls = calls
        self._installed = state.installed
        self._auto_enable = auto_enable
        self._limits = limits or HostLimits()
        self._output_schemas = output_schemas
        """Keep a definition's outputSchema (the simulator's extensions, F3, P5); else drop it as the
        real host does, which knows no such field and ignores it, so that neither its shape nor its
        size can make this host refuse a definition the real one takes."""

    def register_tool(self, owner: str, definition_json: str | None) -> RegisterReply:
        definition = decode_tool_definition(definition_json or "")
        if not self._output_schemas and definition.output_schema is not None:
            definition = msgspec.structs.replace(definition, output_schema=None)
        definition = validate_tool_definition(definition)
        self._check_size(owner, definition)
        self._registry.register(owner, definition)
        registration = self._registrations.refresh(owner)
        policies = self._policies
        before = policies.state(owner)
        if self._auto_enable:
            if before is PluginState.SUSPENDED:
                policies.on_registered(owner, registration)  # once lifted, it awaits consent for the rest
            elif before is not PluginState.ENABLED or policies.review(owner, registration).needs_decision:
                # Consent at once, rather than first record that the plugin awaits it: one
                # committed write a registration instead of two.
                self._enable_automatically(owner, registration)
        else:
            review = policies.on_registered(owner, registration)
            if review.needs_decision:
                self._audit.record(
                    AuditKind.REGISTRATION,
                    owner,
                    definition.name,
                    details={
                        "review": review.kind.value,
                        "newTools": list(review.new_tools),
                        "newCapabilities": list(review.new_capabilities),
                        "state": policies.state(owner).value,
                    },
                )
        if policies.state(owner) is not before:
            self._changed(owner)
        return policies.register_reply(owner, definition)

    def _check_size(self, owner: str, definition: ToolDefinition) -> None:
        """B7: a definition within the host's bounds, and a plugin within its number of tools."""
        limits, name = self._limits, definition.name
        if len(definition.description) > limits.max_description:
            raise DefinitionError(
                f"The description of {name} is {len(definition.description)} characters; XIV MCP takes at most "
                f"{limits.max_description}. Say what the tool does, what it returns and what to call next, briefly."
            )
        for field, schema, advice in (
            ("inputSchema", definition.input_schema, "Describe fewer or simpler arguments."),
            ("outputSchema", definition.output_schema, "Describe the result more simply, or leave it out."),
        ):
            size = 0 if schema is None else len(encode_json(schema))
            if size > limits.max_schema_bytes:
                raise DefinitionError(
                    f"The {field} of {name} is {size} bytes of JSON; XIV MCP takes at most "
                    f"{limits.max_schema_bytes}. {advice}"
                )
        owned = self._registry.owner_of(name) == owner
        if not owned and self._registry.count_of(owner) >= limits.max_tools_per_plugin:
            raise RefusedError(
                f"{owner} already has {limits.max_tools_per_plugin} tools registered, the most XIV MCP takes from "
                f"one plugin; {name} was not registered. Unregister tools you do not need (UnregisterTool)."
            )

    def _enable_automatically(self, owner: str, registration: Registration) -> None:
        """`--auto-enable` (tests, CI): enable and allow every capability but the critical ones."""
        if self._policies.state(owner) is PluginState.SUSPENDED:
            return
        self._policies.enable(owner, registration, registration)
        for capability in sorted({c for caps in registration.values() for c in caps}):
            cap = find_capability(capability)
            if cap is not None and cap.risk is not Risk.CRITICAL:
                self._policies.set_capability_mode(owner, capability, Mode.ALLOW)
        self._audit.record(AuditKind.CONSENT, owner, details={"auto": True, "tools": sorted(registration)}, sync=False)

    def unregister_tool(self, owner: str, name: str | None) -> bool:
        if not name:
            return False  # no such tool: `{"removed": false}`, as the real host's registry.Remove answers
        removed = self._registry.unregister(owner, name)
        if removed:
            self._registrations.refresh(owner)
        return removed

    def unregister_all(self, owner: str) -> int:
        """Every tool of the plugin, and the dependencies it declared, as the real host drops both
        (PluginApi.cs UnregisterAll: `dependencies.TryRemove`)."""
        removed = self._registry.unregister_all(owner)
        self._dependencies.forget(owner)
        self._registrations.forget(owner)
        return removed

    def status(self, owner: str) -> StatusReply:
        definitions = [t.definition for t in self._registry.tools_of(owner)]
        return self._policies.status_reply(owner, definitions, self.dependency_entries(owner))

    def check_permission(self, owner: str, capability: str | None) -> CheckPermissionReply:
        # The real host's words for any id not in the catalog, an empty one too (PluginApi.cs
        # CheckPermission), not the valid list RegisterTool gives.
        if not capability or find_capability(capability) is None:
            raise RefusedError(f"Unknown capability {quote(capability or '')}. See XivMcp.ListCapabilities.")
        return self._policies.permission_reply(owner, capability)

    def declare_dependencies(self, owner: str, json_text: str | None) -> DependenciesReply:
        declared = parse_dependencies(json_text or "")
        before = self._dependencies.declared(owner)
        if self._dependencies.declare(owner, declared) != before:  # the same again says nothing new (B7)
            self._audit.record(AuditKind.DEPENDENCIES, owner, details={"tools": [d.tool for d in declared]})
        return DependenciesReply(dependencies=self.dependency_entries(owner))

    def declare_manifest(self, owner: str, manifest_json: str | None) -> ManifestReply:
        """This simulator's `XivMcp.Simulator.DeclareManifest`: Dalamud's knowledge of the plugin (F2)."""
        plugin = self._installed.declare(owner, decode_manifest(manifest_json or ""))
        return ManifestReply(
            plugin=InstalledInfo(
                internal_name=plugin.internal_name,
                name=plugin.display_name,
                version=plugin.version,
                repo=plugin.repo,
                loaded=True,
            )
        )

    def dependency_entries(self, owner: str) -> list[DependencyEntry]:
        return check_dependencies(
            self._dependencies.declared(owner),
            self._installed.world(),
            owner_of=self._registry.owner_of,
            enabled=self._policies.can_run,
        )

    def request_approval(self, caller: str, call_id: str | None, request_json: str | None) -> ApprovalReply:
        """`RequestApproval` during one of the caller's own calls, judged on what its tool declared
        when the call began; another plugin's call is refused as if there were none (G3, S1)."""
        call_id = call_id or ""
        owner, definition = self._calls.owner_of(call_id), self._calls.definition_of(call_id)
        if owner is None or owner != caller or definition is None:
            raise RefusedError(f"No running call {quote(call_id)}. Approvals can only be requested during a call.")
        request = parse_approval_request(request_json)
        refuse_control_characters(Gate.REQUEST_APPROVAL, "request's 'summary'", request.summary)  # S3
        decision = self._policies.decide_request(owner, definition, request.capability)
        approval = self._approvals.request(
            ApprovalKind.DURING_CALL,
            call_id,
            owner,
            definition.name,
            (request.capability[: self._limits.max_capability_text],),  # B7: kept and logged cut
            request.summary,
            decision,
        )
        if approval.state is ApprovalState.PENDING:
            self._calls.approval_asked(call_id, approval)
        return approval.reply()

    def check_can_start_jobs(self, owner: str) -> None:
        """`StartJob` only for a plugin the player enabled, not suspended and not awaiting consent,
        refused in the real host's words (`XivMcp/Api/PluginApi.cs`)."""
        record = self._policies.record(owner)
        if record.enabled and not record.suspended and not record.awaiting_consent:
            return
        if record.suspended:
            why = " (it is suspended)."
        elif record.awaiting_consent:
            why = " (its registration changed and waits for the player's consent)."
        else:
            why = "."
        raise RefusedError(
            f"{self._installed.display_name(owner)} can't start jobs: the player has not enabled it in "
            "/xivmcp → Third-party plugins" + why
        )

    def get_approval(self, caller: str, approval_id: str | None) -> ApprovalReply:
        return self._approvals.get_for(caller, approval_id or "").reply()
