"""The broker process: a ROUTER socket, the routing table, and a clock for heartbeats.

`Broker` runs a synchronous loop (`serve_forever`), in the main thread of `xivmcp broker` or in
a background thread (`start_in_thread`, for tests and embedding).

When the transport sees a connection close, the loop probes every peer (`Router.probe`) at once
and twice more, at `PROBE_AGAIN` seconds after: ZeroMQ reports the closed connection a moment
before the ROUTER socket has dropped that identity's pipe, and only then does a send to it fail.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from ._config import BrokerConfig, check_bind_endpoint
from ._router import Outgoing, Router
from ._transport import UNREACHABLE, RouterTransport

log = logging.getLogger("xivmcp.broker")

PROBE_AGAIN: Final = (0.05, 0.25)
"""Seconds after a closed connection at which every peer is probed again."""


class Broker:
    """The bus. Binds on construction; `endpoint` is the address actually bound."""

    def __init__(self, config: BrokerConfig | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config or BrokerConfig()
        check_bind_endpoint(self.config.endpoint, self.config.allow_remote)
        self.router = Router(self.config)
        self._clock = clock
        self._transport = RouterTransport(self.config.endpoint, self.config.max_payload * 2 + 65536)
        self.endpoint = self._transport.endpoint
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        """Route until `stop()` is called (from any thread) or a signal interrupts."""
        transport, router, clock = self._transport, self.router, self._clock
        sweep_every = min(0.25, self.config.heartbeat_interval / 2)
        next_sweep = clock() + sweep_every
        probes: list[float] = []  # when to probe every peer again, soonest first
        log.info("bus listening on %s", self.endpoint)
        try:
            while not self._stop.is_set():
                wake = next_sweep if not probes else min(next_sweep, probes[0])
                transport.wait(max(0.0, wake - clock()))
                # Read everything queued, then send everything: fewer wake-ups of ZeroMQ's
                # I/O thread than alternating one receive and one send.
                outgoing: list[Outgoing] = []
                now = clock()
                while (received := transport.recv_nowait()) is not None:
                    identity, frames = received
                    outgoing += router.handle(identity, frames, now)
                self._deliver(outgoing)
                now = clock()
                if transport.take_disconnects():
                    probes = sorted({now, *probes, *(now + after for after in PROBE_AGAIN)})
                if probes and probes[0] <= now:
                    probes = [at for at in probes if at > now]
                    self._deliver(router.probe())
                if now >= next_sweep:
                    self._deliver(router.sweep(now))
                    next_sweep = now + sweep_every
        finally:
            self._deliver(router.shutdown())
            transport.close()
            log.info("bus on %s stopped", self.endpoint)

    def _deliver(self, items: list[Outgoing]) -> None:
        while items:
            failed: list[Outgoing] = []
            for item in items:
                why = self._transport.send_nowait(item.identity, item.frames)
                if why is not None:
                    log.debug("undeliverable to %r: %s", item.identity, why)
                    failed.extend(self.router.undeliverable(item, why, gone=why == UNREACHABLE))
            items = failed

    def stop(self) -> None:
        self._stop.set()

    def start_in_thread(self) -> Broker:
        self._thread = threading.Thread(target=self.serve_forever, name="xivmcp-broker", daemon=True)
        self._thread.start()
        return self

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        """Stop and wait for the loop (thread mode)."""
        self.stop()
        self.join(5)
