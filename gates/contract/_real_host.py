"""Which real XIV MCP this simulator follows: its version and the commits of each file read.

A plugin author learns here what the real host would refuse, pause or suspend, so they need to know
*which* real host: when XIV MCP updates, a verdict may change, and the check is worth running again
against a simulator that has read the new version. This table is the one source of truth for that:
`xivmcp --version` and every `xivmcp check` report print it, and the fidelity ledger's table of
commits (docs/fidelity.md) is checked against it by `tests/real_host/test_ledger.py`.

A re-read of the real project updates this table (and the ledger's) in one reviewed commit.
"""

from __future__ import annotations

from typing import Final

import msgspec

from ._names import API_VERSION

__all__ = ["REAL_HOST_READ", "RealHostFile", "RealHostRead"]


class RealHostFile(msgspec.Struct, frozen=True, kw_only=True):
    """One source file of the real host, and the commit it was read at (the newest found)."""

    path: str
    commit: str
    """The first 8 hex digits of the commit."""


class RealHostRead(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The real host this simulator was checked against."""

    repo: str
    version: str
    """The real plugin's version (`<Version>` of `XivMcp/XivMcp.csproj`) at the newest commit read."""
    api_version: int
    """The plugin contract's version (`XivMcp.ApiVersion`)."""
    files: tuple[RealHostFile, ...]

    def line(self) -> str:
        """One line for a report: the version, the API and how many files at which commits."""
        return (
            f"XIV MCP {self.version} (API {self.api_version}; {self.repo}, "
            f"{len(self.files)} files read at the commits `xivmcp --version` lists)"
        )


def _files(*rows: tuple[str, str]) -> tuple[RealHostFile, ...]:
    return tuple(RealHostFile(path=path, commit=commit) for path, commit in rows)


REAL_HOST_READ: Final = RealHostRead(
    repo="IndividualGather/xiv-mcp",
    version="0.3.0.0",
    api_version=API_VERSION,
    files=_files(
        ("XivMcp/XivMcp.csproj", "2acf0c31"),
        ("XivMcp/Api/PluginApi.cs", "9de90097"),
        ("XivMcp/Api/IpcCaller.cs", "74934ba3"),
        ("XivMcp/Mcp/McpServer.cs", "b0e2678c"),
        ("XivMcp/Util/Security.cs", "59c8ccd9"),
        ("XivMcp.Core/Permissions/ToolGate.cs", "9de90097"),
        ("XivMcp.Core/Permissions/Caller.cs", "9de90097"),
        ("XivMcp.Core/Permissions/BuiltInCapabilities.cs", "59c8ccd9"),
        ("XivMcp.Core/Permissions/PermissionCatalog.cs", "c8efd48b"),
        ("XivMcp.Core/Permissions/SideEffects.cs", "739d2c45"),
        ("XivMcp.Core/Permissions/Capabilities.cs", "739d2c45"),
        ("XivMcp.Core/Api/PluginOwners.cs", "74934ba3"),
        ("XivMcp.Core/Api/ToolDefinition.cs", "739d2c45"),
        ("XivMcp.Core/Api/Dependencies.cs", "57ae61ad"),
        ("XivMcp.Core/Mcp/ToolSummaries.cs", "c8efd48b"),
        ("XivMcp.Core/Integrations/IntegrationCatalog.cs", "586dbf06"),
        ("XivMcp.Core/Integrations/PluginCatalog.cs", "586dbf06"),
        ("XivMcp.Core/Integrations/ToolRequirements.cs", "9f3a057b"),
        ("XivMcp/Mcp/McpServer.Resources.cs", "b2eb72ad"),
        ("XivMcp/Util/Caches.cs", "38ab4774"),
    ),
)
