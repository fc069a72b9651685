"""The plugin kit: what a plugin process imports to give the assistant tools through XIV MCP.

    from gates.plugin import Plugin, McpCall, McpToolError

    plugin = Plugin("MyPlugin")

    @plugin.tool(read_only=True)
    def myplugin_status() -> Status:
        \"\"\"Whom My Plugin follows right now, if anyone.\"\"\"

    if __name__ == "__main__":
        plugin.run()

`Plugin` declares tools from functions: the name, description, schemas and argument checks
come from the function (`_plugin`, `_tool`); `Listing` returns a list with its counts, paged.
`XivMcpClient` is the Python counterpart of the contract's `XivMcpClient.cs`, for code ported
from C# or written against the definitions themselves: it provides your
`<InternalName>.XivMcp.Invoke` and `.Cancel` gates (which answer XIV MCP alone), registers your
tools whenever XIV MCP says `Ready`, and stops running calls on `Disposing`. The kit imports the
bus and the contract only: no host, no MCP, no sqlite3, so a plugin starts fast and cannot reach
into the host.
"""

from gates.contract import HostReplyError, JobInfo, JobState, JobStep, StepState, ToolDefinition

from ._call import CallCancelledError, McpCall, McpToolError, builtin_dependency, plugin_dependency
from ._client import XivMcpClient
from ._declaration import ToolDeclarationError
from ._entry import bus_key, bus_keys
from ._listing import Listing
from ._plugin import Plugin, ToolOutcome

__all__ = [
    "CallCancelledError",
    "HostReplyError",
    "JobInfo",
    "JobState",
    "JobStep",
    "Listing",
    "McpCall",
    "McpToolError",
    "Plugin",
    "StepState",
    "ToolDeclarationError",
    "ToolDefinition",
    "ToolOutcome",
    "XivMcpClient",
    "builtin_dependency",
    "bus_key",
    "bus_keys",
    "plugin_dependency",
]
