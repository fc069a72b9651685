"""Findings about one call, from what the assistant was answered and the host's audit line of it.

The host has judged the call already (T2, W3, W4: its effects against the declared capabilities,
`changedOnError`, the suspension); this turns its verdict into what the plugin's author reads,
and adds what only the check knows: whether the arguments were ones the schema allows, how long
a quick tool kept its Invoke, whether a cancelled call stopped.
"""

from __future__ import annotations

import builtins
import json
import re
from typing import Any, Final

from gates.contract import quote

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


def judge_call(plugin: str, seen: CallSeen, *, why_invalid: str | None, quick_limit: float) -> list[Finding]:
    """What one call showed; `why_invalid` says why its arguments break the schema (None: valid ones)."""
    check = Check.VALID_ARGUMENTS if why_invalid is None else Check.INVALID_ARGUMENTS
    audit = seen.audit
    if audit is None:
        return []  # XIV MCP itself refused the call (the plugin was paused or suspended): not the tool's doing
    found: list[Finding] = []

    def add(severity: Severity, rule: Rule, spec: str, message: str, on: Check = check) -> None:
        found.append(
            Finding(
                severity=severity,
                tool=seen.tool,
                rule=rule,
                check=on,
                spec=spec,
                message=message,
                arguments=seen.arguments,
            )
        )

    tool, sent = seen.tool, _shown(seen.arguments)
    effects: list[dict[str, Any]] = list(audit.get("effects") or [])
    undeclared = [e for e in effects if e.get("undeclared")]
    if undeclared:
        details = " ".join(str(e.get("detail")) for e in undeclared)
        covering = sorted({c for e in undeclared for c in e.get("coveredBy") or []})
        if seen.suspension is not None:
            what = f"XIV MCP would suspend {plugin}: {seen.suspension}"
        else:
            what = f"XIV MCP would flag the call in its audit log: {tool}: {details} (not declared)"
        add(
            Severity.ERROR,
            Rule.UNDECLARED_EFFECT,
            "T2, W4",
            f"{what}. {tool} did this when called with {sent}; declare the capability that covers it "
            f"({' or '.join(covering)}) in its definition, or do not do it.",
        )
    error = seen.error
    if audit.get("changedOnError"):
        changes = " ".join(str(e.get("detail")) for e in effects)
        add(
            Severity.ERROR,
            Rule.CHANGED_ON_ERROR,
            "T3",
            f"{tool} answered an error ({quote(error or '', 200)}) yet changed the game ({changes}) when called with "
            f"{sent}. A refused call must change nothing: check everything before acting, and once it has "
            "acted, answer what was done as the result.",
        )
    if error is not None and is_exception_text(error):
        add(
            Severity.ERROR if why_invalid is None else Severity.WARNING,
            Rule.EXCEPTION_REACHED_ASSISTANT,
            "T4, P6",
            f"An exception reached the assistant as {quote(error or '', 200)} when {tool} was called with {sent}"
            + (f" ({why_invalid})" if why_invalid else "")
            + ". Catch it and raise McpToolError with what was wrong and what to send instead.",
        )
    if why_invalid is not None and not seen.cancelled and error is None:
        add(
            Severity.WARNING,
            Rule.ACCEPTED_INVALID_ARGUMENTS,
            "T3",
            f"{tool} answered a result to arguments its input schema does not allow ({why_invalid}: {sent}). "
            "XIV MCP passes arguments on as they were sent: check them in the handler and refuse with "
            "McpToolError, saying what is allowed.",
        )
    if seen.cancelled and not seen.long_running:
        took = "did not answer within the two minutes after" if seen.ignored_cancel else f"took {seen.seconds:.1f} s"
        add(
            Severity.WARNING,
            Rule.SLOW_QUICK_TOOL,
            "J1, P7",
            f"{tool} is a quick tool (its Invoke answers the result itself) but {took} with {sent}, more than "
            f"{quick_limit:g} s: in the game its Invoke runs on the framework's thread and blocks it meanwhile. "
            "Answer at once, or make it a long-running tool (add_long_running_tool, or "
            "@plugin.long_running_tool) that reports progress.",
        )
    if seen.ignored_cancel and seen.long_running:
        add(
            Severity.ERROR,
            Rule.IGNORES_CANCEL,
            "G8, J4",
            f"{tool} does not stop within two minutes of a Cancel (called with {sent}): XIV MCP gave up waiting "
            "and moved on while the tool went on acting in the game. Stop when the call is cancelled: "
            '`await call.sleep(...)` or watch `call.cancelled`, then end the call (the kit answers "Cancelled.").',
            on=Check.CANCEL,
        )
    if cut := int(audit.get("progressCut") or 0):
        add(
            Severity.WARNING,
            Rule.PROGRESS_CUT,
            "J5",
            f"{tool} sent {cut} progress line(s) longer than 300 characters; XIV MCP cuts each at 300, so "
            "the end is lost. Keep a progress line to one short step of what the tool does.",
        )
    return found


def _shown(arguments: dict[str, Any], limit: int = 200) -> str:
    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"
