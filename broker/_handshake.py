"""Why a broker refused a connection in its handshake (S4), in a plugin author's words.

ZeroMQ ends a connection whose handshake fails before the broker reads a frame of it, so the
broker cannot say why. The client's transport (`_transport.DealerTransport`) watches its socket
monitor until the Welcome, names the failure here, and the peer raises the sentence as an
`IpcRefusedError` at once instead of waiting out its connect_timeout. What the client's libzmq
(4.3.5) reports for each failure, checked with the broker on a ZeroMQ context of its own (its own
I/O thread, as in another process):

    "no key"        this process without a key, the bus with CURVE: HANDSHAKE_FAILED_PROTOCOL,
                    ZMTP_MECHANISM_MISMATCH; or HANDSHAKE_FAILED_NO_DETAIL (EPIPE, ECONNRESET)
    "not curve"     this process with a key, the bus without: the same two
    "key refused"   the broker's ZAP handler did not admit the key: HANDSHAKE_FAILED_AUTH, 400
    "other server"  the broker holds another key than the one this process was given (it cannot
                    read the client's hello): HANDSHAKE_FAILED_NO_DETAIL

A mismatched mechanism gives either event: both sides see it at once, and the client's libzmq
names it only if it read the broker's greeting before the broker closed the connection (a
fifth to a third of the tries; libzmq tries again after NO_DETAIL, every 100 ms, and a client was
seen to take twenty tries). So after a NO_DETAIL the transport asks the broker's mechanism itself
(`mechanism_at`): a second connection reads the broker's ZMTP greeting, which names it, and
closes before it names its own, so the broker never judges it. A failure without detail is
named only when the greeting explains it: nothing else at the endpoint (no broker, not ZeroMQ, a
broker gone mid-handshake) is called a refusal.

This module knows neither pyzmq nor the key files: the greeting is ZMTP 3's bytes on a socket.
"""

from __future__ import annotations

import asyncio
import re
from typing import Final, Literal

from ._transport_base import ClientKeys

HandshakeFailure = Literal["no key", "not curve", "key refused", "other server"]

_ENDPOINT: Final = re.compile(r"tcp://(?:\[([0-9A-Fa-f:.]+)\]|([^:;\[\]]+)):(\d+)")
_SIGNATURE: Final = b"\xff\x00\x00\x00\x00\x00\x00\x00\x01\x7f\x03"
"""What a ZMTP 3 peer sends first: its signature and major version. libzmq answers with the rest
of its greeting (64 bytes in all); it reads the peer's mechanism only in the peer's rest."""
_GREETING: Final = 64


def mismatched(curve_given: bool) -> HandshakeFailure:
    """The failure when libzmq says the mechanisms differ."""
    return "not curve" if curve_given else "no key"


def from_mechanism(mechanism: str | None, curve_given: bool) -> HandshakeFailure | None:
    """The failure when a handshake failed without detail and the broker's greeting names
    `mechanism` (None: unknown); None if that does not explain it."""
    if mechanism == "CURVE":
        return "other server" if curve_given else "no key"
    return "not curve" if mechanism == "NULL" and curve_given else None


async def mechanism_at(endpoint: str, within: float = 2.0) -> str | None:
    """The security mechanism ("NULL", "CURVE", …) the ZeroMQ socket at `endpoint` names in its
    greeting; None if there is none to read (not tcp://, nothing listening, not ZMTP 3)."""
    match = _ENDPOINT.fullmatch(endpoint)
    if match is None:
        return None
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(within):
            reader, writer = await asyncio.open_connection(match[1] or match[2], int(match[3]))
            writer.write(_SIGNATURE)
            greeting = await reader.readexactly(_GREETING)
    except (OSError, EOFError, ValueError, OverflowError):  # TimeoutError is an OSError
        return None
    finally:
        if writer is not None:
            writer.close()
    if greeting[0] != 0xFF or greeting[9] & 1 == 0 or greeting[10] < 3:
        return None
    return greeting[12:32].rstrip(b"\x00").decode("ascii", "replace")


def refusal(failure: HandshakeFailure, endpoint: str, curve: ClientKeys | None) -> str:
    """The one-line sentence for `failure` of a client joining `endpoint` with `curve`."""
    public = curve.public if curve is not None else ""
    if failure == "no key":
        return (
            f"The bus at {endpoint} admits only processes holding its CURVE key (S4), and this process "
            "joined without one: pass curve=gates.plugin.bus_keys(bus) to broker.connect (the kit and the "
            "samples do), or run the system with `xivmcp up --no-curve`."
        )
    if failure == "key refused":
        return (
            f"The bus at {endpoint} did not admit this process's CURVE key {public}: it admits this user's "
            "key (the data dir's bus-client.key) and the keys `xivmcp keys allow NAME -- KEY` added; join "
            "with curve=gates.plugin.bus_keys(bus), or on the bus's machine run "
            f"`xivmcp keys allow NAME -- {public}`."
        )
    if failure == "not curve":
        return (
            f"The bus at {endpoint} does not use CURVE, and this process joined with a key: join without one "
            "(curve=None; gates.plugin.bus_keys(bus) gives None for such a bus), or run the system with "
            "CURVE (`xivmcp up` without --no-curve)."
        )
    server = curve.server if curve is not None else ""
    return (
        f"The bus at {endpoint} uses CURVE with another key than {server}, the one this process was given, "
        "so it could not read this process's handshake: take the bus's key again (`xivmcp keys show` on its "
        "machine, then `xivmcp keys new -- KEY` here), or check that the endpoint is that bus's."
    )
