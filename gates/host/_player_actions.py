"""What the player does at the /xivmcp window: decide about plugins, set modes, answer approvals.

Each action writes the decision through the policies (persisted before it returns), records it
in the audit log and says that the offered tools may have changed. A refusal is a
`RefusedError` whose message the player reads. A test host (--test-clock) also takes `reset`,
which puts it back at its start between the tests of a shared system (the pytest plugin's).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Final

import anyio

from gates.contract import (
    BUILTIN_TOOLS,
    CAPABILITY_IDS,
    HOST_NAME,
    Answer,
    ApprovalState,
    Mode,
    PluginState,
    RefusedError,
    Risk,
    find_capability,
    quote,
)
from gates.player import ModeDecision, PluginDecision

from .base._audit import AuditEntry, AuditKind
from .base._clock import Clock, ManualClock
from .base._errors import SettingError
from .policy._approvals import Approval, ApprovalKind
from .policy._records import Registration, registration_digest
from .policy._state import HostState

__all__ = ["RESET_REFUSED", "PlayerActions", "ResetDone"]

RESET_REFUSED: Final = (
    "reset is for tests: start the host with --test-clock (a host on the real clock is a player's, and keeps "
    "every decision)."
)
WITHDRAWN_BY_RESET: Final = "the test system was reset"
RESET_CALLS_WAIT: Final = 2.0
"""How long `reset` waits (real seconds) for the calls whose approvals it withdrew to write their refusal."""


@dataclass(frozen=True, slots=True)
class ResetDone:
    """What `reset` cleared: the plugins forgotten, and how many module settings it put back."""

    plugins: tuple[str, ...]
    settings: int


_MODES = {"allow": Mode.ALLOW, "ask": Mode.ASK, "deny": Mode.DENY, "default": None}


class PlayerActions:
    """The player's decisions, as the `XivMcp.Player` gate (and so `xivmcp …`) makes them."""

    def __init__(
        self,
        state: HostState,
        *,
        clock: Clock,
        expire_due: Callable[[], None],
        clock_moved: Callable[[float], None] = lambda now: None,
    ) -> None:
        self._registry = state.registry
        self._policies = state.policies
        self._registrations = state.registrations
        self._approvals = state.approvals
        self._audit = state.audit
        self._changed = state.changed
        self._modules = state.modules
        self._clock = clock
        self._expire_due = expire_due
        self._clock_moved = clock_moved

    def enable(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """Enable what the player was shown: with `digest`, exactly that registration; one that
        grew since is refused, saying what is new."""
        self._known(plugin)
        before = self._policies.state(plugin)
        shown = self._registrations.shown(plugin)
        self._check_seen(plugin, shown, digest)
        if before is PluginState.ENABLED:
            return PluginDecision(
                plugin=plugin, state=before, changed=False, message=f"{plugin} was already enabled; nothing to do."
            )
        self._policies.enable(plugin, shown, shown)
        self._audit.record(AuditKind.CONSENT, plugin, details={"tools": sorted(shown)})
        self._changed(plugin)
        if self._policies.state(plugin) is PluginState.SUSPENDED:
            return self._done(plugin, f"{plugin} is enabled, but suspended: lift that with `xivmcp lift {plugin}`.")
        return self._done(plugin, f"{plugin} is enabled: its tools may run, as its capability settings allow.")

    def consent(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """Consent again to a registration that grew (awaiting_consent)."""
        self._known(plugin)
        state = self._policies.state(plugin)
        if state is not PluginState.AWAITING_CONSENT:
            return PluginDecision(
                plugin=plugin,
                state=state,
                changed=False,
                message=f"{plugin} awaits no consent (it is {state.value}); nothing to do.",
            )
        shown = self._registrations.shown(plugin)
        self._check_seen(plugin, shown, digest)
        self._policies.enable(plugin, shown, shown)
        self._audit.record(AuditKind.CONSENT, plugin, details={"tools": sorted(shown)})
        self._changed(plugin)
        return self._done(plugin, f"{plugin}'s new registration is consented to: its tools may run again.")

    def keep_disabled(self, plugin: str) -> PluginDecision:
        self._known(plugin)
        if self._policies.state(plugin) is PluginState.KEPT_DISABLED:
            return PluginDecision(
                plugin=plugin,
                state=PluginState.KEPT_DISABLED,
                changed=False,
                message=f"{plugin} was already kept disabled; nothing to do.",
            )
        # No digest needed: keeping a plugin disabled consents to nothing.
        self._policies.keep_disabled(plugin, self._registrations.shown(plugin))
        self._audit.record(AuditKind.CONSENT, plugin, details={"keptDisabled": True})
        self._changed(plugin)
        return self._done(plugin, f"{plugin} is kept disabled: you are not asked again until it registers more.")

    def clear_session(self, plugin: str) -> PluginDecision:
        """The window's Clear button: forget the plugin's "for this session" approvals."""
        self._known(plugin)
        cleared = self._policies.clear_session(plugin)
        if cleared:
            self._changed(plugin)
        said = f"Cleared {cleared} session approval(s) of {plugin}." if cleared else f"{plugin} has none to clear."
        return self._done(plugin, said, changed=bool(cleared))

    def _check_seen(self, plugin: str, shown: Registration, digest: str | None) -> None:
        if digest is None or digest == registration_digest(shown):
            return
        review = self._policies.review(plugin, shown)
        news = []
        if review.new_tools:
            news.append(f"new tools {', '.join(review.new_tools)}")
        if review.new_capabilities:
            news.append(f"new capabilities {', '.join(review.new_capabilities)}")
        what = "; ".join(news) or "tools or capabilities changed"
        raise RefusedError(
            f"{plugin}'s registration changed since you looked ({what}); nothing was consented. "
            f"Look again with `xivmcp plugins`, then run `xivmcp enable {plugin}` again."
        )

    def lift(self, plugin: str) -> PluginDecision:
        self._known(plugin)
        state = self._policies.state(plugin)
        if state is not PluginState.SUSPENDED:
            return PluginDecision(
                plugin=plugin,
                state=state,
                changed=False,
                message=f"{plugin} is not suspended (it is {state.value}); nothing to do.",
            )
        self._policies.lift_suspension(plugin)
        self._audit.record(AuditKind.SUSPENSION, plugin, details={"lifted": True})
        self._changed(plugin)
        return self._done(plugin, f"{plugin}'s suspension is lifted.")

    def set_mode(self, plugin: str, target: str, mode_text: str) -> ModeDecision:
        if mode_text not in _MODES:
            raise RefusedError(f"{quote(mode_text)} is not a mode: use allow, ask, deny or default.")
        self._known(plugin)
        mode = _MODES[mode_text]
        record = self._policies.record(plugin)
        if target in CAPABILITY_IDS:
            before = record.capability_modes.get(target)
            self._policies.set_capability_mode(plugin, target, mode)
        elif self._registry.owner_of(target) == plugin or target in record.consented:
            if mode is Mode.ALLOW and (critical := self._critical_capabilities(plugin, target)):
                raise SettingError(
                    f"{target} declares {', '.join(critical)}, which is critical: it is asked every time and "
                    f"can't be set to allow. Set it to ask or deny, or use `xivmcp approve` each time."
                )
            before = record.tool_modes.get(target)
            self._policies.set_tool_mode(plugin, target, mode)
        else:
            tools = sorted({t.name for t in self._registry.tools_of(plugin)} | set(record.consented))
            raise RefusedError(
                f"{quote(target)} is neither a capability ({', '.join(CAPABILITY_IDS)}) nor one of {plugin}'s "
                f"tools ({', '.join(tools) or 'it has none'}); see `xivmcp plugins`."
            )
        shown = "the default" if mode is None else mode.value
        changed = before is not mode
        if changed:
            self._audit.record(AuditKind.SETTING, plugin, details={"target": target, "mode": mode_text})
            self._changed(plugin)
        return ModeDecision(
            plugin=plugin,
            state=self._policies.state(plugin),
            changed=changed,
            message=f"{plugin}: {target} is now {shown}."
            if changed
            else f"{plugin}: {target} was already {shown}; nothing to do.",
            target=target,
            mode=mode_text,
        )

    def _known(self, plugin: str) -> None:
        """Refuse a plugin XIV MCP has never seen, with the names it knows (no phantom entries)."""
        if self._policies.knows(plugin) or self._registry.count_of(plugin) > 0:
            return
        known = sorted((set(self._policies.known()) | set(self._registry.owners())) - {HOST_NAME})
        if not known:
            raise RefusedError(
                f"No plugin named {quote(plugin)}: XIV MCP knows no plugin yet. Start one, then see `xivmcp plugins`."
            )
        close = difflib.get_close_matches(plugin.lower(), [k.lower() for k in known], n=1, cutoff=0.6)
        hint = "".join(f" Did you mean {k!r}?" for k in known if close and k.lower() == close[0])
        raise RefusedError(f"No plugin named {quote(plugin)}. Known: {', '.join(known)}.{hint}")

    def _done(self, plugin: str, message: str, *, changed: bool = True) -> PluginDecision:
        return PluginDecision(plugin=plugin, state=self._policies.state(plugin), changed=changed, message=message)

    def _critical_capabilities(self, plugin: str, tool: str) -> list[str]:
        """The critical capabilities a tool declares now, or did when the player consented to it."""
        registered = self._registry.get(tool)
        declared = (
            registered.definition.capabilities
            if registered is not None and registered.owner == plugin
            else self._policies.record(plugin).consented.get(tool, frozenset())
        )
        return sorted(c for c in declared if (cap := find_capability(c)) is not None and cap.risk is Risk.CRITICAL)

    def answer(self, approval_id: str, answer: Answer) -> Approval:
        if self._approvals.find(approval_id) is None:
            raise RefusedError(f"No approval {quote(approval_id)} waits for you; see `xivmcp approvals`.")
        approval = self._approvals.answer(approval_id, answer)
        if approval.state is not ApprovalState.APPROVED:
            return approval
        registered = self._registry.get(approval.tool)
        if approval.critical:  # asked every time (a trade): nothing is remembered, as the real window offers nothing
            return approval
        if approval.plugin == HOST_NAME:  # one of XIV MCP's own tools, performed here or not (F1)
            read_only = registered.definition.read_only if registered is not None else _catalog_read_only(approval.tool)
            if read_only is not None:  # its module's settings
                self._remember_core(approval.tool, read_only, answer, approval.caller)
        elif registered is not None:
            # "For this session" covers what was asked: the whole call before it ran, or the one
            # capability asked for during it.
            capability = approval.capabilities[0] if approval.kind is ApprovalKind.DURING_CALL else None
            self._policies.remember(approval.plugin, registered.definition, answer, capability)
        if answer is Answer.ALWAYS_ALLOW:
            self._changed(approval.plugin)
        return approval

    def _remember_core(self, tool: str, read_only: bool, answer: Answer, caller: str | None) -> None:
        """As the real host's ToolGate: "for this session" is the asker's own session; "always" sets
        the tool to Allow for the assistant, and counts for this session only when a plugin's job
        asked (the player's setting for their assistant is not changed by what a plugin asked)."""
        key = self._modules.session_key(tool, read_only)
        if caller is not None and answer in (Answer.APPROVE_SESSION, Answer.ALWAYS_ALLOW):
            self._policies.sessions.grant(caller, tool, key)
        elif answer is Answer.APPROVE_SESSION:
            self._policies.sessions.grant(HOST_NAME, tool, key)
        elif answer is Answer.ALWAYS_ALLOW:
            self._modules.set_tool(tool, "allow")

    # --- the modules of XIV MCP's own tools (/xivmcp → Modules) --------------------------

    def set_module(self, module_id: str, what: str, mode: str | None) -> str:
        """`xivmcp module NAME reading|changes MODE` or `xivmcp module NAME on|off`."""
        if what in ("on", "off"):
            module = self._modules.set_on(module_id, what == "on")
            message = f"{module.title} ({module.id}) is turned {what}."
        else:
            if mode is None:
                raise SettingError(f"Say the mode: `xivmcp module {module_id} {what} allow|ask|deny|default`.")
            module = self._modules.set_mode(module_id, what, mode)
            message = f"{module.title} ({module.id}): {what} is now {mode}."
        self._audit.record(AuditKind.SETTING, HOST_NAME, details={"module": module.id, "what": what, "mode": mode})
        self._changed(None)
        return message

    def set_core_tool(self, tool: str, setting: str) -> str:
        """`xivmcp tool NAME group|allow|ask|deny`: one of XIV MCP's own tools on its own."""
        module = self._modules.set_tool(tool, setting)
        self._audit.record(AuditKind.SETTING, HOST_NAME, tool, details={"setting": setting})
        self._changed(None)
        if setting == "group":
            return f"{tool} follows {module.title} ({module.id}) again."
        return f"{tool} is set to {setting} on its own ({module.title})."

    # --- a shared test system, between its tests --------------------------------------------

    def require_test_clock(self) -> None:
        """Refuse `reset` unless this is a test host (which alone runs on the manual clock)."""
        if not isinstance(self._clock, ManualClock):
            raise RefusedError(RESET_REFUSED)

    async def withdraw_approvals(self) -> int:
        """The first step of `reset` after the jobs: withdraw every approval that waits; how many.

        Each call that waited for one before it ran is told no, and writes its refusal to the audit
        log on its next turn of the event loop: wait (briefly) for those lines, so that they are the
        ended test's, before the line that marks the reset.
        """
        self.require_test_clock()
        waiting = self._approvals.pending()
        told_no = Counter((a.plugin, a.tool) for a in waiting if a.kind is ApprovalKind.BEFORE_CALL)
        written = anyio.Event()

        def heard(entry: AuditEntry) -> None:
            key = (entry.plugin or "", entry.tool or "")
            if entry.kind == AuditKind.DECISION and told_no[key] > 0:
                told_no[key] -= 1
                if told_no.total() == 0:
                    written.set()

        stop_listening = self._audit.on_record(heard)
        try:
            for approval in waiting:
                self._approvals.withdraw(approval.id, WITHDRAWN_BY_RESET)
            if told_no.total() > 0:
                with anyio.move_on_after(RESET_CALLS_WAIT):
                    await written.wait()
        finally:
            stop_listening()
        return len(waiting)

    def reset(self, connected: Collection[str]) -> ResetDone:
        """The rest of `reset`: forget every plugin that is not `connected` (its decisions, modes
        and registration, as if XIV MCP had never seen it), clear XIV MCP's own session grants, put
        the module settings back to their defaults, and write the audit line that marks the reset.

        A connected plugin keeps what the player decided about it: it belongs to whoever started it
        outside the test that ended (its tools, calls and grants are left alone). The clock is not
        moved back, and the audit log keeps everything before its reset line.
        """
        self.require_test_clock()
        forgotten = tuple(
            plugin
            for plugin in sorted(set(self._policies.known()) | set(self._registry.owners()))
            if plugin != HOST_NAME and plugin not in connected
        )
        for plugin in forgotten:
            self._forget(plugin)
        self._policies.clear_session(HOST_NAME)
        settings = self._default_module_settings()
        self._audit.record(
            AuditKind.SETTING, HOST_NAME, details={"reset": True, "forgotten": list(forgotten), "settings": settings}
        )
        self._changed(None)
        return ResetDone(forgotten, settings)

    def _forget(self, plugin: str) -> None:
        """Make XIV MCP forget a plugin that is not on the bus, as if it had never registered."""
        self._policies.forget(plugin)
        self._registrations.forget(plugin)

    def _default_module_settings(self) -> int:
        """Put every module's modes, on/off and tool settings back to their defaults; how many changed.

        Only what differs is written, so a reset after a test that changed nothing writes nothing.
        """
        settings = self._modules.snapshot()
        for module_id, access in settings.modes:
            self._modules.set_mode(module_id, access.value, "default")
        for module_id in settings.off:
            self._modules.set_on(module_id, True)
        for tool in settings.tools:
            self._modules.set_tool(tool, "group")
        return len(settings.modes) + len(settings.off) + len(settings.tools)

    def advance_clock(self, seconds: float) -> float:
        if not isinstance(self._clock, ManualClock):
            raise RefusedError("The host runs on the real clock; start it with --test-clock to move time by hand.")
        self._clock.advance(seconds)
        self._expire_due()
        self._clock_moved(self._clock.now())
        return self._clock.now()


def _catalog_read_only(tool: str) -> bool | None:
    """Whether one of the real host's built-ins only reads, by its catalog; None for a name not there."""
    builtin = BUILTIN_TOOLS.get(tool)
    return None if builtin is None else builtin.read_only
