"""The host's life on the bus: its gates provided and `Ready` said on entry, `Disposing` on the way out (G11).

`host_running` is the host alone (no MCP front): tests run it in-process, and the process
runner (`gates.runner.run_host`) adds the MCP endpoint on top.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from broker import connect
from gates.contract import HOST_NAME, Message

from ._config import HostConfig
from ._desk import PlayerDesk
from ._gate_handlers import announce, provide_gates
from ._host import Host

__all__ = ["host_running"]


@asynccontextmanager
async def host_running(config: HostConfig) -> AsyncIterator[Host]:
    """The host on the bus for the length of the block: its gates provided and `Ready` said on
    entry; `Disposing` said, running calls stopped and the store closed on the way out."""
    async with connect(config.bus, HOST_NAME) as pi, anyio.create_task_group() as tg:
        host = Host(config, pi, tg)
        desk = PlayerDesk(host, tg)
        try:
            provide_gates(pi, host, desk)

            def on_peer(name: str, joined: bool, reason: str) -> None:
                if not joined:
                    desk.caller_left(name)
                    host.plugin_left(name)
                elif host.plugin_came_back(name):
                    announce(pi, Message.READY)  # B3: it registers again, as on the host's own start

            def on_connection(connected: bool) -> None:
                if connected:
                    host.forget_disconnected()
                    announce(pi, Message.READY)

            pi.on_peer_change(on_peer)
            pi.on_connection_change(on_connection)
            announce(pi, Message.READY)
            tg.start_soon(_expire_due, host, config.tick)
            yield host
        finally:
            announce(pi, Message.DISPOSING)
            with anyio.move_on_after(1, shield=True):
                await pi.flush()  # Disposing reaches the broker before this process goes
            host.close()
            tg.cancel_scope.cancel()


async def _expire_due(host: Host, tick: float) -> None:
    """Check deadlines (approval windows, cancelled calls) every `tick` real seconds."""
    while True:
        await anyio.sleep(tick)
        host.expire_due()
