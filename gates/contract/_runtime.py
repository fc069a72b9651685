"""Where a running system is: the runtime file the host keeps in its data dir.

    DATA_DIR/runtime.json   {"pid": 4242, "bus": "tcp://127.0.0.1:37520",
                             "mcp": "http://127.0.0.1:37521/mcp", "started": "2026-12-01T10:00:00Z",
                             "bus_key": "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"}

The host writes it once it is ready and removes it on the way out; a file whose process is gone
(the host was killed) is stale and read as no file. Every command, the samples and the plugin
kit find the bus and the MCP endpoint here when nothing else says where (an explicit option or
`XIVMCP_BUS` / `XIVMCP_HTTP` win), so a system started on other ports is found without retyping
them. It holds no secret: the data dir is the user's own (0700) anyway; `bus_key` is the bus's
public CURVE key, which says the bus admits only known client keys (S4).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import sys
from pathlib import Path
from typing import Final

import msgspec
import platformdirs

__all__ = [
    "DEFAULT_BUS",
    "ENV_BUS",
    "ENV_DATA_DIR",
    "ENV_HTTP",
    "RUNTIME_FILE",
    "RuntimeInfo",
    "bus_is_local",
    "default_data_dir",
    "find_bus",
    "pid_alive",
    "read_runtime",
    "remove_runtime",
    "write_runtime",
]

RUNTIME_FILE: Final = "runtime.json"
ENV_BUS: Final = "XIVMCP_BUS"
ENV_HTTP: Final = "XIVMCP_HTTP"
ENV_DATA_DIR: Final = "XIVMCP_DATA_DIR"
DEFAULT_BUS: Final = "tcp://127.0.0.1:37520"
"""The bus of `xivmcp up` when nothing else is said (the same as `broker.DEFAULT_ENDPOINT`)."""


class RuntimeInfo(msgspec.Struct, kw_only=True, frozen=True):
    pid: int
    """The host's process id."""
    bus: str
    """The bus endpoint the host is connected to."""
    mcp: str | None = None
    """The MCP endpoint's URL, if the host serves one."""
    started: str = ""
    """When the host became ready (ISO 8601, UTC)."""
    bus_key: str | None = None
    """The broker's CURVE public key (Z85) when the bus admits only known keys (S4): a process of
    this user then joins with the data dir's client key (`bus-client.key`); None: no CURVE."""


_decode: Final = msgspec.json.Decoder(RuntimeInfo).decode
_encode: Final = msgspec.json.Encoder().encode


def default_data_dir() -> Path:
    """`$XIVMCP_DATA_DIR`, else the user's data directory as the platform has it
    (~/.local/share/xivmcp, ~/Library/Application Support/xivmcp, %LOCALAPPDATA%\\xivmcp)."""
    explicit = os.environ.get(ENV_DATA_DIR)
    if explicit:
        return Path(explicit)
    return Path(platformdirs.user_data_dir("xivmcp", appauthor=False))


def find_bus(bus: str | None = None, data_dir: Path | None = None) -> str:
    """Where to connect, first found: `bus`; the running host of `data_dir` when one is named
    (an explicit data dir says which system); `$XIVMCP_BUS`; the running host of the default
    data dir; the default endpoint."""
    if bus:
        return bus
    if data_dir is not None and (named := read_runtime(data_dir)) is not None:
        return named.bus
    explicit = os.environ.get(ENV_BUS)
    if explicit:
        return explicit
    running = read_runtime(default_data_dir()) if data_dir is None else None
    return running.bus if running is not None else DEFAULT_BUS


def bus_is_local(bus: str) -> bool:
    """Whether `bus` is an endpoint of this machine only (loopback tcp://, ipc://, inproc://): one
    that other machines cannot reach, so that a bus elsewhere asks for CURVE keys (S4)."""
    scheme, _, rest = bus.partition("://")
    if scheme != "tcp":
        return True
    host = rest.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs (on Windows without signalling it, which would kill it)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, as another user's
    return True


def _windows_pid_alive(pid: int) -> bool:  # pragma: no cover - Windows only
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        return bool(ok) and code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def read_runtime(data_dir: Path) -> RuntimeInfo | None:
    """The running host of `data_dir`, or None: no file, one that does not decode, or a stale one."""
    try:
        info = _decode((data_dir / RUNTIME_FILE).read_bytes())
    except (OSError, msgspec.DecodeError):
        return None
    return info if pid_alive(info.pid) else None


def write_runtime(data_dir: Path, info: RuntimeInfo) -> None:
    """Write the file whole (a reader never sees half of it): a temporary file, then a rename."""
    target = data_dir / RUNTIME_FILE
    temporary = target.with_name(f".{RUNTIME_FILE}.{os.getpid()}")
    temporary.write_bytes(_encode(info))
    os.replace(temporary, target)


def remove_runtime(data_dir: Path, pid: int) -> None:
    """Remove the file if it is still this process's (a newer host may have written its own)."""
    path = data_dir / RUNTIME_FILE
    with contextlib.suppress(OSError, msgspec.DecodeError):
        if _decode(path.read_bytes()).pid == pid:
            path.unlink()
