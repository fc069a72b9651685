"""The XIV MCP host: every `XivMcp.*` gate, the player's decisions, approvals, calls and the audit log.

It talks to other processes only through `broker`'s API (it never imports zmq) and knows nothing
of MCP (`gates.mcp` is the front above it). Run it with `host_running(HostConfig(...))`, or with
its MCP endpoint through `gates.runner.run_host`.

Its rooms: the composition root (`_host`), the services it wires (`_plugin_requests` behind the
plugins' gates, `_player_actions` behind the player's, `_call_path` for the assistant's calls,
`_calls` for plugins' Invoke), the state they share (`_registry`, `_policy` and `_records`,
`_approvals`, `_dependencies`, `_store`, `_audit`), the core tools, and the bus side
(`_gate_handlers`, `_desk` for the player, `_running` for the life cycle).
"""

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
