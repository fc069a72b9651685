"""Gate names and signatures of the XIV MCP contract, API version 2 (G1).

XIV MCP's gates are ``XivMcp.<Gate>``; a plugin's are ``<InternalName>.XivMcp.<Gate>``. Each
signature lists the parameter names as seeds/001 writes them and the JSON type they carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

__all__ = [
    "API_VERSION",
    "GATE_SIGNATURES",
    "HOST_NAME",
    "MESSAGE_SIGNATURES",
    "PLUGIN_GATE_SIGNATURES",
    "Gate",
    "GateSignature",
    "Message",
    "PluginGate",
    "plugin_gate",
]

API_VERSION: Final = 2
HOST_NAME: Final = "XivMcp"

# --------------------------------------------------------------------------- gate names


class Gate(StrEnum):
    """The call gates XIV MCP provides."""

    API_VERSION = "XivMcp.ApiVersion"
    IS_READY = "XivMcp.IsReady"
    LIST_CAPABILITIES = "XivMcp.ListCapabilities"
    REGISTER_TOOL = "XivMcp.RegisterTool"
    UNREGISTER_TOOL = "XivMcp.UnregisterTool"
    UNREGISTER_ALL = "XivMcp.UnregisterAll"
    GET_STATUS = "XivMcp.GetStatus"
    DECLARE_DEPENDENCIES = "XivMcp.DeclareDependencies"
    CHECK_PERMISSION = "XivMcp.CheckPermission"
    REQUEST_APPROVAL = "XivMcp.RequestApproval"
    GET_APPROVAL = "XivMcp.GetApproval"
    COMPLETE_CALL = "XivMcp.CompleteCall"
    FAIL_CALL = "XivMcp.FailCall"
    REPORT_PROGRESS = "XivMcp.ReportProgress"
    START_JOB = "XivMcp.StartJob"
    GET_JOB = "XivMcp.GetJob"
    LIST_JOBS = "XivMcp.ListJobs"
    PAUSE_JOB = "XivMcp.PauseJob"
    RESUME_JOB = "XivMcp.ResumeJob"
    CANCEL_JOB = "XivMcp.CancelJob"


class Message(StrEnum):
    """The messages XIV MCP broadcasts: register on ``Ready``, stop running calls on ``Disposing``."""

    READY = "XivMcp.Ready"
    DISPOSING = "XivMcp.Disposing"


class PluginGate(StrEnum):
    """The gates a plugin provides, named ``<InternalName>.XivMcp.<Gate>``."""

    INVOKE = "Invoke"
    CANCEL = "Cancel"


def plugin_gate(internal_name: str, gate: PluginGate | str) -> str:
    """The full name of a plugin's gate: ``plugin_gate("MyPlugin", "Invoke")`` is ``MyPlugin.XivMcp.Invoke``."""
    if not internal_name or any(c.isspace() for c in internal_name):
        raise ValueError(f"{internal_name!r} is not a plugin internal name (non-empty, without spaces).")
    try:
        which = PluginGate(gate)
    except ValueError:
        raise ValueError(f"{gate!r} is not a plugin gate; use 'Invoke' or 'Cancel'.") from None
    return f"{internal_name}.{HOST_NAME}.{which}"


@dataclass(frozen=True, slots=True)
class GateSignature:
    """A gate's parameters (name and JSON type) and return type; ``NoneType`` for actions and messages."""

    names: tuple[str, ...]
    params: tuple[type[object], ...]
    returns: type[object]


_NONE: Final[type[object]] = type(None)


def _sig(returns: type[object], *names: str) -> GateSignature:
    return GateSignature(names=names, params=tuple(str for _ in names), returns=returns)


GATE_SIGNATURES: Final[Mapping[Gate, GateSignature]] = MappingProxyType(
    {
        Gate.API_VERSION: _sig(int),
        Gate.IS_READY: _sig(bool),
        Gate.LIST_CAPABILITIES: _sig(str),
        Gate.REGISTER_TOOL: _sig(str, "owner", "definitionJson"),
        Gate.UNREGISTER_TOOL: _sig(str, "owner", "name"),
        Gate.UNREGISTER_ALL: _sig(str, "owner"),
        Gate.GET_STATUS: _sig(str, "owner"),
        Gate.DECLARE_DEPENDENCIES: _sig(str, "owner", "json"),
        Gate.CHECK_PERMISSION: _sig(str, "owner", "capability"),
        Gate.REQUEST_APPROVAL: _sig(str, "callId", "requestJson"),
        Gate.GET_APPROVAL: _sig(str, "approvalId"),
        Gate.COMPLETE_CALL: _sig(str, "callId", "resultJson"),
        Gate.FAIL_CALL: _sig(str, "callId", "message"),
        Gate.REPORT_PROGRESS: _sig(str, "callId", "text"),
        Gate.START_JOB: _sig(str, "owner", "jobJson"),
        Gate.GET_JOB: _sig(str, "id"),
        Gate.LIST_JOBS: _sig(str, "owner"),
        Gate.PAUSE_JOB: _sig(str, "id"),
        Gate.RESUME_JOB: _sig(str, "id"),
        Gate.CANCEL_JOB: _sig(str, "id"),
    }
)
MESSAGE_SIGNATURES: Final[Mapping[Message, GateSignature]] = MappingProxyType(
    {Message.READY: _sig(_NONE), Message.DISPOSING: _sig(_NONE)}
)
PLUGIN_GATE_SIGNATURES: Final[Mapping[PluginGate, GateSignature]] = MappingProxyType(
    {
        PluginGate.INVOKE: _sig(str, "callId", "tool", "argsJson"),
        PluginGate.CANCEL: _sig(_NONE, "callId"),
    }
)
