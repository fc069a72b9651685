"""The mirror of the broker's gate table and peer list, kept by every process.

`Mirror` lets `has_function()`, `subscription_count` and `peers` answer without a round trip.
It takes the whole table from a Welcome or a GateTable (and the pages that follow one when the
table is too big for one frame: `GateTable.part`), applies GateChanged, PeerJoined and
PeerLeft events in order, and asks for a fresh table when an event's sequence number (Messages
count too: the broker numbers everything it tells one peer unasked) shows it missed some.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from . import _wire as w
from ._peer_link import Link, log


class Mirror:
    """The gate table and the peers on the bus, as this process last heard them."""

    def __init__(self, link: Link) -> None:
        self._link = link
        self._gates: dict[str, w.GateInfo] = {}
        self._peers: set[str] = set()
        self._seq = 0
        """The sequence number of the broker's last event."""
        self._peer_listeners: list[Callable[[str, bool, str], Any]] = []
        self._table_waiters: list[asyncio.Future[None]] = []

    @property
    def peers(self) -> frozenset[str]:
        return frozenset(self._peers)

    def has_peer(self, name: str) -> bool:
        return name in self._peers

    def gates(self) -> list[w.GateInfo]:
        return sorted(self._gates.values(), key=lambda g: g.name)

    def gate(self, name: str) -> w.GateInfo | None:
        return self._gates.get(name)

    def on_peer_change(self, callback: Callable[[str, bool, str], Any]) -> Callable[[], None]:
        self._peer_listeners.append(callback)
        return lambda: self._peer_listeners.remove(callback)

    async def list_gates(self) -> list[w.GateInfo]:
        """Ask the broker for its gate table (and refresh the mirror)."""
        waiter: asyncio.Future[None] = self._link.loop.create_future()
        self._table_waiters.append(waiter)
        self._link.send(w.encode(w.Snapshot()), waiter)
        await waiter
        return self.gates()

    # --- applying what the broker sends ----------------------------------------------------

    def take_table(self, gates: Iterable[w.GateInfo], peers: Iterable[str], seq: int) -> None:
        """Replace the mirror with a whole table (from a Welcome or a GateTable)."""
        self._gates = {g.name: g for g in gates}
        self._peers = set(peers)
        self._seq = seq

    def on_table(self, msg: w.GateTable) -> None:
        if msg.part:
            self._gates.update((g.name, g) for g in msg.gates)
        else:
            self.take_table(msg.gates, msg.peers, msg.seq)
        if msg.more:
            return  # the rest of the table follows at once; nobody waits for half of it
        waiters, self._table_waiters = self._table_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._link.changed()

    def refused(self, error: Exception) -> None:
        """The broker dropped this process's Snapshot (too many, S2): its waiters fail."""
        waiters, self._table_waiters = self._table_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(error)

    def check_seq(self, seq: int) -> None:
        """The broker's event number `seq` came: ask for the table if some were missed."""
        expected = self._seq + 1
        self._seq = seq
        if seq != expected:
            log.warning("%s: missed %d bus events; asking for the gate table", self._link.name, seq - expected)
            self._link.send_quietly(w.encode(w.Snapshot()))

    def on_gate_changed(self, msg: w.GateChanged) -> None:
        self.check_seq(msg.seq)
        info = msg.gate
        if info.func is None and info.action is None and not info.subscribers:
            self._gates.pop(info.name, None)
        else:
            self._gates[info.name] = info
        self._link.changed()

    def on_peer_joined(self, msg: w.PeerJoined) -> None:
        self.check_seq(msg.seq)
        self._peers.add(msg.name)
        self._tell_peer(msg.name, True, "joined")

    def on_peer_left(self, msg: w.PeerLeft) -> None:
        self.check_seq(msg.seq)
        self._peers.discard(msg.name)
        self._tell_peer(msg.name, False, msg.reason)

    def _tell_peer(self, name: str, joined: bool, reason: str) -> None:
        for callback in list(self._peer_listeners):
            self._link.run_callback(callback, (name, joined, reason), "peer change")
        self._link.changed()
