"""The XIV MCP host: every `XivMcp.*` gate, the player's decisions, approvals, calls and the audit log.

It talks to other processes only through `broker`'s API (it never imports zmq) and knows nothing
of MCP (`gates.mcp` is the front above it). Run it with `host_running(HostConfig(...))`, or with
its MCP endpoint through `gates.runner.run_host`.

Its rooms, each a subpackage, imports pointing down only (tests/test_layering.py pins them):

    _host, _running            the composition root and its life on the bus
    _gate_handlers, _desk      the bus side: the plugins' `XivMcp.*` gates, the player's desk
    _plugin_requests,          the services behind them: what a plugin asks, what the player
    _player_actions,           does, and the proof of the player's key
    _challenges
    jobs/                      background jobs: runner, store, checks, placeholders, job tools
    calls/                     the call path, a plugin's Invoke and pending calls, the effect watch
    tools/                     XIV MCP's own tools: definitions, handlers, navigation, windows
    policy/                    the player's decisions: registry, policies, modules, approvals,
                               dependencies, the side-effect verdict, the SQLite store
    base/                      configuration, clock, ids, errors, listeners, the audit log

The data dir's files (`gates.datadir`) and the player's protocol and client (`gates.player`)
are rooms of their own beside it, because the command line and the MCP front use them without
the host.

Importing the package loads none of its rooms: each name loads its own module when first used
(PEP 562), so the command line's `xivmcp up` can take the data dir's lock and start the broker
and the game before it pays for the host itself, and `gates.mcp`'s settings read a secret
without loading the host.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ._desk import PlayerDesk
    from ._host import Host
    from ._running import host_running
    from .base._audit import AUDIT_FILENAME, AuditEntry, AuditKind
    from .base._call_outcome import CallOutcome
    from .base._clock import Clock, ManualClock, SystemClock
    from .base._config import HostConfig, HostLimits
    from .base._errors import ApprovalError, DependencyError, SettingError, StoreError
    from .calls._plugin_calls import CANCEL_GRACE, PICKUP_LIMIT
    from .jobs._tools import job_summary, job_view
    from .policy._approvals import APPROVAL_TIMEOUT, Approval, ApprovalKind
    from .tools._offer import OfferedTool
    from .tools._screen_tools import screen_png

_ROOMS: _typing.Final[dict[str, tuple[str, ...]]] = {
    ".policy._approvals": ("APPROVAL_TIMEOUT", "Approval", "ApprovalKind"),
    ".base._audit": ("AUDIT_FILENAME", "AuditEntry", "AuditKind"),
    ".base._call_outcome": ("CallOutcome",),
    ".calls._plugin_calls": ("CANCEL_GRACE", "PICKUP_LIMIT"),
    ".base._clock": ("Clock", "ManualClock", "SystemClock"),
    ".base._config": ("HostConfig", "HostLimits"),
    ".base._errors": ("ApprovalError", "DependencyError", "SettingError", "StoreError"),
    "._host": ("Host",),
    "._desk": ("PlayerDesk",),
    ".jobs._tools": ("job_summary", "job_view"),
    ".tools._offer": ("OfferedTool",),
    ".tools._screen_tools": ("screen_png",),
    "._running": ("host_running",),
}
_WHERE: _typing.Final = {name: room for room, names in _ROOMS.items() for name in names}


def __getattr__(name: str) -> _typing.Any:
    room = _WHERE.get(name)
    if room is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(room, __name__), name)
    globals()[name] = value  # the next lookup finds it without coming here
    return value


__all__ = [
    "APPROVAL_TIMEOUT",
    "AUDIT_FILENAME",
    "CANCEL_GRACE",
    "PICKUP_LIMIT",
    "Approval",
    "ApprovalError",
    "ApprovalKind",
    "AuditEntry",
    "AuditKind",
    "CallOutcome",
    "Clock",
    "DependencyError",
    "Host",
    "HostConfig",
    "HostLimits",
    "ManualClock",
    "OfferedTool",
    "PlayerDesk",
    "SettingError",
    "StoreError",
    "SystemClock",
    "host_running",
    "job_summary",
    "job_view",
    "screen_png",
]
