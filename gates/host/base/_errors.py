"""The host's own refusals and failures, under the contract's error tree.

::

    XivMcpError (gates.contract)
    +-- RefusedError (gates.contract)
    |   +-- SettingError            a player setting the host cannot take (critical set to allow)
    |   +-- DependencyError         a dependency declaration that breaks a rule
    |   +-- ApprovalError           an unknown approval id, or an answer to a decided approval
    +-- StoreError                  the policy database cannot be opened or written
    +-- DataDirInUseError           another host runs on this data dir (gates.datadir)
"""

from __future__ import annotations

from gates.contract import RefusedError, XivMcpError

__all__ = ["ApprovalError", "DependencyError", "SettingError", "StoreError"]


class SettingError(RefusedError):
    """Raised when a player setting cannot be applied, such as Allow on a critical capability."""


class DependencyError(RefusedError):
    """Raised when a ``DeclareDependencies`` document breaks a rule."""


class ApprovalError(RefusedError):
    """Raised for an approval id the host does not know, or an answer to a decided approval."""


class StoreError(XivMcpError):
    """Raised when the policy database cannot be opened, migrated or written."""
