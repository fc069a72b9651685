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
from ._endpoint import (
    DEFAULT_HTTP_PORT,
    EndpointError,
    check_bind_address,
    mcp_url,
    parse_http_address,
    read_mcp_token,
)
from ._errors import HostReplyError, RefusedError, XivMcpError
from ._host import Host, HostConfig
from ._host_gates import run_host
from ._player import read_player_key

__all__ = [
    "API_VERSION",
    "CAPABILITIES",
    "DEFAULT_HTTP_PORT",
    "HOST_NAME",
    "PLAYER_GATE",
    "Answer",
    "ApprovalState",
    "CallOutcome",
    "CapabilityId",
    "Clock",
    "DependencyState",
    "EndpointError",
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
    "check_bind_address",
    "mcp_url",
    "parse_http_address",
    "plugin_gate",
    "read_mcp_token",
    "read_player_key",
    "run_host",
]
