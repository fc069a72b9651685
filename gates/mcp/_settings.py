"""The MCP endpoint's settings: where it listens, and the bearer token AI apps send it (A1, A10).

Light on purpose: no MCP, HTTP or server import here, so the command line (`xivmcp connect`)
can use it without loading the MCP front (`gates.mcp` imports the server only when asked for it).

The token is created on the host's first start as ``DATA_DIR/token`` (mode 0600) and kept
across restarts, so an app configured once keeps working. `xivmcp token rotate` replaces it
(`rotate_mcp_token`), and a running host takes the new one at its next request (`TokenFile`):
a token that got out stops working at once, without a restart that would end every session.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gates.contract import XivMcpError
from gates.datadir import new_secret, read_secret, secret

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "MCP_PATH",
    "TOKEN_FILE",
    "EndpointError",
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
    "taken_message",
]

DEFAULT_HTTP_HOST: Final = "127.0.0.1"
DEFAULT_HTTP_PORT: Final = 37521
MCP_PATH: Final = "/mcp"
TOKEN_FILE: Final = "token"


class EndpointError(XivMcpError):
    """Raised when the MCP endpoint cannot be set up: a bad address, a taken port, a remote bind not asked for."""


@dataclass(frozen=True, slots=True)
class McpSettings:
    """How the host serves AI apps over MCP Streamable HTTP. Only the command line reads the environment."""

    http_host: str = DEFAULT_HTTP_HOST
    http_port: int = DEFAULT_HTTP_PORT
    """Where the endpoint listens; port 0 picks a free one."""
    allow_remote_http: bool = False
    """Allow a non-loopback `http_host` (the endpoint then answers other machines that have the token)."""
    auth_disabled: bool = False
    """TESTS ONLY (MCP conformance runs): serve without the bearer token. Loopback only."""


def parse_http_address(text: str) -> tuple[str, int]:
    """``"127.0.0.1:37521"`` → ``("127.0.0.1", 37521)``; ``"[::1]:8000"`` for IPv6; a bare port is on 127.0.0.1."""
    value = text.strip()
    if value.isdigit():
        host, port_text = DEFAULT_HTTP_HOST, value
    else:
        host, sep, port_text = value.rpartition(":")
        if not sep or not host:
            raise EndpointError(f"{text!r} is not HOST:PORT; pass something like 127.0.0.1:{DEFAULT_HTTP_PORT}.")
        host = host.removeprefix("[").removesuffix("]")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise EndpointError(
            f"{text!r} has no valid port (0 to 65535); pass something like 127.0.0.1:{DEFAULT_HTTP_PORT}."
        )
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    """Whether `host` only reaches this machine (127.0.0.0/8, ::1 or "localhost")."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def address_taken(host: str, port: int) -> str | None:
    """Why the endpoint could not listen at HOST:PORT, in one line that names it, or None if it can.

    `xivmcp up` asks before it starts anything (S5: a host that ran without its endpoint would
    leave AI apps talking to whatever holds the port); the host asks again when it binds."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
        except OSError as exc:
            return taken_message(host, port, exc)
    return None


def taken_message(host: str, port: int, exc: OSError) -> str:
    """What to say when the endpoint cannot bind HOST:PORT."""
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"The MCP endpoint's address {where} is in use (another XIV MCP host? `xivmcp status` shows it): "
            f"stop what holds port {port}, or pass --http 127.0.0.1:0 for a free port, or --no-mcp."
        )
    return f"The MCP endpoint's address {where} cannot be bound ({exc.strerror}); pass --http HOST:PORT."


def check_bind_address(host: str, *, allow_remote: bool, auth_disabled: bool) -> None:
    """Refuse a non-loopback address unless asked for, and serving without the token anywhere but here."""
    if is_loopback(host):
        return
    if auth_disabled:
        raise EndpointError("Serving MCP without the token is for tests on 127.0.0.1 only; drop the --http address.")
    if not allow_remote:
        raise EndpointError(
            f"{host} is not a loopback address: the MCP endpoint would answer other machines. "
            "Bind 127.0.0.1, or pass --allow-remote-http if that is what you want."
        )


def mcp_url(host: str, port: int) -> str:
    """The endpoint's URL, as apps are configured with it."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MCP_PATH}"


def read_mcp_token(data_dir: Path) -> str:
    """The token a host with this data dir requires; FileNotFoundError (with what to do) if it never started."""
    return read_secret(data_dir / TOKEN_FILE, "MCP token")


def mcp_token(data_dir: Path) -> str:
    """The token, created (readable by this user only) on first start and reused after."""
    return secret(data_dir / TOKEN_FILE, "MCP token")


def rotate_mcp_token(data_dir: Path) -> str:
    """A new token in place of the old one; a running host takes it at its next request."""
    return new_secret(data_dir / TOKEN_FILE)


class TokenFile:
    """The token as the endpoint checks it: the file's current value, read again when the file
    changed (one `stat` a request), so `xivmcp token rotate` takes effect at once. A file gone or
    empty leaves the last token in force: the endpoint never opens for want of a token."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / TOKEN_FILE
        self._value = mcp_token(data_dir).encode()
        self._seen = self._stamp()

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def current(self) -> bytes:
        stamp = self._stamp()
        if stamp is not None and stamp != self._seen:
            self._seen = stamp
            try:
                value = self.path.read_text(encoding="utf-8").strip()
            except OSError:
                value = ""
            if value:
                self._value = value.encode()
        return self._value
