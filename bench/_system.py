"""The project's own programs as a bench's children: `xivmcp broker`, `game` and `host`, started as
`xivmcp up` starts them, and the sample plugin RawPlugin, each waited for by the lines it prints
when it is ready (no sleeps).

A bench gets back what it needs to talk to them: the bus endpoint, the host's child (its pid, for
/proc and py-spy) and MCP URL, the bearer token. `profile` runs a program under cProfile
(`_profile.project_command`); `quiet` drops its chatter (`_proc.Child`).
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path

from ._proc import Child, ChildError, Children
from ._profile import project_command

TOKEN_POLL_SECONDS = 0.05
"""Between two reads of the host's token file while waiting for it (a bounded retry loop)."""


def start_broker(
    children: Children,
    timeout: float,
    *extra: str,
    bus: str = "tcp://127.0.0.1:*",
    profile: str | None = None,
    quiet: bool = False,
) -> tuple[Child, str]:
    """`xivmcp broker --bus BUS *extra`; the child and the endpoint it listens on (a free port for
    the default BUS)."""
    child = children.start_command(
        "broker", *project_command(profile, "broker", "xivmcp"), "broker", "--bus", bus, *extra, quiet=quiet
    )
    listening = child.expect_each("xivmcp", ["broker: listening on "], timeout)["broker: listening on "]
    match = re.match(r"(tcp://\S+)", listening)
    if match is None:
        raise ChildError(f"cannot read the broker's endpoint from {listening!r}")
    return child, match.group(1)


def start_game(children: Children, bus: str, timeout: float, *, profile: str | None = None) -> Child:
    """`xivmcp game --bus BUS --test-clock`, once it is ready."""
    game = children.start_command(
        "game", *project_command(profile, "game", "xivmcp"), "game", "--bus", bus, "--test-clock"
    )
    game.expect_each("xivmcp", ["game: ready"], timeout)
    return game


def start_host(
    children: Children,
    bus: str,
    data_dir: Path,
    timeout: float,
    *extra: str,
    profile: str | None = None,
    quiet: bool = False,
) -> tuple[Child, str]:
    """`xivmcp host --bus BUS --data-dir DIR --http 127.0.0.1:0 --auto-enable *extra`, once it is
    ready; the child and its MCP endpoint's URL."""
    host = children.start_command(
        "host",
        *project_command(profile, "host", "xivmcp"),
        *("host", "--bus", bus, "--data-dir", str(data_dir)),
        *("--http", "127.0.0.1:0", "--auto-enable", *extra),
        quiet=quiet,
    )
    # "MCP endpoint http://…/mcp; `xivmcp connect` …" and "ready on tcp://…", in either order.
    lines = host.expect_each("xivmcp", ["host: MCP endpoint ", "host: ready"], timeout)
    return host, lines["host: MCP endpoint "].split(";")[0].split()[0]


def start_raw_plugin(children: Children, bus: str, timeout: float, *, profile: str | None = None) -> Child:
    """`python -m plugins_sample.raw_gates --bus BUS` (RawPlugin), once it has registered its tools."""
    plugin = children.start_command(
        "plugin", *project_command(profile, "plugin", "plugins_sample.raw_gates"), "--bus", bus
    )
    # "RawPlugin: connected to …", then "RawPlugin: registered 3 tools"
    plugin.expect_each("RawPlugin:", ["registered"], timeout)
    return plugin


def wait_for_token(data_dir: Path, timeout: float) -> str:
    """The host's bearer token, once it has written it (a bounded retry loop)."""
    path = data_dir / "token"
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(FileNotFoundError):
            if token := path.read_text(encoding="utf-8").strip():
                return token
        if time.monotonic() >= deadline:
            raise ChildError(f"no token in {path} within {timeout:g} s")
        time.sleep(TOKEN_POLL_SECONDS)
