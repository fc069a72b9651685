"""Findings about one call, from what the assistant was answered and the host's audit line of it.

The host has judged the call already (T2, W3, W4: its effects against the declared capabilities,
`changedOnError`, the suspension); this turns its verdict into what the plugin's author reads,
and adds what only the check knows: whether the arguments were ones the schema allows, how long
a quick tool kept its Invoke, whether a cancelled call stopped.

Each rule is a small function of the call (`_Call`: what the check saw and the host's typed
audit line of it, `CallLine`) returning its findings; `_RULES` lists them in the order reported.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from gates.contract import quote

from ._call_line import CallLine
from ._report import Check, Finding, Rule, Severity
from ._session import CallSeen

__all__ = ["EXCEPTION_TEXT", "is_exception_text", "judge_call"]

EXCEPTION_TEXT: Final = re.compile(r"^(?:[A-Za-z_]\w*\.)*(?P<type>[A-Z]\w*): ")
""""TypeName: message", as XIV MCP words an exception other than McpToolError (T4)."""
_EXCEPTION_ENDINGS: Final = ("Error", "Exception", "Warning", "Exit", "Interrupt", "Iteration")
_BUILTIN_EXCEPTIONS: Final = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)


def is_exception_text(error: str) -> bool:
    """Whether an error reads like an exception's "TypeName: message" (a heuristic: the type must
    be named like one, so "Error: the vendor is closed" from an McpToolError does not count)."""
    match = EXCEPTION_TEXT.match(error)
    if match is None:
        return False
    name = match["type"]
    return name in _BUILTIN_EXCEPTIONS or (name.endswith(_EXCEPTION_ENDINGS) and name not in _EXCEPTION_ENDINGS)


@dataclass(frozen=True, slots=True)
class _Call:
    """One call, as each rule reads it."""

    plugin: str
    seen: CallSeen
    line: CallLine
    """The host's audit line of it."""
    why_invalid: str | None
    """Why its arguments break the schema; None: they are valid ones."""
    quick_limit: float
    sent: str
    """Its arguments, shown (cut at 200 characters)."""

    @property
    def tool(self) -> str:
        return self.seen.tool

    def finding(self, severity: Severity, rule: Rule, spec: str, message: str, on: Check | None = None) -> Finding:
        """A finding about this call, under the check it ran in (valid or invalid arguments) unless `on`."""
        if on is None:
            on = Check.VALID_ARGUMENTS if self.why_invalid is None else Check.INVALID_ARGUMENTS
        return Finding(
            severity=severity,
            tool=self.tool,
            rule=rule,
            check=on,
            spec=spec,
            message=message,
            arguments=self.seen.arguments,
        )


def _undeclared_effect(call: _Call) -> list[Finding]:
    undeclared = [e for e in call.line.effects if e.undeclared]
    if not undeclared:
        return []
    details = " ".join(e.detail for e in undeclared)
    covering = sorted({c for e in undeclared for c in e.covered_by})
    if call.seen.suspension is not None:
        what = f"XIV MCP would suspend {call.plugin}: {call.seen.suspension}"
    else:
        what = f"XIV MCP would flag the call in its audit log: {call.tool}: {details} (not declared)"
    return [
        call.finding(
            Severity.ERROR,
            Rule.UNDECLARED_EFFECT,
            "T2, W4",
            f"{what}. {call.tool} did this when called with {call.sent}; declare the capability that covers it "
            f"({' or '.join(covering)}) in its definition, or do not do it." + _who(call),
        )
    ]


def _who(call: _Call) -> str:
    """F4: the real host judges the whole difference; when another process made it, say so."""
    if not call.line.explanation:
        return ""
    return " " + " ".join(call.line.explanation) + " In the game, keep other plugins still during such a call."


def _changed_on_error(call: _Call) -> list[Finding]:
    if not call.line.changed_on_error:
        return []
    changes = " ".join(e.detail for e in call.line.effects)
    return [
        call.finding(
            Severity.ERROR,
            Rule.CHANGED_ON_ERROR,
            "T3",
            f"{call.tool} answered an error ({quote(call.seen.error or '', 200)}) yet changed the game ({changes}) "
            f"when called with {call.sent}. A refused call must change nothing: check everything before acting, "
            "and once it has acted, answer what was done as the result.",
        )
    ]


def _exception_reached_assistant(call: _Call) -> list[Finding]:
    error = call.seen.error
    if error is None or not is_exception_text(error):
        return []
    return [
        call.finding(
            Severity.ERROR if call.why_invalid is None else Severity.WARNING,
            Rule.EXCEPTION_REACHED_ASSISTANT,
            "T4, P6",
            f"An exception reached the assistant as {quote(error, 200)} when {call.tool} was called with {call.sent}"
            + (f" ({call.why_invalid})" if call.why_invalid else "")
            + ". Catch it and raise McpToolError with what was wrong and what to send instead.",
        )
    ]


def _accepted_invalid_arguments(call: _Call) -> list[Finding]:
    if call.why_invalid is None or call.seen.cancelled or call.seen.error is not None:
        return []
    return [
        call.finding(
            Severity.WARNING,
            Rule.ACCEPTED_INVALID_ARGUMENTS,
            "T3",
            f"{call.tool} answered a result to arguments its input schema does not allow ({call.why_invalid}: "
            f"{call.sent}). XIV MCP passes arguments on as they were sent: check them in the handler and refuse "
            "with McpToolError, saying what is allowed.",
        )
    ]


def _slow_quick_tool(call: _Call) -> list[Finding]:
    seen = call.seen
    if not seen.cancelled or seen.long_running:
        return []
    took = "did not answer within the two minutes after" if seen.ignored_cancel else f"took {seen.seconds:.1f} s"
    return [
        call.finding(
            Severity.WARNING,
            Rule.SLOW_QUICK_TOOL,
            "J1, P7",
            f"{call.tool} is a quick tool (its Invoke answers the result itself) but {took} with {call.sent}, more "
            f"than {call.quick_limit:g} s: in the game its Invoke runs on the framework's thread and blocks it "
            "meanwhile. Answer at once, or make it a long-running tool (add_long_running_tool, or "
            "@plugin.long_running_tool) that reports progress.",
        )
    ]


def _ignores_cancel(call: _Call) -> list[Finding]:
    if not (call.seen.ignored_cancel and call.seen.long_running):
        return []
    return [
        call.finding(
            Severity.ERROR,
            Rule.IGNORES_CANCEL,
            "G8, J4",
            f"{call.tool} does not stop within two minutes of a Cancel (called with {call.sent}): XIV MCP gave up "
            "waiting and moved on while the tool went on acting in the game. Stop when the call is cancelled: "
            '`await call.sleep(...)` or watch `call.cancelled`, then end the call (the kit answers "Cancelled.").',
            on=Check.CANCEL,
        )
    ]


def _progress_cut(call: _Call) -> list[Finding]:
    cut = call.line.progress_cut
    if not cut:
        return []
    return [
        call.finding(
            Severity.WARNING,
            Rule.PROGRESS_CUT,
            "J5",
            f"{call.tool} sent {cut} progress line(s) longer than 300 characters; XIV MCP cuts each at 300, so "
            "the end is lost. Keep a progress line to one short step of what the tool does.",
        )
    ]


_RULES: Final[tuple[Callable[[_Call], list[Finding]], ...]] = (
    _undeclared_effect,
    _changed_on_error,
    _exception_reached_assistant,
    _accepted_invalid_arguments,
    _slow_quick_tool,
    _ignores_cancel,
    _progress_cut,
)
"""The rules a call is judged by, in the order their findings are reported."""


def judge_call(plugin: str, seen: CallSeen, *, why_invalid: str | None, quick_limit: float) -> list[Finding]:
    """What one call showed; `why_invalid` says why its arguments break the schema (None: valid ones)."""
    if seen.audit is None:
        return []  # XIV MCP itself refused the call (the plugin was paused or suspended): not the tool's doing
    call = _Call(plugin, seen, seen.audit, why_invalid, quick_limit, _shown(seen.arguments))
    return [finding for rule in _RULES for finding in rule(call)]


def _shown(arguments: dict[str, Any], limit: int = 200) -> str:
    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"
