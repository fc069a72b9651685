"""A call on its way: the assistant's call path (allow, ask or deny, then run), a plugin's Invoke with
its pending calls and Cancel, and the game watched around each third-party call.

Imports `base`, `policy` and `tools` (the call path runs XIV MCP's own tools in process).
"""
