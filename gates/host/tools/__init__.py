"""XIV MCP's own tools: their definitions (core, game, jobs, maintained integrations), their handlers,
navigation and the game windows the host drives, and which tools an assistant is offered.

Imports `base` and `policy`; a job tool's handler lives with the jobs (`jobs._tools`), its
definition here, because every definition is offered before any job exists.
"""
