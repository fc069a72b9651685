"""What the host's services share: the registry, the player's decisions, approvals, the installed
plugins and the audit log.

One value handed to each service (`PluginRequests`, `PlayerActions`, `CallPath`), so a service
names only what it needs beyond it. `changed` says that the offered tools may have changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..base._audit import AuditLog
from ._approvals import Approvals
from ._installed import InstalledPlugins
from ._modules import Modules
from ._policy import Policies
from ._registrations import Registrations
from ._registry import ToolRegistry

__all__ = ["HostState"]


@dataclass(frozen=True, slots=True)
class HostState:
    registry: ToolRegistry
    policies: Policies
    registrations: Registrations
    approvals: Approvals
    audit: AuditLog
    changed: Callable[[str | None], None]
    """Call with the plugin concerned after anything that can change which of its tools may run
    (a decision, a setting), so the MCP front looks at that plugin alone."""
    modules: Modules
    """The player's settings for XIV MCP's own tools."""
    installed: InstalledPlugins
    """The plugins installed, as Dalamud lists them: display names, versions, who is loaded."""
