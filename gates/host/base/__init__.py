"""What every room of the host stands on: its configuration, clock, ids, errors, listeners and audit log.

Imports no other room of the host. The rooms above it, bottom to top: `policy`, `tools`, `calls`,
`jobs`, and the services and composition root at the top of `gates.host` (tests/test_layering.py
pins the order).
"""
