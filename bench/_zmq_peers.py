"""Bare ZeroMQ echo peers: the floor and the proxies that bench.bus measures the bus against.

* floor:         a synchronous pyzmq DEALER client (`zmq-client`) -> a ROUTER echo server;
* proxy:         the same client -> `zmq.proxy(ROUTER, DEALER)` -> a DEALER echo worker;
* proxy_asyncio: the same proxy with `zmq.asyncio` peers (`aio-client`, `aio-worker`), the client
  running as many concurrent tasks as the bus client: what asyncio itself costs.

Each function is a role of `python -m bench.bus --role ROLE`; the clients measure exactly what the
bus client measures (`_stats.window_figures`) and check every echo.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Callable

import zmq

from ._proc import report, run_async
from ._stats import WindowFigures, window_figures

LOOPBACK = "tcp://127.0.0.1:*"
SEQ_BYTES = 8
"""A request's sequence number, little-endian, first in its payload."""
HANDSHAKE_TIMEOUT = 15.0
"""Seconds a client has to get its first answer (ping / gate ready)."""


def _zmq_payload(seq: int, filler: bytes) -> bytes:
    return seq.to_bytes(SEQ_BYTES, "little") + filler


# --- floor and proxy: plain synchronous pyzmq ---------------------------------------------


def role_floor_server(_args: argparse.Namespace) -> None:
    """A ROUTER that echoes every message back to its sender."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(LOOPBACK)
    report("ready", sock.getsockopt_string(zmq.LAST_ENDPOINT))
    recv, send = sock.recv_multipart, sock.send_multipart
    while True:
        send(recv())


def role_proxy(_args: argparse.Namespace) -> None:
    """`zmq.proxy` between a ROUTER for clients and a DEALER for workers."""
    ctx = zmq.Context()
    front = ctx.socket(zmq.ROUTER)
    back = ctx.socket(zmq.DEALER)
    for sock in (front, back):
        sock.setsockopt(zmq.LINGER, 0)
        sock.bind(LOOPBACK)
    report("ready", front.getsockopt_string(zmq.LAST_ENDPOINT), back.getsockopt_string(zmq.LAST_ENDPOINT))
    zmq.proxy(front, back)


def role_proxy_worker(args: argparse.Namespace) -> None:
    """A DEALER on the proxy's backend: it gets [client identity, payload] and sends it back as is,
    so the proxy's ROUTER returns the payload to the client that sent it."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(args.endpoint)
    report("ready")
    recv, send = sock.recv_multipart, sock.send_multipart
    while True:
        send(recv())


def _zmq_handshake(sock: zmq.Socket[bytes], timeout: float) -> None:
    """Ping until the echo comes back; messages queue until the connection is up, so one ping
    normally suffices, and replies are FIFO, so older pings are answered before the newest."""
    deadline = time.monotonic() + timeout
    attempt = 0
    while time.monotonic() < deadline:
        attempt += 1
        token = b"ping-%d" % attempt
        sock.send(token)
        until = min(deadline, time.monotonic() + 1.0)
        while (left := until - time.monotonic()) > 0:
            if not sock.poll(int(left * 1000) + 1, zmq.POLLIN):
                break
            if sock.recv() == token:
                return
    raise TimeoutError(f"no echo within {timeout:g} s")


def role_zmq_client(args: argparse.Namespace) -> None:
    """Sequential round trips, then a pipelined window of `inflight` outstanding requests."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(args.endpoint)
    try:
        _zmq_handshake(sock, HANDSHAKE_TIMEOUT)
        filler = os.urandom(args.payload - SEQ_BYTES)
        send, recv = sock.send, sock.recv
        perf = time.perf_counter_ns
        for i in range(args.warmup):
            msg = _zmq_payload(i, filler)
            send(msg)
            if recv() != msg:
                raise RuntimeError("warm-up: wrong echo")

        latencies: list[int] = []
        for i in range(args.n):
            msg = _zmq_payload(i, filler)
            t0 = perf()
            send(msg)
            reply = recv()
            latencies.append(perf() - t0)
            if reply != msg:
                raise RuntimeError(f"latency: wrong echo for request {i}")

        calls, window = args.calls, min(args.inflight, args.calls)
        outstanding: set[int] = set()
        sent = received = 0
        t0 = perf()
        while sent < window:
            send(_zmq_payload(sent, filler))
            outstanding.add(sent)
            sent += 1
        while received < calls:
            reply = recv()
            seq = int.from_bytes(reply[:SEQ_BYTES], "little")
            if seq not in outstanding or len(reply) != args.payload:
                raise RuntimeError(f"throughput: unexpected reply for request {seq}")
            outstanding.discard(seq)
            received += 1
            if sent < calls:
                send(_zmq_payload(sent, filler))
                outstanding.add(sent)
                sent += 1
        elapsed = (perf() - t0) / 1e9
    finally:
        sock.close(0)
        ctx.term()
    report("result", json.dumps(window_figures(latencies, calls, elapsed, window)))


# --- proxy_asyncio: the proxy with zmq.asyncio peers -------------------------------------------


def role_aio_worker(args: argparse.Namespace) -> None:
    """An asyncio DEALER on the proxy's backend that echoes as `proxy-worker` does."""
    import zmq.asyncio

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(args.endpoint)
        report("ready")
        while True:
            await sock.send_multipart(await sock.recv_multipart())

    run_async(main)


def role_aio_client(args: argparse.Namespace) -> None:
    """`zmq-client`'s measurements from asyncio: sequential awaits, then `inflight` tasks each
    sending a request and awaiting its reply, which one reader task matches by sequence number
    (the shape of the bus client: a future per call, resolved by the socket's reader)."""
    import anyio
    import zmq.asyncio

    figures: list[WindowFigures] = []

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(args.endpoint)
        try:
            with anyio.fail_after(HANDSHAKE_TIMEOUT):
                while True:  # queued until connected, so one ping normally suffices
                    await sock.send(b"ping")
                    if await sock.poll(1000) and await sock.recv() == b"ping":
                        break
            filler = os.urandom(args.payload - SEQ_BYTES)
            perf = time.perf_counter_ns
            latencies: list[int] = []
            for i in range(args.warmup + args.n):
                msg = _zmq_payload(i, filler)
                t0 = perf()
                await sock.send(msg)
                reply = await sock.recv()
                if i >= args.warmup:
                    latencies.append(perf() - t0)
                if reply != msg:
                    raise RuntimeError(f"latency: wrong echo for request {i}")

            calls, window = args.calls, min(args.inflight, args.calls)
            loop = asyncio.get_running_loop()
            waiting: dict[int, asyncio.Future[bytes]] = {}
            sent = 0

            async def reader() -> None:
                for _ in range(calls):
                    reply = await sock.recv()
                    waiting.pop(int.from_bytes(reply[:SEQ_BYTES], "little")).set_result(reply)

            async def worker() -> None:
                nonlocal sent
                while sent < calls:
                    seq, sent = sent, sent + 1
                    future = waiting[seq] = loop.create_future()
                    await sock.send(_zmq_payload(seq, filler))
                    if len(await future) != args.payload:
                        raise RuntimeError(f"throughput: wrong echo for request {seq}")

            t0 = perf()
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                for _ in range(window):
                    tg.start_soon(worker)
            figures.append(window_figures(latencies, calls, (perf() - t0) / 1e9, window))
        finally:
            sock.close(0)
            ctx.term()

    run_async(main)
    report("result", json.dumps(figures[0]))


ZMQ_ROLES: dict[str, Callable[[argparse.Namespace], None]] = {
    "floor-server": role_floor_server,
    "proxy": role_proxy,
    "proxy-worker": role_proxy_worker,
    "zmq-client": role_zmq_client,
    "aio-worker": role_aio_worker,
    "aio-client": role_aio_client,
}
"""The roles of the floor and proxy setups, by the name `--role` gives them."""
