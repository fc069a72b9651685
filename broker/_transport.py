"""The ZeroMQ adapter: the only module of the project that imports `zmq`.

Three small classes hide the sockets from the rest of the broker package (a peer sees its two
through `ZMQ`, the default `_transport_base.Connector`):

* `RouterTransport`, the broker's ROUTER socket, driven by a plain synchronous loop (the
  broker has one socket and nothing else to wait for, so asyncio would only add latency). A
  socket monitor tells it when any connection closes (`take_disconnects`); ZeroMQ does not say
  whose, so the broker then probes every peer (`Router.probe`) and a send that fails with
  EHOSTUNREACH names the one that is gone (`UNREACHABLE`). ZMTP heartbeats could not do this:
  without the draft ZMQ_ROUTER_NOTIFY option, which the bundled libzmq lacks, the ROUTER never
  learns which routing identity died;
* `DealerTransport`, a peer's DEALER socket, driven by the running asyncio loop through the
  socket's file descriptor. Sends never block: a full queue is an error the caller sees. Until
  the peer is `settled` (its Welcome came), a socket monitor on the same loop watches the
  handshakes (S4): a broker that refuses one ends the connection before reading a frame, so
  only the monitor can tell why (with, when libzmq gives no detail, the broker's greeting:
  `_handshake`), and the peer raises that at once instead of waiting out its connect_timeout.
  Settled, the monitor is closed: nothing of it is left on the hot path;
* `LivenessBeacon`, a daemon thread of a peer with a DEALER socket of its own (ZeroMQ sockets
  are not thread-safe; the context is), which says Alive every heartbeat and hands each answer
  to a callback. It keeps a process alive at the broker while its event loop is blocked (a sync
  handler in `time.sleep`, CPU-bound Python): the GIL lets the thread run meanwhile (B1).

ZeroMQ's descriptor is edge-triggered: it fires when the socket's state *may* have changed,
and any send or receive can consume that edge. So a reader drains while `ZMQ_EVENTS` says a
message waits, and after sending the peer reads `EVENTS` once more, as pyzmq's own asyncio
integration does. A drain ends on that read rather than on a `zmq.Again` raised and caught:
the exception costs about 2 us more, and came once every loop turn of every process.

A peer sends the first message of a loop turn at once (a caller waits for it: deferring it
would cost a loop iteration of latency) and the turn's others together when the turn ends.
What handling a received frame sends goes as soon as the frame is handled; what the tasks it
woke send goes together once they have run, because a drain handles one frame and schedules
the turn's flush behind them (asyncio runs callbacks in order), and the flush reads on.
Together means one batch frame (`pack`, given by the peer while the broker reads batches),
else one frame each: several messages a ZeroMQ send saves a send, an I/O-thread wake-up and
a receive each in three processes. A queued message that fails to go (the connection dropped
within the turn) fails its waiter (`on_unsent`), so no caller waits for what never left.

Long because it is the one module that may import zmq (STYLE 2, pinned by a test): every
socket of the package, and the hot paths that drive them, live here.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, cast

import zmq
import zmq.auth.thread
import zmq.backend
from zmq.utils.monitor import recv_monitor_message

from ._handshake import HandshakeFailure, from_mechanism, mechanism_at, mismatched, refusal
from ._transport_base import ClientKeys, OnFrame, OnRefused, OnUnsent, Packer, ServerKeys, TransportBusyError

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from ._wire import Frame

_HWM: Final = 100_000
_BROKER_RCVHWM: Final = 1_000
"""Frames the broker's ZeroMQ may hold unread from one connection (S2): past it, TCP holds the
sender back. A peer of this package sends at most 32 messages a frame and 8,192 calls in flight,
so 1,000 frames never stop an honest one; 100,000 let one flooding connection park hundreds of
MB in the broker before it read any."""
# Plain ints: pyzmq's flag enums cost a Python-level `__or__`/`__call__` on every send.
_NOBLOCK: Final = int(zmq.NOBLOCK)
_MORE_NOBLOCK: Final = int(zmq.SNDMORE | zmq.NOBLOCK)
_EVENTS: Final = int(zmq.EVENTS)
_POLLIN: Final = int(zmq.POLLIN)
_POLLOUT: Final = int(zmq.POLLOUT)
_COPY_BELOW: Final = 65536
"""Frames smaller than this are copied into ZeroMQ; bigger ones are lent (zero-copy)."""
_HANDSHAKE_FAILED: Final = int(
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH
)

# pyzmq's Python-level `Socket.send` only adds the draft API's routing_id and group before it
# calls its compiled base class: calling the base directly saves about 0.3 us a send.
_send: Final = cast(
    "Callable[[zmq.Socket[bytes], bytes, int, bool], object]",
    zmq.backend.Socket.send if issubclass(zmq.Socket, zmq.backend.Socket) else zmq.Socket.send,
)
_get: Final = cast("Callable[[zmq.Socket[bytes], int], int]", zmq.Socket.get)
"""`Socket.get` for int options (EVENTS), typed so: the stubs say `int | bytes`."""


def _recv_rest(sock: zmq.Socket[bytes], first: zmq.Frame) -> list[Frame]:
    """`first` and the frames of its message after it. `recv(copy=False)` gives a frame whose
    `more` flag comes with it, where asking `RCVMORE` costs a getsockopt through pyzmq's option
    enum (about 0.6 us), and lends its buffer to the decoder without a copy."""
    frames: list[Frame] = [first]  # type: ignore[list-item]  # zmq.Frame has the buffer protocol
    frame = first
    while frame.more:
        frame = sock.recv(_NOBLOCK, copy=False)
        frames.append(frame)  # type: ignore[arg-type]
    return frames


def _drain_quietly(sock: zmq.Socket[bytes]) -> Iterator[list[Frame]]:
    """Every message queued on `sock`, ending without an exception."""
    while _get(sock, _EVENTS) & _POLLIN:
        yield _recv_rest(sock, sock.recv(_NOBLOCK, copy=False))


def new_keypair() -> tuple[str, str]:
    """A new CURVE key pair (public, secret), Z85-encoded (S4)."""
    public, secret = zmq.curve_keypair()
    return public.decode("ascii"), secret.decode("ascii")


class _Admission:
    """The ZAP handler's question (S4): is this client key one the broker admits?"""

    def __init__(self, curve: ServerKeys) -> None:
        self._curve = curve

    def callback(self, domain: str, key: bytes) -> bool:
        return self._curve.admits(key.decode("ascii"))


def _curve_client(sock: zmq.Socket[bytes], curve: ClientKeys | None) -> None:
    """Make `sock` a CURVE client of the broker `curve.server`, as `curve`'s pair (S4)."""
    if curve is not None:
        sock.curve_serverkey = curve.server.encode("ascii")
        sock.curve_publickey = curve.public.encode("ascii")
        sock.curve_secretkey = curve.secret.encode("ascii")


UNREACHABLE: Final = "its connection is gone"
"""`RouterTransport.send_nowait`'s answer when the identity has no connection (EHOSTUNREACH)."""


class RouterTransport:
    """The broker's ROUTER socket. Not thread-safe: one loop owns it."""

    def __init__(self, endpoint: str, max_frame: int, curve: ServerKeys | None = None) -> None:
        self._ctx = zmq.Context()
        self._auth: zmq.auth.thread.ThreadAuthenticator | None = None
        sock = self._ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        if curve is not None:
            # S4: a ZAP handler in a thread admits the client keys `curve` knows; every other
            # connection fails its handshake, before the broker reads a frame of it.
            self._auth = zmq.auth.thread.ThreadAuthenticator(self._ctx)
            self._auth.start()
            self._auth.configure_curve_callback("*", _Admission(curve))
            sock.curve_server = True
            sock.curve_publickey = curve.public.encode("ascii")
            sock.curve_secretkey = curve.secret.encode("ascii")
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)  # unknown identity: an error, not a silent drop
        sock.setsockopt(zmq.SNDHWM, _HWM)
        sock.setsockopt(zmq.RCVHWM, _BROKER_RCVHWM)
        # A hard ceiling far above the payload limit, which the router checks with a clear
        # error; a frame over this one means a raw client, whose connection ZeroMQ drops.
        sock.setsockopt(zmq.MAXMSGSIZE, max_frame)
        try:
            sock.bind(endpoint)
        except zmq.ZMQError as exc:
            sock.close(0)
            if self._auth is not None:
                self._auth.stop()
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
        self._readable = False
        self._last: zmq.Frame | None = None
        """The first frame of the message `recv_nowait` returned last (for `last_key`)."""
        self.endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds for something to read (or a connection to close)."""
        events = self._poller.poll(max(0, int(timeout * 1000)))
        for polled, _ in events:
            if polled is self._sock:
                self._readable = True
            else:
                self._disconnects += sum(1 for _ in _drain_quietly(self._monitor))
        return bool(events)

    def take_disconnects(self) -> int:
        """How many connections closed since the last call (0 almost always: one int read)."""
        count, self._disconnects = self._disconnects, 0
        return count

    def recv_nowait(self) -> tuple[bytes, list[Frame]] | None:
        """The next message (its sender's identity, its frames), or None if none is queued."""
        sock = self._sock
        if self._readable:
            self._readable = False  # the poll just said so: no need to ask ZeroMQ again
        elif not _get(sock, _EVENTS) & _POLLIN:
            return None
        try:
            identity: bytes = sock.recv(_NOBLOCK)
            self._last = first = sock.recv(_NOBLOCK, copy=False)
            return identity, _recv_rest(sock, first)
        except zmq.Again:  # not expected after EVENTS said so; costs nothing unless raised
            return None

    def last_key(self) -> str | None:
        """The CURVE key (Z85) of the connection that sent the last message received (S4): the
        ZAP handler gave it as the connection's User-Id. None without CURVE."""
        if self._auth is None or self._last is None:
            return None
        try:
            key = self._last.get("User-Id")
        except zmq.ZMQError:
            return None
        return key if isinstance(key, str) else None

    def send_nowait(self, identity: bytes, frame: bytes) -> str | None:
        """Send; on failure return why ("gone" or "too slow") instead of raising."""
        sock = self._sock
        try:
            _send(sock, identity, _MORE_NOBLOCK, True)
            _send(sock, frame, _NOBLOCK, len(frame) < _COPY_BELOW)
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
        if self._auth is not None:
            self._auth.stop()
        self._ctx.term()


class DealerTransport:
    """A peer's DEALER socket on the running asyncio loop.

    `send` sends the turn's first message at once and queues the others for the turn's end (or
    the handled frame's), joined by `pack` when it is set. `on_frame` gets every frame
    received; `on_unsent` the waiters of queued messages that could not be sent after all.
    """

    def __init__(
        self,
        endpoint: str,
        on_frame: Callable[[Buffer], None],
        max_frame: int,
        on_unsent: Callable[[list[asyncio.Future[Any]]], None],
        curve: ClientKeys | None = None,
        on_refused: OnRefused | None = None,
    ) -> None:
        self._on_frame = on_frame
        self._on_unsent = on_unsent
        self._on_refused = on_refused
        self._endpoint = endpoint
        self._curve = curve
        self.pack: Packer | None = None
        """How to join queued messages into batch frames; None: one frame each."""
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        sock = self._ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.IMMEDIATE, 1)  # no connection: sends fail at once, nothing stale queues
        sock.setsockopt(zmq.SNDHWM, _HWM)
        sock.setsockopt(zmq.RCVHWM, _HWM)
        sock.setsockopt(zmq.MAXMSGSIZE, max_frame)
        sock.setsockopt(zmq.RECONNECT_IVL, 100)
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        _curve_client(sock, curve)
        # Watched from before the connection, so its first handshake is seen (S4; until `settled`).
        self._monitor = None if on_refused is None else sock.get_monitor_socket(_HANDSHAKE_FAILED)
        self._monitor_fd = -1 if self._monitor is None else int(self._monitor.getsockopt(zmq.FD))
        self._probe: asyncio.Task[str | None] | None = None
        """The broker's greeting, asked once after a handshake failed without detail (`_handshake`)."""
        sock.connect(endpoint)
        self._sock = sock
        self._fd = int(sock.getsockopt(zmq.FD))
        self._loop = asyncio.get_running_loop()
        self._queue: list[bytes] = []
        self._waiters: list[asyncio.Future[Any] | None] = []
        self._turn = False
        """A message went at once this loop turn; `_flush` is scheduled for the turn's end."""
        self._events = 0
        """ZMQ_EVENTS as the drain last read it."""
        self._unread = False
        """Sent since EVENTS was last read: the descriptor's edge may be gone, so read again."""
        self._draining = False
        self._closed = False
        self._thread_wake: threading.Event | None = None
        try:
            self._loop.add_reader(self._fd, self._drain)
            if self._monitor is not None:
                self._loop.add_reader(self._monitor_fd, self._read_monitor)
        except NotImplementedError:
            # A loop without add_reader (asyncio's Proactor loop on Windows): watch the
            # descriptor from a thread instead. select() only reads the OS handle.
            self._thread_wake = threading.Event()
            threading.Thread(target=self._watch_fd, name="xivmcp-bus-fd", daemon=True).start()
        self._loop.call_soon(self._drain)
        if self._monitor is not None:
            self._loop.call_soon(self._read_monitor)

    def send(self, frame: bytes, waiter: asyncio.Future[Any] | None = None) -> None:
        """Send `frame`; `waiter` hears if it is lost after all (it was queued, then not sent).

        The first message of a loop turn goes at once: someone waits for it, and a send raises
        TransportBusyError if the socket takes no messages (no connection, a full queue). The
        turn's others wait for it to end and go together (`_flush`); so do the messages sent
        while a drain handles a frame, which go when the frame is handled."""
        if self._closed:
            raise TransportBusyError
        if self._draining or self._turn or self._queue:
            if not self._queue and self._draining and not self._events & _POLLOUT:
                raise TransportBusyError  # EVENTS as the drain read it, just now
            self._queue.append(frame)
            self._waiters.append(waiter)
            return
        try:
            _send(self._sock, frame, _NOBLOCK, len(frame) < _COPY_BELOW)
        except zmq.ZMQError:
            raise TransportBusyError from None
        self._unread = True
        self._open_turn()

    def _open_turn(self) -> None:
        """Queue what is sent from now on for `_flush`, which runs after the callbacks already
        scheduled (asyncio runs them in order)."""
        self._turn = True
        self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        """The turn ended: send what it queued, then read what came meanwhile if anything was
        sent (a send may have taken the descriptor's edge)."""
        self._turn = False
        if not self._closed:
            self._send_queued()
            if self._unread:
                self._drain()

    def _send_queued(self) -> None:
        queue, waiters = self._queue, self._waiters
        if not queue:
            return
        self._queue, self._waiters = [], []
        self._unread = True
        sock, pack, start = self._sock, self.pack, 0
        lost: list[asyncio.Future[Any]] = []
        for frame, count in pack(queue) if pack is not None and len(queue) > 1 else ((f, 1) for f in queue):
            try:
                _send(sock, frame, _NOBLOCK, len(frame) < _COPY_BELOW)
            except zmq.ZMQError:
                lost += [waiter for waiter in waiters[start : start + count] if waiter is not None]
            start += count
        if lost:
            self._on_unsent(lost)

    def _drain(self) -> None:
        """Handle the next frame, if one waits, and leave the rest to this turn's flush.

        What the frame woke (the tasks awaiting its results) runs before that flush, so the
        calls they make go out, together, before ZeroMQ is asked whether more is queued: on
        the latency path that question no longer stands between a result and the next call.
        A frame is a batch of what the broker had ready, so one a turn keeps up with it."""
        if self._closed:
            return
        sock = self._sock
        self._events = events = _get(sock, _EVENTS)
        self._unread = False
        if not events & _POLLIN:
            return
        self._draining = True
        try:
            frames = _recv_rest(sock, sock.recv(_NOBLOCK, copy=False))
            self._on_frame(frames[0])  # the bus sends one frame a message; others are ignored
            if self._queue and not self._closed:
                self._send_queued()  # what handling it sent (the replies to its Invokes), at once
        finally:
            self._draining = False
            self._unread = True  # more may be queued, and the edge is spent: the flush looks
            if not self._turn and not self._closed:
                self._open_turn()
            if self._thread_wake is not None:
                self._thread_wake.set()

    def _read_monitor(self) -> None:
        """Read what the monitor saw of the handshakes; tell `on_refused` if the broker refused one
        (libzmq then never tries that connection again), or ask why if it only closed one."""
        monitor, failure = self._monitor, None
        while monitor is not None and failure is None and _get(monitor, _EVENTS) & _POLLIN:
            seen = recv_monitor_message(monitor, _NOBLOCK)
            event, value = seen["event"], seen["value"]
            if event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL and value == zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
                failure = mismatched(self._curve is not None)
            elif event == zmq.EVENT_HANDSHAKE_FAILED_AUTH and value == 400:
                failure = "key refused"
            elif event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL and self._probe is None:
                self._probe = self._loop.create_task(mechanism_at(self._endpoint))
                self._probe.add_done_callback(self._on_mechanism)
        if failure is not None:
            self._refused(failure)

    def _on_mechanism(self, probe: asyncio.Task[str | None]) -> None:
        if not probe.cancelled() and probe.exception() is None and self._monitor is not None:
            failure = from_mechanism(probe.result(), self._curve is not None)
            if failure is not None:
                self._refused(failure)

    def _refused(self, failure: HandshakeFailure) -> None:
        on_refused = self._on_refused
        self.settled()  # said once
        if on_refused is not None:
            on_refused(refusal(failure, self._endpoint, self._curve))

    def settled(self) -> None:
        """The broker answered: close the handshake's monitor (it costs nothing from now on)."""
        monitor, self._monitor = self._monitor, None
        if monitor is None:
            return
        if self._probe is not None:
            self._probe.cancel()
        if self._thread_wake is None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._monitor_fd)
        with contextlib.suppress(zmq.ZMQError):
            self._sock.disable_monitor()  # frees its inproc address, named after the socket's fd
        monitor.close(0)

    def _watch_fd(self) -> None:
        wake = self._thread_wake
        assert wake is not None
        while not self._closed:
            with contextlib.suppress(OSError, ValueError):
                watched = [self._fd] if self._monitor is None else [self._fd, self._monitor_fd]
                readable, _, _ = select.select(watched, [], [], 0.5)
                if readable and not self._closed:
                    wake.clear()
                    self._loop.call_soon_threadsafe(self._read_for_thread)
                    wake.wait(1.0)

    def _read_for_thread(self) -> None:
        """A descriptor the thread watches was readable: read both (which spends their edges, so
        the thread may watch again, even if nothing was there)."""
        if self._monitor is not None:
            self._read_monitor()
        self._drain()
        if self._thread_wake is not None:
            self._thread_wake.set()

    def close(self) -> None:
        """Send what is still queued (a Bye, say), then close the socket."""
        if self._closed:
            return
        with contextlib.suppress(zmq.ZMQError):
            self._send_queued()
        self._closed = True
        self.settled()
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
        on_reply: Callable[[Buffer], None],
        interval: float,
        name: str = "xivmcp-bus-alive",
        curve: ClientKeys | None = None,
    ) -> None:
        self.interval = interval
        """Seconds between two Alive frames; may be changed while running (a float is atomic)."""
        self._endpoint = endpoint
        self._curve = curve
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
            _curve_client(sock, self._curve)
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
        for frames in _drain_quietly(sock):
            if self._stop:
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


class ZmqConnector:
    """The default `Connector` of a peer: a `DealerTransport` and a `LivenessBeacon`, both CURVE
    clients as `curve`'s pair when it is given (S4)."""

    def __init__(self, curve: ClientKeys | None = None) -> None:
        self._curve = curve

    def open(
        self, endpoint: str, on_frame: OnFrame, max_frame: int, on_unsent: OnUnsent, on_refused: OnRefused
    ) -> DealerTransport:
        return DealerTransport(endpoint, on_frame, max_frame, on_unsent, self._curve, on_refused)

    def beacon(
        self, endpoint: str, make_frame: Callable[[], bytes], on_reply: OnFrame, interval: float, name: str
    ) -> LivenessBeacon:
        return LivenessBeacon(endpoint, make_frame, on_reply, interval, name, self._curve)


ZMQ: Final = ZmqConnector()
