"""What each AI app needs to reach XIV MCP: its configuration snippet, and where it keeps it (A10).

`xivmcp connect` prints them and the console's Connect tab shows them; both say which of each
app's configuration files already name the endpoint (`configured_in`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["APPS", "SERVER_NAME", "TOKEN_ENV", "configured_in"]

SERVER_NAME = "xivmcp"
"""The name each app's configuration gives XIV MCP."""
TOKEN_ENV = "XIVMCP_TOKEN"
"""The environment variable Codex reads the token from."""


NOT_IN_PROJECT = (
    "Keep the token out of project files that get committed or shared ({files}): anyone who has it can\n"
    "act as your AI app in the game while XIV MCP runs. Use the user-level file, or add the project\n"
    "file to .gitignore. `xivmcp token rotate` makes a new token if one got out."
)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2)


def _claude_desktop(url: str, auth: str) -> str:
    config = {
        "mcpServers": {
            SERVER_NAME: {
                "command": "npx",
                "args": ["-y", "mcp-remote", url, "--header", "Authorization:${XIVMCP_AUTH}"],
                "env": {"XIVMCP_AUTH": auth},
            }
        }
    }
    return (
        "Claude Desktop starts local servers only, so it reaches XIV MCP through the mcp-remote bridge\n"
        "(needs Node.js). Merge into claude_desktop_config.json (Settings > Developer > Edit Config):\n"
        f"{_json(config)}\nThen quit Claude Desktop fully and start it again."
    )


def _claude_code(url: str, auth: str) -> str:
    config = {"mcpServers": {SERVER_NAME: {"type": "http", "url": url, "headers": {"Authorization": auth}}}}
    return (
        f'claude mcp add --transport http {SERVER_NAME} {url} --header "Authorization: {auth}"\n'
        f"or, for a project, in .mcp.json:\n{_json(config)}\n{NOT_IN_PROJECT.format(files='.mcp.json')}"
    )


def _cursor(url: str, auth: str) -> str:
    config = {"mcpServers": {SERVER_NAME: {"url": url, "headers": {"Authorization": auth}}}}
    return (
        f"In ~/.cursor/mcp.json (or .cursor/mcp.json in a project):\n{_json(config)}\n"
        f"{NOT_IN_PROJECT.format(files='.cursor/mcp.json')}"
    )


def _vscode(url: str, auth: str) -> str:
    config = {"servers": {SERVER_NAME: {"type": "http", "url": url, "headers": {"Authorization": auth}}}}
    return (
        f"In the user mcp.json (MCP: Open User Configuration), or .vscode/mcp.json:\n{_json(config)}\n"
        f"{NOT_IN_PROJECT.format(files='.vscode/mcp.json')}"
    )


def _codex(url: str, auth: str) -> str:
    token = auth.removeprefix("Bearer ")
    return (
        "In ~/.codex/config.toml (Codex reads the token from an environment variable):\n"
        f'[mcp_servers.{SERVER_NAME}]\nurl = "{url}"\nbearer_token_env_var = "{TOKEN_ENV}"\n\n'
        f"and in the shell that starts Codex: export {TOKEN_ENV}={token}"
    )


def _app_data() -> Path:
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


APPS: dict[str, tuple[str, Callable[[str, str], str], Callable[[], list[Path]]]] = {
    "claude-desktop": (
        "Claude Desktop",
        _claude_desktop,
        lambda: [_app_data() / "Claude" / "claude_desktop_config.json"],
    ),
    "claude-code": ("Claude Code", _claude_code, lambda: [Path.home() / ".claude.json", Path(".mcp.json")]),
    "cursor": ("Cursor", _cursor, lambda: [Path.home() / ".cursor" / "mcp.json", Path(".cursor") / "mcp.json"]),
    "vscode": (
        "VS Code",
        _vscode,
        lambda: [Path(".vscode") / "mcp.json", _app_data() / "Code" / "User" / "mcp.json"],
    ),
    "codex": ("Codex", _codex, lambda: [Path.home() / ".codex" / "config.toml", Path(".codex") / "config.toml"]),
}


def configured_in(paths: list[Path], url: str) -> list[Path]:
    """The configuration files among `paths` that already name the endpoint's URL."""
    found = []
    for path in paths:
        try:
            if url in path.read_text(encoding="utf-8", errors="replace"):
                found.append(path)
        except OSError:
            continue
    return found
