"""What each gate of the contract does, what it is sent, what it answers and when it refuses (G1, G2).

`_names` says how a gate is called (its parameters and return type); this book says what the
values mean, for the people who call the gates by hand and for the generated reference
(`docs/reference/gates.md`, written by `scripts/gen_docs.py` from this table). A reply is a
document of `_documents` inside ``{"ok": true, ...}``; a refusal is ``{"ok": false, "error":
"..."}`` whose text is a :class:`RefusedError`'s message (the host never raises into a plugin).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

import msgspec

from ._documents import (
    ApprovalReply,
    ApprovalRequest,
    CallAccepted,
    CapabilitiesReply,
    CheckPermissionReply,
    DependenciesReply,
    DependencyDeclaration,
    Job,
    JobReply,
    JobsReply,
    RegisterReply,
    StatusReply,
    ToolDefinition,
    UnregisterAllReply,
    UnregisterReply,
)
from ._names import Gate, Message, PluginGate

__all__ = ["GATE_BOOK", "OWNER_REFUSALS", "GatePage"]

OWNER_REFUSALS: Final[tuple[str, ...]] = (
    "`owner` is empty, is `XivMcp`, or names no installed plugin",
    "`owner` is another plugin than the caller: a plugin can only act as itself (G3)",
)
"""The refusals of every gate that takes an ``owner``, before it looks at anything else."""


@dataclass(frozen=True, slots=True)
class GatePage:
    """One gate as the reference shows it.

    ``sends`` names the document a JSON parameter carries (parameter name to ``Struct``);
    ``reply`` is the document inside ``{"ok": true, ...}`` (``None``: ``{"ok": true}`` alone) or,
    for a gate that answers a plain value, that value's type; ``refusals`` says when the gate
    answers ``{"ok": false, "error": ...}``.
    """

    summary: str
    reply: type[object] | None = None
    sends: Mapping[str, type[msgspec.Struct]] = field(default_factory=lambda: _sends())
    refusals: tuple[str, ...] = ()


def _sends(**documents: type[msgspec.Struct]) -> Mapping[str, type[msgspec.Struct]]:
    return MappingProxyType(documents)


_CALL = "`callId` is no running call of the caller's"
_JOB = "`id` names no job the caller started (by id or name)"

GATE_BOOK: Final[Mapping[str, GatePage]] = MappingProxyType(
    {
        Gate.API_VERSION: GatePage("The contract's version: `2`. A plain value, not a reply document.", int),
        Gate.IS_READY: GatePage("`true` once XIV MCP serves its gates. A plain value.", bool),
        Gate.LIST_CAPABILITIES: GatePage(
            "The capability catalog: each id, risk, title, description and default mode.", CapabilitiesReply
        ),
        Gate.REGISTER_TOOL: GatePage(
            "Register (or replace) one of the owner's tools; the reply says whether the player enabled the plugin.",
            RegisterReply,
            _sends(definitionJson=ToolDefinition),
            (
                *OWNER_REFUSALS,
                "the definition is not valid JSON or breaks a rule: name, description, schema, capabilities",
                "the name is one of XIV MCP's own tools or another plugin's",
                "a capability id is not in the catalog",
                "the plugin would have more tools, or a bigger definition, than the host's limits",
            ),
        ),
        Gate.UNREGISTER_TOOL: GatePage(
            "Remove one of the owner's tools; `removed` is false when it had no such tool.",
            UnregisterReply,
            refusals=OWNER_REFUSALS,
        ),
        Gate.UNREGISTER_ALL: GatePage(
            "Remove all of the owner's tools; `removed` counts them.", UnregisterAllReply, refusals=OWNER_REFUSALS
        ),
        Gate.GET_STATUS: GatePage(
            "The owner's state, whether it can run, its tools' and capabilities' modes and its dependencies.",
            StatusReply,
            refusals=OWNER_REFUSALS,
        ),
        Gate.DECLARE_DEPENDENCIES: GatePage(
            "Declare the tools (built-in or other plugins') the owner's tools call, and learn their state.",
            DependenciesReply,
            _sends(json=DependencyDeclaration),
            (*OWNER_REFUSALS, "the declaration is not valid JSON or names a tool badly"),
        ),
        Gate.CHECK_PERMISSION: GatePage(
            "The mode the player gave one of the owner's capabilities, and whether the plugin is enabled.",
            CheckPermissionReply,
            refusals=(*OWNER_REFUSALS, "`capability` is missing or not in the catalog"),
        ),
        Gate.REQUEST_APPROVAL: GatePage(
            "During a call, ask the player to approve one step (a capability and a one-line summary).",
            ApprovalReply,
            _sends(requestJson=ApprovalRequest),
            (_CALL, "the request is not valid JSON, or its summary holds control characters"),
        ),
        Gate.GET_APPROVAL: GatePage(
            "The state of an approval the caller requested: pending, approved or denied.",
            ApprovalReply,
            refusals=("`approvalId` is no approval of the caller's",),
        ),
        Gate.COMPLETE_CALL: GatePage(
            "Finish a pending call with its result (any JSON); `accepted` is false when it was already finished.",
            CallAccepted,
            refusals=(_CALL, "`resultJson` is not valid JSON"),
        ),
        Gate.FAIL_CALL: GatePage(
            "Finish a pending call with an error the assistant reads; `accepted` as for CompleteCall.",
            CallAccepted,
            refusals=(_CALL,),
        ),
        Gate.REPORT_PROGRESS: GatePage(
            "A progress line for a running call, shown to the assistant and the player.",
            refusals=(_CALL, "the line holds control characters"),
        ),
        Gate.START_JOB: GatePage(
            "Start a background job of tool steps, owned by the plugin; answered once it is on disk.",
            JobReply,
            _sends(jobJson=Job),
            (
                *OWNER_REFUSALS,
                "the player has not enabled the plugin, or it is suspended or awaits consent",
                "the job is not valid JSON, names a tool a plugin may not use, or its name holds control characters",
            ),
        ),
        Gate.GET_JOB: GatePage("One of the caller's jobs with its steps, results and log.", JobReply, refusals=(_JOB,)),
        Gate.LIST_JOBS: GatePage(
            "The caller's jobs, newest first, without their steps' results and logs (the argument is ignored).",
            JobsReply,
        ),
        Gate.PAUSE_JOB: GatePage("Pause one of the caller's jobs (a running step is cancelled).", refusals=(_JOB,)),
        Gate.RESUME_JOB: GatePage("Resume one of the caller's paused jobs.", refusals=(_JOB,)),
        Gate.CANCEL_JOB: GatePage("Cancel one of the caller's jobs.", refusals=(_JOB,)),
        Message.READY: GatePage("Broadcast once XIV MCP is up: register your tools (again) (G11)."),
        Message.DISPOSING: GatePage("Broadcast as XIV MCP goes down: stop the calls you are running (G11)."),
        PluginGate.INVOKE: GatePage(
            'XIV MCP calls one of the plugin\'s tools: answer `{"result": ...}`, `{"error": "..."}` or '
            '`{"pending": true}` (then CompleteCall or FailCall later).',
            str,
        ),
        PluginGate.CANCEL: GatePage(
            "XIV MCP cancels a running call: stop it, then CompleteCall or FailCall it; XIV MCP waits up to two "
            "minutes for that. A plugin need not provide it (G8)."
        ),
    }
)
"""Every gate, message and plugin gate of the contract, by its name (a plugin gate by its short name)."""
