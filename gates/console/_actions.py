"""What each button of the console sends: a form becomes one of the player's typed commands.

A table, as the command line's (`xivmcp/_player_cli.py`): each action names the form fields it
reads and the command it builds; the host's desk answers it as it answers `xivmcp enable`,
`approve`, `module`, `job pause`, ... A form that lacks a field is refused before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from gates.contract import Answer, RefusedError
from gates.player import (
    AnswerApproval,
    ClearSession,
    Command,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    KeepDisabled,
    LiftSuspension,
    SetMode,
    SetModule,
    SetToolSetting,
)

__all__ = ["ACTIONS", "command_of"]

Form = Mapping[str, str]


def _field(form: Form, name: str) -> str:
    value = form.get(name)
    if not value:
        raise RefusedError(f"The form has no {name!r}: reload the page and try again.")
    return value


def _answer(form: Form) -> AnswerApproval:
    try:
        answer = Answer(_field(form, "answer"))
    except ValueError:
        raise RefusedError("'answer' must be approve_once, approve_session, always_allow or decline.") from None
    return AnswerApproval(approval_id=_field(form, "approval_id"), answer=answer)


ACTIONS: Final[dict[str, Callable[[Form], Command[Any]]]] = {
    "enable": lambda f: EnablePlugin(plugin=_field(f, "plugin"), digest=_field(f, "digest")),
    "consent": lambda f: ConsentPlugin(plugin=_field(f, "plugin"), digest=_field(f, "digest")),
    "keep_disabled": lambda f: KeepDisabled(plugin=_field(f, "plugin")),
    "lift": lambda f: LiftSuspension(plugin=_field(f, "plugin")),
    "clear_session": lambda f: ClearSession(plugin=_field(f, "plugin")),
    "mode": lambda f: SetMode(plugin=_field(f, "plugin"), target=_field(f, "target"), mode=_field(f, "mode")),
    "answer": _answer,
    "module": lambda f: SetModule(module=_field(f, "module"), what=_field(f, "what"), mode=f.get("mode") or None),
    "tool": lambda f: SetToolSetting(tool=_field(f, "tool"), setting=_field(f, "setting")),
    "job": lambda f: ControlJob(id=_field(f, "id"), action=_field(f, "action")),
}
"""Each action of `POST /console/act/{action}`, and the command its form makes."""


def command_of(action: str, form: Form) -> Command[Any]:
    """The command a button sends; RefusedError for an unknown action or a missing field."""
    build = ACTIONS.get(action)
    if build is None:
        raise RefusedError(f"The console has no action {action!r}: reload the page.")
    return build(form)
