"""The XIV MCP host: every `XivMcp.*` gate, the player's decisions, approvals, calls and the audit log.

It talks to other processes only through `broker`'s API (it never imports zmq) and knows nothing
of MCP (`gates.mcp` is the front above it). Run it with `host_running(HostConfig(...))`, or with
its MCP endpoint through `gates.runner.run_host`.

Its rooms: the composition root (`_host`), the services it wires (`_plugin_requests` behind the
plugins' gates, `_player_actions` behind the player's, `_call_path` for the assistant's calls,
`_calls` for plugins' Invoke), the state they share (`_registry`, `_policy` and `_records`,
`_approvals`, `_dependencies`, `_store`, `_audit`), the core tools, and the bus side
(`_gate_handlers`, `_desk` for the player, `_running` for the life cycle).

Importing the package loads none of its rooms: each name loads its own module when first used
(PEP 562), so the command line's `xivmcp up` can take the data dir's lock and start the broker
and the game before it pays for the host itself, and `gates.mcp`'s settings read a secret
without loading the host.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ._approvals import APPROVAL_TIMEOUT, Approval, ApprovalKind
    from ._audit import AUDIT_FILENAME, AuditEntry, AuditKind
    from ._call_outcome import CallOutcome
    from ._calls import CANCEL_GRACE, PICKUP_LIMIT
    from ._clock import Clock, ManualClock, SystemClock
    from ._config import HostConfig, HostLimits
    from ._errors import ApprovalError, DataDirInUseError, DependencyError, SettingError, StoreError
    from ._host import Host
    from ._job_tools import job_summary, job_view
    from ._lock import DataDirLock
    from ._offer import OfferedTool
    from ._player_client import NotYourHostError, PlayerClient, read_player_key
    from ._player_protocol import PLAYER_GATE, PLAYER_HELLO_GATE, PLAYER_KEY_FILE
    from ._report import Awaits, PluginCard, PluginsReport, ToolCard
    from ._running import host_running
    from ._secrets import owner_only_dir, read_secret, secret

_ROOMS: _typing.Final[dict[str, tuple[str, ...]]] = {
    "._approvals": ("APPROVAL_TIMEOUT", "Approval", "ApprovalKind"),
    "._audit": ("AUDIT_FILENAME", "AuditEntry", "AuditKind"),
    "._call_outcome": ("CallOutcome",),
    "._calls": ("CANCEL_GRACE", "PICKUP_LIMIT"),
    "._clock": ("Clock", "ManualClock", "SystemClock"),
    "._config": ("HostConfig", "HostLimits"),
    "._errors": ("ApprovalError", "DataDirInUseError", "DependencyError", "SettingError", "StoreError"),
    "._host": ("Host",),
    "._job_tools": ("job_summary", "job_view"),
    "._lock": ("DataDirLock",),
    "._offer": ("OfferedTool",),
    "._player_client": ("NotYourHostError", "PlayerClient", "read_player_key"),
    "._player_protocol": ("PLAYER_GATE", "PLAYER_HELLO_GATE", "PLAYER_KEY_FILE"),
    "._report": ("Awaits", "PluginCard", "PluginsReport", "ToolCard"),
    "._running": ("host_running",),
    "._secrets": ("owner_only_dir", "read_secret", "secret"),
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
    "PLAYER_GATE",
    "PLAYER_HELLO_GATE",
    "PLAYER_KEY_FILE",
    "Approval",
    "ApprovalError",
    "ApprovalKind",
    "DataDirInUseError",
    "DataDirLock",
    "AuditEntry",
    "AuditKind",
    "Awaits",
    "CallOutcome",
    "Clock",
    "DependencyError",
    "Host",
    "HostConfig",
    "HostLimits",
    "ManualClock",
    "NotYourHostError",
    "OfferedTool",
    "PlayerClient",
    "PluginCard",
    "PluginsReport",
    "SettingError",
    "StoreError",
    "SystemClock",
    "ToolCard",
    "host_running",
    "job_summary",
    "job_view",
    "owner_only_dir",
    "read_player_key",
    "read_secret",
    "secret",
]
