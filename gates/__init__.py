"""XIV MCP's plugin contract, host, MCP front and plugin kit, in rooms by audience.

    gates.contract   what the host and every plugin agree on: gate names, codes, documents
    gates.plugin     what a plugin process imports: the plugin-side client (XivMcpClient)
    gates.host       the XIV MCP host: registry, the player's decisions, approvals, calls, audit
    gates.mcp        the MCP front for AI apps, above the host
    gates.runner     the process runner: the host with its MCP front (`xivmcp host`, `xivmcp up`)
    gates.testing    the shipped process harness: a broker, a host and plugins as real processes

Imports point one way: contract <- host <- mcp <- runner, and contract <- plugin. Importing
`gates` itself loads nothing else; import the room you need.
"""

__all__: list[str] = []
