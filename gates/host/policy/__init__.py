"""The player's decisions and what they rule: the registry, policies and records per plugin, modules,
approvals, dependencies, the verdict on a call's side effects, and the SQLite store that keeps them.

As in the real host's `XivMcp.Core/Permissions`. Imports only `base`.
"""
