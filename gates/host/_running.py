"""The host's life on the bus: its gates provided and `Ready` said on entry, `Disposing` on the way out (G11).

`host_running` is the host alone (no MCP front): tests run it in-process, and the process
runner (`gates.runner.run_host`) adds the MCP endpoint on top.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from broker import PluginInterface, connect
from gates.contract import HOST_NAME, Message
from gates.datadir import DataDirLock, owner_only_dir

from ._desk import PlayerDesk
from ._gate_handlers import announce, provide_gates
from ._host import Host
from .base._config import HostConfig

__all__ = ["host_running"]


@asynccontextmanager
async def host_running(config: HostConfig) -> AsyncIterator[Host]:
    """The host on the bus for the length of the block: its gates provided and `Ready` said on
    entry; `Disposing` said, running calls stopped and the store closed on the way out."""
    owner_only_dir(config.data_dir)
    lock = DataDirLock(config.data_dir)
    lock.acquire()  # before the bus: a second host on this data dir takes nothing from the first
    try:
        async with _on_the_bus(config) as host:
            yield host
    finally:
        lock.release()


@asynccontextmanager
async def _on_the_bus(config: HostConfig) -> AsyncIterator[Host]:
    async with connect(config.bus, HOST_NAME, curve=config.bus_curve) as pi, anyio.create_task_group() as tg:
        host = Host(config, pi, tg)
        desk = PlayerDesk(host, tg)
        try:
            provide_gates(pi, host, desk)

            def on_peer(name: str, joined: bool, reason: str) -> None:
                if not joined:
                    desk.caller_left(name)
                    host.plugin_left(name)

            def on_connection(connected: bool) -> None:
                if connected:
                    host.forget_disconnected()
                    announce(pi, Message.READY)

            pi.on_peer_change(on_peer)
            pi.on_connection_change(on_connection)
            announce(pi, Message.READY)
            tg.start_soon(_expire_due, host, config.tick)
            tg.start_soon(host.job_store.run)
            host.jobs.start_running(tg)
            tg.start_soon(_ready_for_returning_plugins, host, pi)
            yield host
        finally:
            announce(pi, Message.DISPOSING)
            with anyio.move_on_after(1, shield=True):
                await pi.flush()  # Disposing reaches the broker before this process goes
            host.close()
            tg.cancel_scope.cancel()


async def _ready_for_returning_plugins(host: Host, pi: PluginInterface) -> None:
    """B3: say Ready again when a plugin that left with tools is back and listens for it.

    A raw plugin registers on Ready. Waiting for its subscription to Ready (not only for it to
    join the bus) matters: it subscribes again only after the broker welcomed it back, and a
    Ready sent in between would reach nobody."""
    ready = pi.get_ipc_subscriber(Message.READY)

    def returned() -> list[str]:
        info = pi.gate(ready.name)
        return [] if info is None else [name for name in info.subscribers if host.is_away(name)]

    while True:
        await pi.wait_until(lambda: bool(returned()))
        for name in returned():
            host.plugin_came_back(name)
        announce(pi, Message.READY)


async def _expire_due(host: Host, tick: float) -> None:
    """Check deadlines (approval windows, cancelled calls) every `tick` real seconds."""
    while True:
        await anyio.sleep(tick)
        host.expire_due()
