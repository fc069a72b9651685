"""The mirror of the broker's gate table and peer list, kept by every process.

`_Mirror` lets `has_function()`, `subscription_count` and `peers` answer without a round trip.
It takes the whole table from a Welcome or a GateTable, applies GateChanged, PeerJoined and
PeerLeft events in order, and asks for a fresh table when an event's sequence number shows it
missed some.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import anyio.abc

from . import _wire as w
from ._peer_link import _Link, log


class _Mirror(_Link):
    """The gate table and the peers on the bus, as this process last heard them."""

    def __init__(self, endpoint: str, name: str, task_group: anyio.abc.TaskGroup) -> None:
        super().__init__(endpoint, name, task_group)
        self._gates: dict[str, w.GateInfo] = {}
        self._peers: set[str] = set()
        self._peer_listeners: list[Callable[[str, bool, str], Any]] = []
        self._table_waiters: list[asyncio.Future[None]] = []

    @property
    def peers(self) -> frozenset[str]:
        """InternalNames of the processes on the bus right now, this one included."""
        return frozenset(self._peers)

    def gates(self) -> list[w.GateInfo]:
        """The gate table as this process last heard it (no round trip)."""
        return sorted(self._gates.values(), key=lambda g: g.name)

    def gate(self, name: str) -> w.GateInfo | None:
        return self._gates.get(name)

    def on_peer_change(self, callback: Callable[[str, bool, str], Any]) -> Callable[[], None]:
        """Call `callback(name, joined, reason)` when a process joins or leaves the bus.

        Returns a function that removes the callback.
        """
        self._peer_listeners.append(callback)
        return lambda: self._peer_listeners.remove(callback)

    async def wait_peer_gone(self, name: str) -> None:
        await self.wait_until(lambda: name not in self._peers)

    async def list_gates(self) -> list[w.GateInfo]:
        """Ask the broker for its gate table (and refresh the mirror)."""
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._table_waiters.append(waiter)
        self._send(w.encode(w.Snapshot()), waiter)
        await waiter
        return self.gates()

    async def flush(self) -> None:
        """Wait until the broker has processed everything this process sent so far."""
        await self.list_gates()

    # --- applying what the broker sends ----------------------------------------------------

    def _take_table(self, gates: Iterable[w.GateInfo], peers: Iterable[str], seq: int) -> None:
        """Replace the mirror with a whole table (from a Welcome or a GateTable)."""
        self._gates = {g.name: g for g in gates}
        self._peers = set(peers)
        self._conn.seq = seq

    def _on_table(self, msg: w.GateTable) -> None:
        self._take_table(msg.gates, msg.peers, msg.seq)
        waiters, self._table_waiters = self._table_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._changed()

    def _check_seq(self, seq: int) -> None:
        expected = self._conn.seq + 1
        self._conn.seq = seq
        if seq != expected:
            log.warning("%s: missed %d bus events; asking for the gate table", self.name, seq - expected)
            self._send_quietly(w.encode(w.Snapshot()))

    def _set_gate(self, info: w.GateInfo) -> None:
        if info.func is None and info.action is None and not info.subscribers:
            self._gates.pop(info.name, None)
        else:
            self._gates[info.name] = info
        self._changed()

    def _notify_peer(self, name: str, joined: bool, reason: str) -> None:
        for callback in list(self._peer_listeners):
            self._run_callback(callback, (name, joined, reason), "peer change")
        self._changed()
