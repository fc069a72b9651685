"""Frozen configuration of the broker and of a peer, with named defaults.

Only the command line reads the environment; `connect()` reads `XIVMCP_BUS` because that is
part of its documented API.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ._errors import IpcRefusedError

if TYPE_CHECKING:
    from ._keys import CurveServer

DEFAULT_ENDPOINT: Final = "tcp://127.0.0.1:37520"
"""Where the bus listens unless told otherwise: loopback only, on the port XIV MCP's tools expect."""
ENV_BUS: Final = "XIVMCP_BUS"
"""The environment variable naming the bus endpoint: `connect()` reads it when given no endpoint,
so a plugin started by `xivmcp` (or a test harness) finds the bus it was started for."""

HEARTBEAT_INTERVAL: Final = 0.5
"""Seconds between heartbeats, both ways, and between a process's liveness beacons (`Alive`).
Any message counts as one."""
PEER_TIMEOUT: Final = 2.0
"""A peer (or the broker) not heard from for this long is dead (B2: a frozen process is noticed
past this window). A process whose connection closes (killed, exited) is noticed sooner: the
broker probes its identity at once (`Router.probe`)."""
MAX_PAYLOAD: Final = 1024 * 1024
MAX_ARGS: Final = 8
MAX_GATE_NAME: Final = 200
MAX_IN_FLIGHT: Final = 8192
"""Calls one process may have waiting at the broker, to all providers together (B6)."""
MAX_IN_FLIGHT_PER_PROVIDER: Final = 1024
"""Calls one process may have waiting on one provider: a hung provider holds at most this many
of a caller's calls, so the caller's calls to every other process still go through (B6)."""
MAX_GATES_PER_PEER: Final = 512
"""Gates one process may provide (a func, an action or both on one name count once) (B7). The
host's contract has a few dozen gates and a plugin a handful: 512 leaves room for any real
process and keeps one runaway loop from filling the broker's table and every peer's mirror."""
MAX_SUBSCRIPTIONS_PER_PEER: Final = 1024
"""Message subscriptions one process may hold, each `subscribe()` counted (B7)."""
MAX_GATES: Final = 16384
"""Gates on the bus, all processes together (S2): with `MAX_SUBSCRIBERS`, a whole gate table is
some 15 MB at most, well within the bytes a peer may have waiting (`MAX_QUEUED_BYTES`)."""
MAX_SUBSCRIBERS: Final = 65536
"""Subscribers listed in the gate table, all gates together, a process counted once per gate it
subscribes to (S2): each is a name in every table and GateChanged sent."""
MAX_PEERS: Final = 1024
"""Processes on the bus at once (S2): every peer is a row in every table the broker sends, so
their number bounds the size of a gate's subscriber list and of the peer list in a Welcome."""
MAX_BATCH_MESSAGES: Final = 64
"""Messages one received batch frame may carry (S2). A peer of this package joins at most 32
(`_wire.BATCH_MESSAGES`); a frame of 20,000 tiny Snapshots would queue 20,000 whole tables."""
CONTROL_RATE: Final = 1000.0
"""Control messages (Hello, Subscribe, Unsubscribe, Snapshot, Stats) one process may send each
second, on average (S2); calls, replies and messages are not counted, and are bounded otherwise."""
CONTROL_BURST: Final = 4096
"""Control messages one process may send at once: room for restoring every gate and subscription
it may hold right after a Welcome (`MAX_GATES_PER_PEER` twice, `MAX_SUBSCRIPTIONS_PER_PEER`), and
for a test that polls `broker_stats()` for a while."""
TABLE_RATE: Final = 20.0
"""Snapshots (whole gate tables) one process may ask for each second, on average (S2)."""
TABLE_BURST: Final = 64
JOIN_RATE: Final = 200.0
"""New processes the bus welcomes each second, all together (S2): each join is announced to every
peer, so a flood of connections would stall the broker past every peer's liveness window. A
newcomer over the rate is told to say Hello again shortly (`NameBusy.reason`); its client does."""
JOIN_BURST: Final = 200
MAX_SWEEP: Final = 64
"""Silent peers one sweep removes at most (each departure is announced to every peer); the rest
go at the next sweep, a quarter of a heartbeat later."""
MAX_QUEUED_BYTES: Final = 64 * 1024 * 1024
"""Bytes the broker may have sent a process that it has not yet said it read (S2). A process
that falls this far behind (its loop blocked, or it never reads) is disconnected with a reason;
it reconnects by itself once it reads again."""
TABLE_PAGE_BYTES: Final = 64 * 1024
"""A Welcome or gate table carries at most about this many bytes of gates; the rest follows in
pages (`GateTable(part=True)`), so no table is over any peer's frame limit however many gates exist."""
MAX_INCARNATION: Final = 64
"""Characters of a process's incarnation (this package sends 32 hex digits): the name-contest
table keys on it (S2)."""
MAX_TYPE_NAME: Final = 8
"""Characters of a wire type name ("boolean?"): what `TYPE_NAME_RE` allows, and no more."""

GATE_NAME_RE: Final = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*")
"""Matched with `fullmatch`: `match` with `$` would let a trailing newline through."""
PEER_NAME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
TYPE_NAME_RE: Final = re.compile(r"(string|integer|number|boolean|object|array|any)\??")
"""A parameter or return type on the wire (`_signature.json_type_name`), matched with `fullmatch`."""


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """How a `Broker` binds and what it bounds: every limit with its named default.

    Each field defaults to the module constant of the same name in capitals (`max_payload` to
    `MAX_PAYLOAD`, one MiB), chosen so that a real plugin never meets them and a runaway one cannot
    stall the bus for the others. Change them for tests and benchmarks, not for a plugin's sake:

        Broker(BrokerConfig(endpoint="tcp://127.0.0.1:0", max_payload=4096))

    `endpoint` is where to bind (port 0: a free port, read back from `Broker.endpoint`);
    `heartbeat_interval` and `peer_timeout` are seconds; the rates are per second, and each burst
    is what may come at once.
    """

    endpoint: str = DEFAULT_ENDPOINT
    heartbeat_interval: float = HEARTBEAT_INTERVAL
    peer_timeout: float = PEER_TIMEOUT
    max_payload: int = MAX_PAYLOAD
    max_in_flight: int = MAX_IN_FLIGHT
    max_in_flight_per_provider: int = MAX_IN_FLIGHT_PER_PROVIDER
    max_gates_per_peer: int = MAX_GATES_PER_PEER
    max_subscriptions_per_peer: int = MAX_SUBSCRIPTIONS_PER_PEER
    max_peers: int = MAX_PEERS
    max_gates: int = MAX_GATES
    max_subscribers: int = MAX_SUBSCRIBERS
    max_batch_messages: int = MAX_BATCH_MESSAGES
    control_rate: float = CONTROL_RATE
    control_burst: int = CONTROL_BURST
    table_rate: float = TABLE_RATE
    table_burst: int = TABLE_BURST
    max_queued_bytes: int = MAX_QUEUED_BYTES
    join_rate: float = JOIN_RATE
    join_burst: int = JOIN_BURST
    table_page_bytes: int = TABLE_PAGE_BYTES
    allow_remote: bool = False
    """Bind a non-loopback address without CURVE. Off by default: such a bus has no authentication."""
    curve: CurveServer | None = None
    """CURVE keys (S4): only clients whose key it admits join, and a non-loopback address may be
    bound. None (the default): every local connection joins, as before."""


def check_bind_endpoint(endpoint: str, allow_remote: bool = False) -> None:
    """Refuse to bind anything but loopback or ipc:// unless explicitly allowed (or CURVE is on)."""
    scheme, sep, rest = endpoint.partition("://")
    if not sep:
        raise IpcRefusedError(f"{endpoint!r} is not a ZeroMQ endpoint; use tcp://127.0.0.1:PORT or ipc://PATH.")
    if scheme in ("ipc", "inproc"):
        return
    if scheme != "tcp":
        raise IpcRefusedError(f"The bus binds tcp:// or ipc:// endpoints, not {scheme}://.")
    host = rest.rsplit(":", 1)[0].strip("[]")
    if host == "localhost" or _is_loopback(host) or allow_remote:
        return
    raise IpcRefusedError(
        f"Refusing to bind {endpoint}: a bus without CURVE keys has no authentication, so it binds "
        "loopback (tcp://127.0.0.1:PORT) or ipc:// only. Run it with its keys (`xivmcp up` without "
        "--no-curve, `xivmcp broker --curve`) so that only machines holding a key you admit join it "
        "(`xivmcp keys`)."
    )


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_gate_name(name: str) -> str | None:
    """Return why `name` is not a valid gate name, or None."""
    if not name:
        return "A gate name may not be empty."
    if len(name) > MAX_GATE_NAME:
        return f"The gate name {name[:40]!r}… is {len(name)} characters; the bus allows {MAX_GATE_NAME}."
    if not GATE_NAME_RE.fullmatch(name):
        return (
            f"The gate name {name!r} has characters the bus does not carry: use letters, digits "
            "and '_' in dot-separated parts, such as 'MyPlugin.XivMcp.Invoke'."
        )
    return None


def check_peer_name(name: str) -> str | None:
    """Return why `name` is not a valid InternalName, or None."""
    if not PEER_NAME_RE.fullmatch(name):
        return (
            f"{name!r} is not a valid InternalName: use 1-64 letters, digits or '_', "
            "starting with a letter, such as 'MyPlugin'."
        )
    return None


def check_signature(gate: str, params: tuple[str, ...], returns: str | None) -> str | None:
    """Return why a gate's declared parameter and return types are not ones the bus carries, or None."""
    if len(params) > MAX_ARGS:
        return f"{gate} declares {len(params)} parameters; a gate takes 0 to {MAX_ARGS}."
    for what, name in [*((f"parameter {i}", p) for i, p in enumerate(params)), ("return type", returns)]:
        if name is not None and (len(name) > MAX_TYPE_NAME or not TYPE_NAME_RE.fullmatch(name)):
            shown = repr(name) if len(name) <= 40 else f"{name[:40]!r}… ({len(name)} characters)"
            return (
                f"The {what} of {gate} is declared as {shown}, which is not a type the bus carries: "
                "use string, integer, number, boolean, object, array or any, each with an optional '?'."
            )
    return None


def check_incarnation(incarnation: str) -> str | None:
    """Return why `incarnation` is not one the bus keeps, or None."""
    if not 0 < len(incarnation) <= MAX_INCARNATION:
        return (
            f"The incarnation of this process is {len(incarnation)} characters, but the bus takes 1 to "
            f"{MAX_INCARNATION}: connect with the broker package's client, which sends 32 hex digits."
        )
    return None


def owns_gate(peer: str, gate: str) -> bool:
    return gate.startswith(peer + ".")


def ownership_error(peer: str, gate: str) -> str:
    return (
        f"{peer} may not provide {gate!r}: a process provides only gates named "
        f"'{peer}.…' (its InternalName and a dot), such as '{peer}.XivMcp.Invoke'."
    )
