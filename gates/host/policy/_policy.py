"""The player's decisions about third-party plugins, and the gate's verdict on each call (G5, A3, A5, A6).

:class:`Policies` keeps every plugin's :class:`~gates.host.policy._records.PluginRecord` and the session
grants, and decides from them: whether a plugin can run, each capability's and tool's mode, the
verdict on a call (:data:`~gates.host.policy._decision.Decision`) and on an approval asked for during one.

Every change is written through the :class:`~gates.host.policy._records.PolicyStore` before it becomes
visible; if the store fails, the in-memory record is left as it was and the error propagates.
A tool with a critical capability is never allowed without the player: no capability mode, tool
setting or remembered answer makes it run unasked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from gates.contract import (
    CAPABILITY_IDS,
    Answer,
    CapabilityMode,
    CheckPermissionReply,
    DependencyEntry,
    Mode,
    PluginState,
    RegisterReply,
    Risk,
    StatusReply,
    ToolDefinition,
    ToolMode,
    UnknownCapabilityError,
    find_capability,
    is_critical,
    is_mode_allowed,
    quote,
    sections,
    strictest,
)

from ..base._errors import SettingError
from ._decision import WHOLE_CALL, Allow, Ask, Decision, Deny, SessionGrants
from ._records import (
    PluginRecord,
    PolicyStore,
    Registration,
    Review,
    ReviewKind,
    review_registration,
)

__all__ = ["Policies"]


class Policies:
    """Every plugin's record, the session grants, and the decisions made from them.

    No lock: only the event loop reads or changes them (see `Host`), and no method awaits, so
    each (a read, or an `_editing` block's check, save and swap) is whole to every other task."""

    def __init__(self, store: PolicyStore | None = None) -> None:
        self._store = store
        self._records: dict[str, PluginRecord] = store.load() if store is not None else {}
        self.sessions = SessionGrants()
        self.version = 0
        """Moves on with every change of a record (what is offered and allowed depends on nothing else)."""

    # ------------------------------------------------------------------ reading

    def record(self, owner: str) -> PluginRecord:
        """A copy of the plugin's record (a fresh, undecided one for a plugin never seen)."""
        return self._get(owner).copy()

    def state(self, owner: str) -> PluginState:
        return self._get(owner).state

    def can_run(self, owner: str) -> bool:
        return self.state(owner) is PluginState.ENABLED

    def is_listed(self, owner: str) -> bool:
        """Whether the plugin's tools are listed to the assistant, by the real host's rule: enabled
        and not awaiting consent, whether or not suspended (a suspended plugin stays listed so the
        assistant can explain why its calls fail; `XivMcp/Api/PluginApi.cs`, RegisterTool)."""
        record = self._get(owner)
        return record.enabled and not record.awaiting_consent

    def consented_owner(self, tool: str) -> str | None:
        """The plugin the player consented to `tool` of, if any (for a tool not registered now)."""
        return next((owner for owner, record in self._records.items() if tool in record.consented), None)

    def knows(self, owner: str) -> bool:
        return owner in self._records

    def known(self) -> tuple[str, ...]:
        return tuple(self._records)

    def review(self, owner: str, registration: Registration) -> Review:
        """Whether this registration needs the player's decision; changes nothing."""
        return review_registration(self._get(owner), registration)

    # ------------------------------------------------------------------ what the plugin does

    def on_registered(self, owner: str, registration: Registration) -> Review:
        """After every registration: an enabled plugin whose registration grew now awaits consent (T7, A6)."""
        result = review_registration(self._get(owner), registration)
        current = self._get(owner)
        if result.needs_decision and current.enabled and not current.awaiting_consent:
            with self._editing(owner) as record:
                record.awaiting_consent = True
        return result

    # ------------------------------------------------------------------ what the player decides

    def enable(self, owner: str, shown: Registration, current: Registration | None = None) -> Review:
        """The player enabled (or consented again to) the registration they were shown.

        If ``current`` has grown beyond ``shown`` meanwhile, the plugin awaits consent for the rest.
        """
        with self._editing(owner) as record:
            record.enabled = True
            record.reviewed = True
            record.consented = dict(shown)
            since = review_registration(record, current) if current is not None else Review(ReviewKind.NONE)
            record.awaiting_consent = since.needs_decision
        return since

    def keep_disabled(self, owner: str, shown: Registration) -> None:
        """The player chose Keep disabled: not asked again until the registration grows."""
        with self._editing(owner) as record:
            record.enabled = False
            record.reviewed = True
            record.awaiting_consent = False
            record.consented = dict(shown)
        self.sessions.clear(owner)

    def disable(self, owner: str) -> None:
        """The player switched an enabled plugin off (it becomes kept_disabled)."""
        with self._editing(owner) as record:
            record.enabled = False
            record.reviewed = True
            record.awaiting_consent = False
        self.sessions.clear(owner)

    def suspend(self, owner: str, reason: str) -> None:
        """XIV MCP suspends a plugin that did something undeclared (T2); only the player lifts it."""
        with self._editing(owner) as record:
            record.suspended = True
            record.suspend_reason = reason
        self.sessions.clear(owner)

    def lift_suspension(self, owner: str) -> PluginState:
        """The player lifts a suspension; returns the state the plugin is back in."""
        with self._editing(owner) as record:
            record.suspended = False
            record.suspend_reason = None
        return self.state(owner)

    def set_capability_mode(self, owner: str, capability: str, mode: Mode | None) -> None:
        """Sets a capability for a plugin, or (``None``) returns it to the catalog default."""
        cap = find_capability(capability)
        if cap is None:
            raise UnknownCapabilityError(capability, CAPABILITY_IDS)
        if mode is not None and not is_mode_allowed(cap.risk, mode):
            raise SettingError(
                f'"{cap.title}" ({cap.id}) is critical: it can be set to ask or deny, never allow. '
                "It is asked every time."
            )
        with self._editing(owner) as record:
            if mode is None:
                record.capability_modes.pop(capability, None)
            else:
                record.capability_modes[capability] = mode

    def set_tool_mode(self, owner: str, tool: str, mode: Mode | None) -> None:
        """Sets one tool on its own (allow / ask / deny for the whole call); ``None`` follows its capabilities."""
        with self._editing(owner) as record:
            if mode is None:
                record.tool_modes.pop(tool, None)
            else:
                record.tool_modes[tool] = mode

    def remember(self, owner: str, definition: ToolDefinition, answer: Answer, capability: str | None = None) -> None:
        """Keeps an approval answer: for the session (the whole call, or one capability), or always (tool: allow).

        Tools with a critical capability are asked every time, so nothing is kept for them.
        """
        if is_critical(definition):
            return
        if answer is Answer.APPROVE_SESSION:
            self.sessions.grant(owner, definition.name, capability or WHOLE_CALL)
        elif answer is Answer.ALWAYS_ALLOW:
            self.set_tool_mode(owner, definition.name, Mode.ALLOW)

    def forget(self, owner: str) -> None:
        """Forget a plugin as if it had never registered (a test reset's, never a player's choice):
        its stored record is blanked to undecided, and it is no longer known."""
        with self._editing(owner) as record:
            record.enabled = record.reviewed = record.awaiting_consent = record.suspended = False
            record.suspend_reason = None
            record.consented, record.capability_modes, record.tool_modes = {}, {}, {}
        self._records.pop(owner, None)
        self.version += 1
        self.sessions.clear(owner)

    def clear_session(self, owner: str) -> int:
        """Forgets the plugin's session approvals (it unloaded, or the player cleared them)."""
        return self.sessions.clear(owner)

    # ------------------------------------------------------------------ modes

    def capability_mode(self, owner: str, capability: str) -> Mode:
        """The player's setting for a capability (unknown ids: deny; critical: never more than ask)."""
        cap = find_capability(capability)
        if cap is None:
            return Mode.DENY
        mode = self._get(owner).capability_modes.get(capability, cap.default)
        return mode if is_mode_allowed(cap.risk, mode) else Mode.ASK

    def tool_mode(self, owner: str, definition: ToolDefinition) -> Mode:
        """A whole call's mode: the tool's own setting, else the strictest of its capabilities."""
        if any(find_capability(c) is None for c in definition.capabilities):
            return Mode.DENY
        own = self._get(owner).tool_modes.get(definition.name)
        mode = own if own is not None else strictest(self.capability_mode(owner, c) for c in sections(definition))
        return Mode.ASK if mode is Mode.ALLOW and is_critical(definition) else mode

    def check_permission(self, owner: str, capability: str) -> Mode:
        """``CheckPermission``: the capability's mode, or deny unless the plugin can run."""
        if find_capability(capability) is None:
            raise UnknownCapabilityError(capability, CAPABILITY_IDS)
        return self.capability_mode(owner, capability) if self.can_run(owner) else Mode.DENY

    def check_tool(self, owner: str, definition: ToolDefinition) -> Mode:
        """A tool's mode as ``GetStatus`` reports it: deny unless the plugin can run."""
        return self.tool_mode(owner, definition) if self.can_run(owner) else Mode.DENY

    # ------------------------------------------------------------------ decisions

    def decide(self, owner: str, definition: ToolDefinition, display_name: str | None = None) -> Decision:
        """The gate's verdict on a call of one of the plugin's tools, before it runs."""
        name = display_name or owner
        refused = self._refusal(owner, name)
        if refused is not None:
            return refused
        mode = self.tool_mode(owner, definition)
        if mode is Mode.DENY:
            return Deny(self._denied_message(owner, name, definition))
        if mode is Mode.ALLOW:
            return Allow()
        critical = is_critical(definition)
        if not critical and self.sessions.has(owner, definition.name, WHOLE_CALL):
            return Allow("approved_session")
        return Ask(sections(definition), critical=critical)

    def decide_request(
        self, owner: str, definition: ToolDefinition, capability: str, display_name: str | None = None
    ) -> Decision:
        """The verdict on ``RequestApproval`` during a call: only declared capabilities can be asked for."""
        name = display_name or owner
        cap = find_capability(capability)
        if cap is None or capability not in definition.capabilities:
            return Deny(
                f"{definition.name} can only ask for capabilities it declared; {quote(capability)} isn't one of "
                f"{', '.join(definition.capabilities)}.",
                reason="refused",
                flagged=True,
            )
        refused = self._refusal(owner, name)
        if refused is not None:
            return refused
        own = self._get(owner).tool_modes.get(definition.name)
        mode = own if own is not None else self.capability_mode(owner, capability)
        critical = cap.risk is Risk.CRITICAL
        if mode is Mode.ALLOW and critical:
            mode = Mode.ASK
        if mode is Mode.DENY:
            return Deny(f'"{cap.title}" is blocked for {name} in /xivmcp.')
        if mode is Mode.ALLOW:
            return Allow()
        if not critical and not is_critical(definition) and self.sessions.covers(owner, definition.name, capability):
            return Allow("approved_session")
        return Ask((capability,), critical=critical)

    def _refusal(self, owner: str, name: str) -> Deny | None:
        """Why none of the plugin's tools may run now, checked in the real host's order
        (`ToolGate.InvokeAsync`): not enabled, then awaiting consent, then suspended. A suspended
        plugin the player kept disabled, or whose registration grew, is refused for that first."""
        record = self._get(owner)
        where = "/xivmcp → Third-party plugins"
        if not record.enabled:
            # the real host says the same for undecided and kept disabled: the plugin is not enabled
            message = f"{name}'s tools aren't allowed yet. The player can allow the plugin in {where}."
            state = PluginState.KEPT_DISABLED if record.reviewed else PluginState.UNDECIDED
        elif record.awaiting_consent:
            message = (
                f"{name} changed its registration (new tools or capabilities) and waits for the player "
                f"to consent again in {where}."
            )
            state = PluginState.AWAITING_CONSENT
        elif record.suspended:
            reason = record.suspend_reason
            message = f"{name} is suspended by XIV MCP ({reason}). Only the player can lift that, in {where}."
            state = PluginState.SUSPENDED
        else:
            return None
        return Deny(message, reason=state.value)

    def _denied_message(self, owner: str, name: str, definition: ToolDefinition) -> str:
        own = self._get(owner).tool_modes.get(definition.name)
        if own is Mode.DENY:
            return (
                f"{definition.name} is set to Deny for {name} in /xivmcp, so it can't run. "
                "The player can change it there."
            )
        for capability in sections(definition):
            cap = find_capability(capability)
            if cap is not None and self.capability_mode(owner, capability) is Mode.DENY:
                return f'"{cap.title}" is blocked for {name} in /xivmcp, so {definition.name} can\'t run.'
        return f'"An unknown capability" is blocked for {name} in /xivmcp, so {definition.name} can\'t run.'

    # ------------------------------------------------------------------ replies

    def register_reply(self, owner: str, definition: ToolDefinition) -> RegisterReply:
        record = self.record(owner)
        return RegisterReply(
            name=definition.name,
            enabled=record.enabled,
            awaiting_consent=record.awaiting_consent,
            state=record.state,
            capabilities=[
                CapabilityMode(id=c, mode=self.capability_mode(owner, c) if record.enabled else Mode.DENY)
                for c in definition.capabilities
            ],
        )

    def permission_reply(self, owner: str, capability: str) -> CheckPermissionReply:
        mode = self.check_permission(owner, capability)
        record = self.record(owner)
        return CheckPermissionReply(
            capability=capability, mode=mode, enabled=record.enabled, suspended=record.suspended, state=record.state
        )

    def status_reply(
        self, owner: str, definitions: Sequence[ToolDefinition], dependencies: Sequence[DependencyEntry] = ()
    ) -> StatusReply:
        record = self.record(owner)
        return StatusReply(
            state=record.state,
            can_run=record.state is PluginState.ENABLED,
            suspend_reason=record.suspend_reason if record.suspended else None,
            tools=[
                ToolMode(name=d.name, mode=self.check_tool(owner, d), own=d.name in record.tool_modes)
                for d in definitions
            ],
            capabilities=self.capability_modes(owner, definitions),
            dependencies=list(dependencies),
        )

    def capability_modes(self, owner: str, definitions: Sequence[ToolDefinition]) -> list[CapabilityMode]:
        """Each capability the tools declare, once, with its mode as ``CheckPermission`` answers it."""
        capabilities = dict.fromkeys(c for d in definitions for c in d.capabilities)
        return [CapabilityMode(id=c, mode=self.check_permission(owner, c)) for c in capabilities]

    # ------------------------------------------------------------------ plumbing

    def _get(self, owner: str) -> PluginRecord:
        record = self._records.get(owner)
        return record if record is not None else PluginRecord()

    @contextmanager
    def _editing(self, owner: str) -> Iterator[PluginRecord]:
        """Yields a draft of the record; it is saved, then made current, only if the block succeeds.

        A draft the block left as it was is not written: a committed write waits for the disk
        (synchronous=FULL), and `--auto-enable` sets modes that are set already on every tool."""
        current = self._get(owner)
        draft = current.copy()
        yield draft
        if draft == current:
            return
        if self._store is not None:
            self._store.save(owner, draft)
        self._records[owner] = draft
        self.version += 1
