"""The ZeroMQ adapter: the only module of the project that imports `zmq`.

Two small classes hide the sockets from the rest of the broker package:

* `RouterTransport`, the broker's ROUTER socket, driven by a plain synchronous loop (the
  broker has one socket and nothing else to wait for, so asyncio would only add latency);
* `DealerTransport`, a peer's DEALER socket, driven by the running asyncio loop through the
  socket's file descriptor. Sends never block: a full queue is an error the caller sees.

ZeroMQ's descriptor is edge-triggered: it fires when the socket's state *may* have changed,
and any send or receive can consume that edge. So a reader drains until `zmq.Again`, and after
every send the peer checks `EVENTS` once more (coalesced per loop iteration), as pyzmq's own
asyncio integration does.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import threading
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
        self._poller = zmq.Poller()
        self._poller.register(sock, zmq.POLLIN)
        self.endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds for something to read."""
        return bool(self._poller.poll(max(0, int(timeout * 1000))))

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
                return "its connection is gone"
            raise
        return None

    def close(self) -> None:
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
