"""The plugin kit: what a plugin process imports to give the assistant tools through XIV MCP.

    from gates.plugin import McpCall, McpToolError, ToolDefinition, XivMcpClient

`XivMcpClient` is the Python counterpart of the contract's `XivMcpClient.cs`: it provides your
`<InternalName>.XivMcp.Invoke` and `.Cancel` gates, registers your tools whenever XIV MCP says
`Ready`, and stops running calls on `Disposing`. It imports the bus and the contract only: no
host, no MCP, no sqlite3, so a plugin starts fast and cannot reach into the host.
"""

from gates.contract import HostReplyError, JobInfo, JobState, JobStep, StepState, ToolDefinition

from ._call import CallCancelledError, McpCall, McpToolError, builtin_dependency, plugin_dependency
from ._client import XivMcpClient

__all__ = [
    "CallCancelledError",
    "HostReplyError",
    "JobInfo",
    "JobState",
    "JobStep",
    "McpCall",
    "McpToolError",
    "StepState",
    "ToolDefinition",
    "XivMcpClient",
    "builtin_dependency",
    "plugin_dependency",
]
