"""The broker process: a ROUTER socket, the routing table, and a clock for heartbeats.

`Broker` runs a synchronous loop (`serve_forever`), in the main thread of `xivmcp broker` or in
a background thread (`start_in_thread`, for tests and embedding).

When the transport sees a connection close, the loop probes every peer (`Router.probe`) at once
and twice more, at `PROBE_AGAIN` seconds after: ZeroMQ reports the closed connection a moment
before the ROUTER socket has dropped that identity's pipe, and only then does a send to it fail.

Each turn of the loop reads what is queued (up to `DRAIN_LIMIT` frames) and routes each frame
as it comes, sending what the frame produced before reading the next: a peer of this version
sends a batch frame of all it had ready, so what that causes is a batch already, and it goes
out without waiting for ZeroMQ to say whether more is queued (a getsockopt of 1 to 3 us on
the latency path). What a frame produces is grouped by destination, and a peer that reads
batches (its Hello said so) gets one batch frame rather than a frame a message
(`_wire.batches`). A batch that cannot be sent fails each message it carried, as if each had
been sent alone. While a turn leaves frames unread, the sweep waits (up to a liveness window): a
peer's heartbeat may be among them. The bytes of every frame sent count against its peer's
budget (`Peer.sent`, S2); a peer past it is cut off (`Router.cut_off`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Final

from . import _wire as w
from ._config import BrokerConfig, check_bind_endpoint
from ._keys import NameBindings
from ._router import Outgoing, Router
from ._transport import UNREACHABLE, RouterTransport

log = logging.getLogger("xivmcp.broker")

PROBE_AGAIN: Final = (0.05, 0.25)
"""Seconds after a closed connection at which every peer is probed again."""
DRAIN_LIMIT: Final = 256
"""Frames read in one turn before the turn's sends go out: under a flood, answers still flow."""


class Broker:
    """The bus. Binds on construction; `endpoint` is the address actually bound.

    `xivmcp broker` runs one as a process; a test or a tool may run one in a thread of its own:

        bus = Broker(BrokerConfig(endpoint="tcp://127.0.0.1:0")).start_in_thread()
        async with connect(bus.endpoint, "MyPlugin") as pi: ...
        bus.close()

    Raises `IpcRefusedError` for an endpoint it may not bind (not loopback, without CURVE and
    `allow_remote`), and `OSError` if the address cannot be bound (taken, say).
    """

    def __init__(self, config: BrokerConfig | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config or BrokerConfig()
        check_bind_endpoint(self.config.endpoint, self.config.allow_remote or self.config.curve is not None)
        self.router = Router(self.config)
        self._clock = clock
        self._transport = RouterTransport(self.config.endpoint, self.config.max_payload * 2 + 65536, self.config.curve)
        self.endpoint = self._transport.endpoint
        curve = self.config.curve
        if curve is not None:  # S4: a name is its first key's, across restarts when a file keeps them
            kept = None if curve.names_file is None else NameBindings(curve.names_file)
            self.router.bind_names_to(
                self._transport.last_key,
                bound=() if kept is None else kept.load(),
                on_bound=None if kept is None else _logging_errors(kept.append),
            )
        self._stopping = False
        """Set by `stop()` from any thread; a bool the loop reads each turn (an Event's
        `is_set()` is a Python-level call, once a turn)."""
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        """Route until `stop()` is called (from any thread) or a signal interrupts."""
        transport, router, clock = self._transport, self.router, self._clock
        sweep_every = min(0.25, self.config.heartbeat_interval / 2)
        next_sweep = clock() + sweep_every
        probes: list[float] = []  # when to probe every peer again, soonest first
        behind_since = 0.0  # when the broker last left frames unread at the end of a turn (0: it has not)
        patience = self.config.peer_timeout
        log.info("bus listening on %s", self.endpoint)
        try:
            while not self._stopping:
                wake = next_sweep if not probes else min(next_sweep, probes[0])
                transport.wait(max(0.0, wake - clock()))
                now = clock()
                for _ in range(DRAIN_LIMIT):
                    received = transport.recv_nowait()
                    if received is None:
                        behind_since = 0.0
                        break
                    self._deliver(router.handle(received[0], received[1], now))
                else:
                    behind_since = behind_since or now
                now = clock()
                if transport.take_disconnects():
                    probes = sorted({now, *probes, *(now + after for after in PROBE_AGAIN)})
                if probes and probes[0] <= now:
                    probes = [at for at in probes if at > now]
                    self._deliver(router.probe())
                # Frames left unread may hold a peer's heartbeat: judge nobody silent while the
                # broker itself is behind (S2: a flood must not make it drop honest peers), unless
                # it has been behind for a whole liveness window.
                if now >= next_sweep and (not behind_since or now - behind_since > patience):
                    self._deliver(router.sweep(now))
                    next_sweep = now + sweep_every
        finally:
            self._deliver(router.shutdown())
            transport.close()
            log.info("bus on %s stopped", self.endpoint)

    def _deliver(self, items: list[Outgoing]) -> None:
        send, router = self._transport.send_nowait, self.router
        by_identity = router.by_identity
        while items:
            failed: list[Outgoing] = []
            for identity, group in _by_destination(items):
                peer = by_identity.get(identity)
                if len(group) == 1 or peer is None or not peer.batch:
                    sent: Iterable[tuple[bytes, int]] = ((item.frame, 1) for item in group)
                else:
                    sent = w.batches([item.frame for item in group])
                start = size = 0
                for frame, count in sent:
                    why = send(identity, frame)
                    if why is None:
                        size += len(frame)
                    else:
                        log.debug("undeliverable to %r: %s", identity, why)
                        for item in group[start : start + count]:
                            failed += router.undeliverable(item, why, gone=why == UNREACHABLE)
                    start += count
                if peer is not None:
                    peer.sent += size
                    if peer.sent >= peer.next_mark and by_identity.get(identity) is peer:
                        failed += router.mark(peer)  # sent with the next round
            items = failed

    def stop(self) -> None:
        """Ask the loop to end after its current turn; safe from any thread, it does not wait."""
        self._stopping = True

    def start_in_thread(self) -> Broker:
        """Run `serve_forever` in a daemon thread and return this broker (for tests and embedding)."""
        self._thread = threading.Thread(target=self.serve_forever, name="xivmcp-broker", daemon=True)
        self._thread.start()
        return self

    def join(self, timeout: float | None = None) -> None:
        """Wait up to `timeout` seconds (None: no limit) for the thread of `start_in_thread` to end."""
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        """Stop and wait for the loop (thread mode)."""
        self.stop()
        self.join(5)


def _by_destination(items: list[Outgoing]) -> Iterable[tuple[bytes, list[Outgoing]]]:
    """`items` grouped by identity, each group in the order it was produced."""
    if len(items) == 1:
        return ((items[0].identity, items),)
    groups: dict[bytes, list[Outgoing]] = {}
    for item in items:
        group = groups.get(item.identity)
        if group is None:
            groups[item.identity] = [item]
        else:
            group.append(item)
    return groups.items()


def _logging_errors(keep: Callable[[str, str], None]) -> Callable[[str, str], None]:
    """`keep`, with an OSError logged (the binding holds in memory; the broker goes on)."""

    def keep_or_log(name: str, key: str) -> None:
        try:
            keep(name, key)
        except OSError as exc:
            log.warning("the binding of %r to its key is not kept on disk: %s", name, exc)

    return keep_or_log
