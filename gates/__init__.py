"""The XIV MCP contract and host: every `XivMcp.*` gate, the player's decisions, calls and audit.

This package talks to other processes only through `broker`'s API; it never imports zmq.
Plugin authors use `gates.client`; the host runs with `run_host(HostConfig(...))`.
"""

from ._calls import CallOutcome
from ._clock import Clock, ManualClock, SystemClock
from ._contract import (
    API_VERSION,
    CAPABILITIES,
    HOST_NAME,
    PLAYER_GATE,
    Answer,
    ApprovalState,
    CapabilityId,
    DependencyState,
    Gate,
    Message,
    Mode,
    PluginState,
    Risk,
    StatusReply,
    ToolDefinition,
    plugin_gate,
)
from ._errors import HostReplyError, RefusedError, XivMcpError
from ._host import Host, HostConfig
from ._host_gates import run_host
from ._player import read_player_key

__all__ = [
    "API_VERSION",
    "CAPABILITIES",
    "HOST_NAME",
    "PLAYER_GATE",
    "Answer",
    "ApprovalState",
    "CallOutcome",
    "CapabilityId",
    "Clock",
    "DependencyState",
    "Gate",
    "Host",
    "HostConfig",
    "HostReplyError",
    "ManualClock",
    "Message",
    "Mode",
    "PluginState",
    "RefusedError",
    "Risk",
    "StatusReply",
    "SystemClock",
    "ToolDefinition",
    "XivMcpError",
    "plugin_gate",
    "read_player_key",
    "run_host",
]
