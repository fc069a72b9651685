"""The ZeroMQ adapter: the only module of the project that imports `zmq`.

Three small classes hide the sockets from the rest of the broker package:

* `RouterTransport`, the broker's ROUTER socket, driven by a plain synchronous loop (the
  broker has one socket and nothing else to wait for, so asyncio would only add latency). A
  socket monitor tells it when any connection closes (`take_disconnects`); ZeroMQ does not say
  whose, so the broker then probes every peer (`Router.probe`) and a send that fails with
  EHOSTUNREACH names the one that is gone (`UNREACHABLE`). ZMTP heartbeats could not do this:
  without the draft ZMQ_ROUTER_NOTIFY option, which the bundled libzmq lacks, the ROUTER never
  learns which routing identity died;
* `DealerTransport`, a peer's DEALER socket, driven by the running asyncio loop through the
  socket's file descriptor. Sends never block: a full queue is an error the caller sees;
* `LivenessBeacon`, a daemon thread of a peer with a DEALER socket of its own (ZeroMQ sockets
  are not thread-safe; the context is), which says Alive every heartbeat and hands each answer
  to a callback. It keeps a process alive at the broker while its event loop is blocked (a sync
  handler in `time.sleep`, CPU-bound Python): the GIL lets the thread run meanwhile (B1).

ZeroMQ's descriptor is edge-triggered: it fires when the socket's state *may* have changed,
and any send or receive can consume that edge. So a reader drains until `zmq.Again`, and after
every send the peer checks `EVENTS` once more (coalesced per loop iteration), as pyzmq's own
asyncio integration does.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Final

import zmq

_HWM: Final = 100_000
# Plain ints: pyzmq's flag enums cost a Python-level `__or__`/`__call__` on every send.
_NOBLOCK: Final = int(zmq.NOBLOCK)
_MORE_NOBLOCK: Final = int(zmq.SNDMORE | zmq.NOBLOCK)
_RCVMORE: Final = int(zmq.RCVMORE)
_EVENTS: Final = int(zmq.EVENTS)
_POLLIN: Final = int(zmq.POLLIN)


def _send_frames(sock: zmq.Socket[bytes], frames: list[bytes]) -> None:
    """`send_multipart` without its per-call checks and enum arithmetic (the hot path)."""
    last = len(frames) - 1
    for index, frame in enumerate(frames):
        sock.send(frame, _NOBLOCK if index == last else _MORE_NOBLOCK, copy=len(frame) < 65536)


def _recv_frames(sock: zmq.Socket[bytes]) -> list[bytes]:
    frames = [sock.recv(_NOBLOCK)]
    while sock.getsockopt(_RCVMORE):
        frames.append(sock.recv(_NOBLOCK))
    return frames


UNREACHABLE: Final = "its connection is gone"
"""`RouterTransport.send_nowait`'s answer when the identity has no connection (EHOSTUNREACH)."""


class TransportBusyError(Exception):
    """A send could not be queued: no connection, or the peer is not keeping up."""


class RouterTransport:
    """The broker's ROUTER socket. Not thread-safe: one loop owns it."""

    def __init__(self, endpoint: str, max_frame: int) -> None:
        self._ctx = zmq.Context()
        sock = self._ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)  # unknown identity: an error, not a silent drop
        sock.setsockopt(zmq.SNDHWM, _HWM)
        sock.setsockopt(zmq.RCVHWM, _HWM)
        # A hard ceiling far above the payload limit, which the router checks with a clear
        # error; a frame over this one means a raw client, whose connection ZeroMQ drops.
        sock.setsockopt(zmq.MAXMSGSIZE, max_frame)
        try:
            sock.bind(endpoint)
        except zmq.ZMQError as exc:
            sock.close(0)
            self._ctx.term()
            raise OSError(f"Cannot bind the bus to {endpoint}: {exc}.") from exc
        self._sock = sock
        # zmq_socket_monitor is stable API: an inproc PAIR socket that gets one event per
        # connection of the ROUTER that closes (a peer killed, exited, or its beacon stopped).
        self._monitor: zmq.Socket[bytes] = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        self._monitor.setsockopt(zmq.LINGER, 0)
        self._poller = zmq.Poller()
        self._poller.register(sock, zmq.POLLIN)
        self._poller.register(self._monitor, zmq.POLLIN)
        self._disconnects = 0
        self.endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds for something to read (or a connection to close)."""
        events = self._poller.poll(max(0, int(timeout * 1000)))
        if len(events) > 1 or (events and events[0][0] is self._monitor):
            self._drain_monitor()
        return bool(events)

    def _drain_monitor(self) -> None:
        while True:
            try:
                _recv_frames(self._monitor)
            except zmq.Again:
                return
            self._disconnects += 1

    def take_disconnects(self) -> int:
        """How many connections closed since the last call (0 almost always: one int read)."""
        count, self._disconnects = self._disconnects, 0
        return count

    def recv_nowait(self) -> tuple[bytes, list[bytes]] | None:
        try:
            frames = _recv_frames(self._sock)
        except zmq.Again:
            return None
        return frames[0], frames[1:]

    def send_nowait(self, identity: bytes, frames: list[bytes]) -> str | None:
        """Send; on failure return why ("gone" or "too slow") instead of raising."""
        try:
            self._sock.send(identity, _MORE_NOBLOCK)
            _send_frames(self._sock, frames)
        except zmq.Again:
            return "its queue is full (the process is too slow or hung)"
        except zmq.ZMQError as exc:
            if exc.errno == zmq.EHOSTUNREACH:
                return UNREACHABLE
            raise
        return None

    def close(self) -> None:
        with contextlib.suppress(zmq.ZMQError):
            self._sock.disable_monitor()
        self._monitor.close(0)
        self._sock.close(0)
        self._ctx.term()


class DealerTransport:
    """A peer's DEALER socket on the running asyncio loop."""

    def __init__(self, endpoint: str, on_frames: Callable[[list[bytes]], None], max_frame: int) -> None:
        self._on_frames = on_frames
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        sock = self._ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.IMMEDIATE, 1)  # no connection: sends fail at once, nothing stale queues
        sock.setsockopt(zmq.SNDHWM, _HWM)
        sock.setsockopt(zmq.RCVHWM, _HWM)
        sock.setsockopt(zmq.MAXMSGSIZE, max_frame)
        sock.setsockopt(zmq.RECONNECT_IVL, 100)
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        sock.connect(endpoint)
        self._sock = sock
        self._fd = int(sock.getsockopt(zmq.FD))
        self._loop = asyncio.get_running_loop()
        self._check_scheduled = False
        self._draining = False
        self._closed = False
        self._thread_wake: threading.Event | None = None
        try:
            self._loop.add_reader(self._fd, self._drain)
        except NotImplementedError:
            # A loop without add_reader (asyncio's Proactor loop on Windows): watch the
            # descriptor from a thread instead. select() only reads the OS handle.
            self._thread_wake = threading.Event()
            threading.Thread(target=self._watch_fd, name="xivmcp-bus-fd", daemon=True).start()
        self._schedule_check()

    def send(self, frames: list[bytes]) -> None:
        try:
            _send_frames(self._sock, frames)
        except zmq.Again:
            raise TransportBusyError from None
        finally:
            if not self._draining:  # the drain loop reads until Again anyway
                self._schedule_check()

    def _schedule_check(self) -> None:
        if not self._check_scheduled and not self._closed:
            self._check_scheduled = True
            self._loop.call_soon(self._check)

    def _check(self) -> None:
        self._check_scheduled = False
        if not self._closed and int(self._sock.getsockopt(_EVENTS)) & _POLLIN:
            self._drain()

    def _drain(self) -> None:
        sock = self._sock
        on_frames = self._on_frames
        self._draining = True
        try:
            while not self._closed:
                try:
                    frames = _recv_frames(sock)
                except zmq.Again:
                    break
                on_frames(frames)
        finally:
            self._draining = False
        if self._thread_wake is not None:
            self._thread_wake.set()

    def _watch_fd(self) -> None:
        wake = self._thread_wake
        assert wake is not None
        while not self._closed:
            with contextlib.suppress(OSError, ValueError):
                readable, _, _ = select.select([self._fd], [], [], 0.5)
                if readable and not self._closed:
                    wake.clear()
                    self._loop.call_soon_threadsafe(self._drain)
                    wake.wait(1.0)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._thread_wake is None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._fd)
        else:
            self._thread_wake.set()
        self._sock.close(0)


class LivenessBeacon:
    """A daemon thread that sends `make_frame()` to the broker every `interval` seconds on a
    DEALER socket of its own, and passes every frame the broker answers to `on_reply`, in the
    thread (so `on_reply` must only set plain attributes or hand over thread-safely).

    The socket is created, used and closed by the thread alone; `close()` wakes it through a
    socket pair, so closing a peer does not wait out an interval.
    """

    def __init__(
        self,
        endpoint: str,
        make_frame: Callable[[], bytes],
        on_reply: Callable[[bytes], None],
        interval: float,
        name: str = "xivmcp-bus-alive",
    ) -> None:
        self.interval = interval
        """Seconds between two Alive frames; may be changed while running (a float is atomic)."""
        self._endpoint = endpoint
        self._make_frame = make_frame
        self._on_reply = on_reply
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sock = self._ctx.socket(zmq.DEALER)
        try:
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.IMMEDIATE, 1)  # not connected: drop the Alive, queue nothing stale
            sock.setsockopt(zmq.SNDHWM, 16)
            sock.setsockopt(zmq.RECONNECT_IVL, 100)
            sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
            sock.connect(self._endpoint)
            poller = zmq.Poller()
            poller.register(sock, zmq.POLLIN)
            poller.register(self._wake_r, zmq.POLLIN)
            next_send = time.monotonic()
            while not self._stop:
                now = time.monotonic()
                if now >= next_send:
                    with contextlib.suppress(zmq.Again):
                        sock.send(self._make_frame(), _NOBLOCK)
                    next_send = now + self.interval
                for polled, _ in poller.poll(max(0, int((next_send - now) * 1000)) + 1):
                    if polled is sock:
                        self._read(sock)
        except zmq.ZMQError:
            pass  # the context was terminated under us: the process is exiting
        finally:
            sock.close(0)
            self._wake_r.close()

    def _read(self, sock: zmq.Socket[bytes]) -> None:
        while not self._stop:
            try:
                frames = _recv_frames(sock)
            except zmq.Again:
                return
            try:
                self._on_reply(frames[0])
            except Exception:  # a bug in the callback must not stop the beacon
                continue

    def close(self) -> None:
        """Stop the thread and close its socket (waits a moment for it)."""
        if self._stop:
            return
        self._stop = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        if self._thread is not threading.current_thread():
            self._thread.join(2.0)
        self._wake_w.close()
