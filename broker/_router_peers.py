"""Peer sessions: who is on the bus, under which name, and handing a name on (B4).

`Sessions` binds a ROUTER identity to an InternalName on Hello (moving a known process to its
new connection, starting a fresh session; at most `max_peers` processes, each incarnation at
most `MAX_INCARNATION` characters, S2), sends the Welcome with the first page of the gate table,
announces joins and departures to every other peer, and removes a peer on Bye or when liveness
(`_router_liveness`) finds it gone. Removing a peer
has the gate registry let go of its gates and subscriptions and the call relay fail the calls
it was serving; the sessions decide when, in what order, and who is told.

A Hello for a name another process holds is not refused at once: the holder may be a process
that just died (killed, its connection not yet seen closing) and the newcomer its restart.
The broker probes the holder and answers the newcomer NameBusy; the newcomer says Hello again
until the name is decided. The holder is alive if the broker hears from it (its beacon's Alive
comes every heartbeat) well after the newcomer first asked: then the newcomer is refused, as two
live processes with one name must be. If the holder is dead, its probe or the sweep removes it
within the liveness window and the newcomer's next Hello gets the name. `Sessions` owns these
contests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Final

from . import _wire as w
from ._config import BrokerConfig, check_incarnation, check_peer_name
from ._router_calls import CallRelay
from ._router_gates import GateRegistry
from ._router_tables import Bucket, Gate, Outbox, Peer, PeerTable

log = logging.getLogger("xivmcp.broker")

MAX_CONTESTS: Final = 1024
"""Newcomers that may wait for held names at once (B7: a raw client inventing incarnations
cannot grow the table without bound; the sweep forgets contests nobody asks about)."""
MAX_BOUND_NAMES: Final = 65536
"""InternalNames the broker keeps bound to a CURVE key (S4): only admitted keys join, and each
name bound costs one entry; past this, the oldest binding is forgotten."""


class Sessions:
    """Hello, Bye, and removing a peer; the names newcomers wait for."""

    def __init__(
        self,
        config: BrokerConfig,
        incarnation: str,
        peers: PeerTable,
        gates: GateRegistry,
        calls: CallRelay,
        out: Outbox,
    ) -> None:
        self._config = config
        self._incarnation = incarnation
        self._peers = peers
        self._gates = gates
        self._calls = calls
        self._out = out
        self._joins = Bucket(config.join_burst, 0.0)
        """Newcomers, all together (S2): each join is announced to every peer."""
        self._contests: dict[tuple[str, str], float] = {}
        """(name, newcomer's incarnation) -> when the newcomer first asked for the held name."""
        self.key_of: Callable[[], str | None] | None = None
        """The CURVE key of the connection whose frame is being handled (S4), when the bus uses
        CURVE (`Broker` sets it from its transport); None: names are bound to no key."""
        self._bound: dict[str, str] = {}
        """InternalName -> the CURVE key that first took it (S4): another key is refused it."""
        self._on_bound: Callable[[str, str], None] | None = None

    @property
    def contested_names(self) -> int:
        return len({name for name, _ in self._contests})

    def bind_names_to(
        self,
        key_of: Callable[[], str | None],
        bound: Iterable[tuple[str, str]] = (),
        on_bound: Callable[[str, str], None] | None = None,
    ) -> None:
        """From now on, bind each InternalName to the key `key_of()` names for the Hello being
        handled (S4: the CURVE key of its connection). `bound` are the bindings an earlier broker
        made, oldest first (`_keys.NameBindings`); `on_bound(name, key)` hears of each new one."""
        self.key_of = key_of
        for name, key in bound:
            self._remember(name, key)
        self._on_bound = on_bound

    def _bind(self, name: str, key: str | None) -> bool:
        """Bind `name` to `key` on first use; whether `key` may have it (S4)."""
        if key is None:
            return True
        bound = self._bound.get(name)
        if bound is None:
            self._remember(name, key)
            if self._on_bound is not None:
                self._on_bound(name, key)
            return True
        return bound == key

    def _remember(self, name: str, key: str) -> None:
        """The table keeps the newest `MAX_BOUND_NAMES` names: a name forgotten past that is bound
        again on next use."""
        self._bound.pop(name, None)
        self._bound[name] = key
        if len(self._bound) > MAX_BOUND_NAMES:
            del self._bound[next(iter(self._bound))]

    def hello(self, identity: bytes, peer: Peer | None, msg: w.Hello, now: float) -> None:
        if msg.protocol != w.PROTOCOL_VERSION:
            self._out.refuse(
                identity,
                f"This broker speaks bus protocol {w.PROTOCOL_VERSION}, the peer {msg.protocol}. "
                "Install the same xivmcp-bus version for both.",
            )
            return
        problem = check_peer_name(msg.name) or check_incarnation(msg.incarnation)
        if problem:
            self._out.refuse(identity, problem)
            return
        if self.key_of is not None and not self._bind(msg.name, self.key_of()):
            self._out.refuse(
                identity,
                f"The name {msg.name!r} is bound to another key on this bus: a plugin keeps its InternalName "
                "on the machine that first used it; choose another name, or join with that machine's key.",
            )
            return
        peers, config = self._peers, self._config
        renamed: Peer | None = None
        holder = peers.by_name.get(msg.name)
        if holder is None and peer is None and len(peers.by_name) >= self._config.max_peers:
            self._out.refuse(
                identity,
                f"{len(peers.by_name)} processes are on the bus, the most this broker allows, so {msg.name!r} "
                "cannot join: stop processes that are no longer needed, or start the broker with a "
                "higher BrokerConfig.max_peers.",
            )
            return
        if holder is None and peer is None and not self._joins.take(now, config.join_rate, config.join_burst):
            retry = min(0.25, config.heartbeat_interval / 2)
            reason = (
                f"More processes are joining the bus than it takes ({config.join_rate:g} a second), so "
                f"{msg.name!r} waits its turn: its client says Hello again every {retry:g} s."
            )
            busy = w.NameBusy(name=msg.name, last_heard=0.0, frees_within=0.0, retry_in=retry, reason=reason)
            self._out.send(identity, busy)
            return
        if holder is not None and holder.identity != identity:
            if holder.incarnation != msg.incarnation:
                self._contest(identity, holder, msg, now)
                return
            peers.move(holder, identity)  # the same process on a new connection
            peer = holder
        elif peer is not None and peer.name != msg.name:
            self.remove(peer, f"{peer.name} reconnected as {msg.name}")
            renamed, peer = peer, None
        if self._contests:
            self._contests.pop((msg.name, msg.incarnation), None)
        joined = peer is None
        changed: list[Gate] = []
        if peer is None:
            peer = Peer(name=msg.name, identity=identity, incarnation=msg.incarnation, last_seen=now)
            if renamed is not None:  # the same connection under a new name keeps its rates (S2)
                peer.control, peer.tables, peer.noticed = renamed.control, renamed.tables, renamed.noticed
            peers.add(peer)
        else:
            changed = self._new_session(peer)
        peer.last_seen = now
        peer.seq = 0
        peer.batch = msg.batch
        peer.sent = peer.read = 0  # a new session: its connection (and what waited on it) may be new
        peer.marks.clear()
        peer.next_mark = config.max_queued_bytes // 4
        pages = self._gates.pages()
        self._out.send(
            identity,
            w.Welcome(
                name=msg.name,
                broker=self._incarnation,
                heartbeat=config.heartbeat_interval,
                timeout=config.peer_timeout,
                max_payload=config.max_payload,
                gates=pages[0],
                peers=tuple(peers.by_name),
                seq=0,
                max_gates=config.max_gates_per_peer,
                max_subscriptions=config.max_subscriptions_per_peer,
                batch=True,
                more=len(pages) > 1,
            ),
        )
        self._gates.send_parts(peer, pages[1:])
        for gate in changed:
            self._gates.announce(gate)
        if joined:
            for other in peers.by_identity.values():
                if other is not peer:
                    other.seq += 1
                    self._out.send(other.identity, w.PeerJoined(name=peer.name, seq=other.seq))

    def _contest(self, identity: bytes, holder: Peer, msg: w.Hello, now: float) -> None:
        """A newcomer asks for `holder`'s name: refuse it if the holder is alive, else make it wait."""
        key = (msg.name, msg.incarnation)
        began = self._contests.get(key)
        silent = now - holder.last_seen
        config = self._config
        # Heard from well after the newcomer asked: a frame the holder sent just before it died
        # may still be read a moment later, so only what comes after a settling time counts.
        settle = min(0.25, config.heartbeat_interval / 2)
        if began is not None and holder.last_seen >= began + settle:
            del self._contests[key]
            self._out.refuse(
                identity,
                f"The InternalName {msg.name!r} is already connected from another process, which is "
                f"alive (last heard {silent:.1f} s ago). Each process needs its own name: start this "
                "one under another InternalName, or stop the other process first.",
            )
            return
        if began is None:
            if len(self._contests) >= MAX_CONTESTS:
                self._out.refuse(
                    identity,
                    f"{len(self._contests)} processes are already waiting for names other processes "
                    f"hold, the most the bus allows; {msg.name!r} cannot wait too. Try again shortly.",
                )
                return
            self._contests[key] = now
            log.info("%s: a new process asks for the name; probing the one that holds it", msg.name)
        self._out.items.append(self._out.probe_of(holder))
        retry = min(0.25, config.heartbeat_interval / 2)
        self._out.send(
            identity,
            w.NameBusy(
                name=msg.name,
                last_heard=silent,
                frees_within=max(0.0, config.peer_timeout - silent),
                retry_in=retry,
            ),
        )

    def forget_contests(self, now: float) -> None:
        """Forget the contests nobody asks about any more: a newcomer that gave up (or got its
        answer) asks no more. Twice the liveness window and a second is past any live contest."""
        if self._contests:
            forget = now - 2 * self._config.peer_timeout - 1.0
            for key in [k for k, began in self._contests.items() if began < forget]:
                del self._contests[key]

    def _new_session(self, peer: Peer) -> list[Gate]:
        """A known process said Hello again. After the Welcome it fails its own calls in flight
        and re-sends every Provide and Subscribe it holds, so forget the old session's calls and
        subscriptions (else they would count twice). Returns the gates whose subscribers changed."""
        self._calls.forget_calls_of(peer)
        return self._gates.drop_subscriptions(peer)

    def remove(self, peer: Peer, reason: str) -> None:
        """`peer` left the bus (Bye, or found gone): free what it held and tell the others."""
        peers = self._peers
        peers.invalidate_routes()  # its slots and the pairs to it go below
        peers.drop(peer)
        changed = self._gates.release(peer)
        self._calls.drop_peer(peer, reason)
        for gate in changed:
            self._gates.announce(gate)
        for other in peers.by_identity.values():
            other.seq += 1
            self._out.send(other.identity, w.PeerLeft(name=peer.name, reason=reason, seq=other.seq))
        log.info("peer left: %s", reason)
