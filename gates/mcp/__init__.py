"""The MCP front: XIV MCP's tools and caches for AI apps over Streamable HTTP, on the official `mcp` package.

It sits above the host (`gates.host`) and below the process runner (`gates.runner`). The light
part, the endpoint's settings, the token and the URL (`McpSettings`, `mcp_url`, `read_mcp_token`,
...) loads without `mcp`, `uvicorn` or `starlette`, so the command line can use it; the server
itself (`McpEndpoint`, `uvicorn_server` and its bounds, `HttpLimits`) is imported on first use.
"""

from __future__ import annotations

import typing as _typing

from ._apps import APPS, SERVER_NAME, TOKEN_ENV, configured_in
from ._settings import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    MCP_PATH,
    TOKEN_FILE,
    EndpointError,
    McpSettings,
    TokenFile,
    address_taken,
    check_bind_address,
    is_loopback,
    mcp_token,
    mcp_url,
    parse_http_address,
    read_mcp_token,
    rotate_mcp_token,
)

if _typing.TYPE_CHECKING:
    from ._http import HttpLimits, McpEndpoint, uvicorn_server

__all__ = [
    "APPS",
    "SERVER_NAME",
    "TOKEN_ENV",
    "configured_in",
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "MCP_PATH",
    "TOKEN_FILE",
    "EndpointError",
    "HttpLimits",
    "McpEndpoint",
    "McpSettings",
    "TokenFile",
    "address_taken",
    "check_bind_address",
    "is_loopback",
    "mcp_token",
    "mcp_url",
    "parse_http_address",
    "read_mcp_token",
    "rotate_mcp_token",
    "uvicorn_server",
]

_HEAVY = frozenset({"HttpLimits", "McpEndpoint", "uvicorn_server"})


def __getattr__(name: str) -> _typing.Any:
    """The server's names, imported on first use (they load `mcp`, `uvicorn` and `starlette`)."""
    if name in _HEAVY:
        from . import _http

        return getattr(_http, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
