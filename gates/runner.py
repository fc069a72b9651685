"""The process runner: the host on the bus with its MCP front, as `xivmcp host` and `xivmcp up` run it.

    run_host(HostConfig(...), McpSettings(...))     the host, then the endpoint, until cancelled

The MCP front is imported only by a host that serves it, so `run_host(config)` alone loads no
`mcp`, `uvicorn` or `starlette`. Once ready, the host writes `DATA_DIR/runtime.json` (its pid,
bus and MCP URL), which the commands and plugins use to find it, and removes it on the way out.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final

import anyio

from gates.contract import RuntimeInfo, remove_runtime, write_runtime
from gates.host import HostConfig, host_running
from gates.mcp import McpSettings

if TYPE_CHECKING:
    from gates.mcp import McpEndpoint

__all__ = ["run_host"]

READY_TIMEOUT: Final = 10.0
"""How long the broker may take to hold the host's gates before the host gives up starting."""


async def run_host(
    config: HostConfig,
    mcp: McpSettings | None = None,
    *,
    on_ready: Callable[[], None] | None = None,
    on_endpoint: Callable[[str], None] | None = None,
) -> None:
    """Run the host until cancelled: provide the gates, say Ready, and Disposing on the way out.

    With `mcp` it also serves AI apps over MCP Streamable HTTP (`on_endpoint` gets the URL once
    it listens), from before `on_ready` until before the host closes."""
    async with host_running(config) as host, anyio.create_task_group() as tg:
        endpoint: McpEndpoint | None = None
        if mcp is not None:
            from gates.mcp import McpEndpoint  # the server, loaded only by a host that serves it

            endpoint = await McpEndpoint.start(host, mcp, tg)
            if on_endpoint is not None:
                on_endpoint(endpoint.url)
        try:
            with anyio.fail_after(READY_TIMEOUT):
                await host.pi.flush()  # "ready" means the broker holds the host's gates: plugins can call them
            started = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
            runtime = RuntimeInfo(
                pid=os.getpid(),
                bus=host.pi.endpoint,
                mcp=None if endpoint is None else endpoint.url,
                started=started,
                bus_key=None if config.bus_curve is None else config.bus_curve.server,
            )
            write_runtime(config.data_dir, runtime)  # commands, samples and plugins find this system by it
            if on_ready is not None:
                on_ready()
            await anyio.sleep_forever()
        finally:
            remove_runtime(config.data_dir, os.getpid())
            if endpoint is not None:
                with anyio.CancelScope(shield=True):
                    await endpoint.aclose()
