"""The broker's routing table: pure logic, no sockets.

`Router.handle(identity, frames, now)` takes one message as the ROUTER socket received it and
returns what to send, as `Outgoing` items; `Router.sweep(now)` removes peers that stopped
sending heartbeats. The transport (`_transport.py`) owns the socket; this module never sees
it, so the whole routing logic is tested in memory.

Identities are the ROUTER's routing ids, assigned by ZeroMQ on each connection; they never
leave this module. A Hello binds an identity to an InternalName, and every request a peer
makes afterwards carries that name, whatever its payload says.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

import msgspec

from . import _wire as w
from ._config import BrokerConfig, check_gate_name, check_peer_name, ownership_error, owns_gate

log = logging.getLogger("xivmcp.broker")


@dataclass(slots=True)
class Outgoing:
    identity: bytes
    frames: list[bytes]
    call_id: int = 0
    """Nonzero for an Invoke: if it cannot be delivered, the router fails that call."""


@dataclass(slots=True)
class _Peer:
    name: str
    identity: bytes
    incarnation: str
    last_seen: float
    in_flight: int = 0
    seq: int = 0
    subscriptions: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Gate:
    name: str
    func: w.SlotInfo | None = None
    action: w.SlotInfo | None = None
    subscribers: dict[str, int] = field(default_factory=dict)

    def info(self) -> w.GateInfo:
        return w.GateInfo(
            name=self.name,
            func=self.func,
            action=self.action,
            subscribers=tuple(sorted(self.subscribers)),
            subscriptions=sum(self.subscribers.values()),
        )

    def empty(self) -> bool:
        return self.func is None and self.action is None and not self.subscribers


@dataclass(slots=True)
class _Pending:
    caller: bytes
    caller_call_id: int
    provider: str
    gate: str


def _err(kind: str, message: str) -> w.ErrorInfo:
    return w.ErrorInfo(kind=kind, message=message)


class Router:
    def __init__(self, config: BrokerConfig | None = None) -> None:
        self.config = config or BrokerConfig()
        self.incarnation = uuid.uuid4().hex
        self._by_identity: dict[bytes, _Peer] = {}
        self._by_name: dict[str, _Peer] = {}
        self._gates: dict[str, _Gate] = {}
        self._pending: dict[int, _Pending] = {}
        self._next_call = 0
        self._out: list[Outgoing] = []

    # --- inspection (tests, diagnostics) ---------------------------------------------------

    @property
    def peers(self) -> list[str]:
        return sorted(self._by_name)

    def gate_info(self, name: str) -> w.GateInfo | None:
        gate = self._gates.get(name)
        return gate.info() if gate else None

    @property
    def pending_calls(self) -> int:
        return len(self._pending)

    # --- entry points ----------------------------------------------------------------------

    def handle(self, identity: bytes, frames: list[bytes], now: float) -> list[Outgoing]:
        """Process one received message; never raises."""
        self._out = []
        try:
            self._handle(identity, frames, now)
        except Exception:  # a bug must not take the bus down
            log.exception("internal error while routing a message from %r", identity)
            self._notice(identity, "IpcError", "The broker failed to handle that message; see its log.")
        return self._out

    def sweep(self, now: float) -> list[Outgoing]:
        """Remove peers not heard from within the timeout."""
        self._out = []
        limit = now - self.config.peer_timeout
        for peer in [p for p in self._by_identity.values() if p.last_seen < limit]:
            silent = now - peer.last_seen
            self._remove_peer(peer, f"{peer.name} stopped answering (no heartbeat for {silent:.1f} s)")
        return self._out

    def undeliverable(self, item: Outgoing, why: str) -> list[Outgoing]:
        """The transport could not send `item` (peer gone or too slow)."""
        self._out = []
        pending = self._pending.pop(item.call_id, None) if item.call_id else None
        if pending is not None:
            self._finish_pending(pending)
            self._result(
                pending.caller,
                pending.caller_call_id,
                _err("IpcPeerLeftError", f"{pending.provider} could not be reached for {pending.gate}: {why}."),
            )
        return self._out

    def shutdown(self) -> list[Outgoing]:
        """Fail every pending call: the broker is stopping."""
        self._out = []
        for call_id in list(self._pending):
            pending = self._pending.pop(call_id)
            self._result(
                pending.caller,
                pending.caller_call_id,
                _err("IpcDisconnectedError", f"The broker stopped during the call to {pending.gate}."),
            )
        return self._out

    # --- dispatch --------------------------------------------------------------------------

    def _handle(self, identity: bytes, frames: list[bytes], now: float) -> None:
        if len(frames) != 1:
            self._notice(
                identity,
                "IpcError",
                f"Malformed message: expected one frame (a msgpack message), got {len(frames)} frames.",
            )
            return
        try:
            msg = w.decode_to_broker(frames[0])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            self._notice(identity, "IpcError", f"Malformed message frame: {exc}. Use the broker package's client.")
            return
        peer = self._by_identity.get(identity)
        if isinstance(msg, w.Hello):
            self._hello(identity, peer, msg, now)
            return
        if peer is None:
            # Unknown identity: a peer from before a broker restart, or one we declared dead.
            self._send(identity, w.NeedHello(broker=self.incarnation))
            return
        peer.last_seen = now
        match msg:
            case w.Call():
                self._call(peer, msg, msg.payload)
            case w.Reply():
                self._reply(peer, msg, msg.payload)
            case w.Ping():
                self._send(identity, w.Pong(broker=self.incarnation))
            case w.Send():
                self._broadcast_message(peer, msg, msg.payload)
            case w.Provide():
                self._provide(peer, msg)
            case w.Withdraw():
                self._withdraw(peer, msg)
            case w.Subscribe():
                self._subscribe(peer, msg.gate, +1)
            case w.Unsubscribe():
                self._subscribe(peer, msg.gate, -1)
            case w.Snapshot():
                self._send(identity, self._table(peer))
            case w.Bye():
                self._remove_peer(peer, f"{peer.name} disconnected")

    # --- peers -----------------------------------------------------------------------------

    def _hello(self, identity: bytes, peer: _Peer | None, msg: w.Hello, now: float) -> None:
        if msg.protocol != w.PROTOCOL_VERSION:
            self._refuse(
                identity,
                f"This broker speaks bus protocol {w.PROTOCOL_VERSION}, the peer {msg.protocol}. "
                "Install the same xivmcp-bus version for both.",
            )
            return
        problem = check_peer_name(msg.name)
        if problem:
            self._refuse(identity, problem)
            return
        holder = self._by_name.get(msg.name)
        old_identity = identity
        if holder is not None and holder.identity != identity:
            if holder.incarnation != msg.incarnation:
                self._refuse(
                    identity,
                    f"The InternalName {msg.name!r} is already connected from another process "
                    f"(last heard {now - holder.last_seen:.1f} s ago). Each process needs its own "
                    f"name; if that process died, the bus notices within "
                    f"{self.config.peer_timeout:.0f} s and the name is free again.",
                )
                return
            # The same process on a new connection: move its state to the new identity.
            old_identity = holder.identity
            del self._by_identity[holder.identity]
            holder.identity = identity
            self._by_identity[identity] = holder
            peer = holder
        elif peer is not None and peer.name != msg.name:
            self._remove_peer(peer, f"{peer.name} reconnected as {msg.name}")
            peer = None
        joined = peer is None
        changed: list[_Gate] = []
        if peer is None:
            peer = _Peer(name=msg.name, identity=identity, incarnation=msg.incarnation, last_seen=now)
            self._by_identity[identity] = peer
            self._by_name[msg.name] = peer
        else:
            changed = self._new_session(peer, old_identity)
        peer.last_seen = now
        peer.seq = 0
        self._send(
            identity,
            w.Welcome(
                name=msg.name,
                broker=self.incarnation,
                heartbeat=self.config.heartbeat_interval,
                timeout=self.config.peer_timeout,
                max_payload=self.config.max_payload,
                gates=tuple(g.info() for g in self._gates.values()),
                peers=tuple(self._by_name),
                seq=0,
            ),
        )
        for gate in changed:
            self._gate_changed(gate)
        if joined:
            for other in self._by_identity.values():
                if other is not peer:
                    other.seq += 1
                    self._send(other.identity, w.PeerJoined(name=peer.name, seq=other.seq))

    def _new_session(self, peer: _Peer, old_identity: bytes) -> list[_Gate]:
        """A known process said Hello again. After the Welcome it fails its own calls in flight
        and re-sends every Provide and Subscribe it holds, so forget the old session's calls and
        subscriptions (else they would count twice). Returns the gates whose subscribers changed."""
        for call_id, pending in list(self._pending.items()):
            if pending.caller == old_identity:
                del self._pending[call_id]  # its caller gave up on it; drop the late reply
        peer.in_flight = 0
        changed = [gate for gate in self._gates.values() if gate.subscribers.pop(peer.name, 0)]
        for gate in changed:
            if gate.empty():
                del self._gates[gate.name]  # so the Welcome does not list it
        return changed

    def _remove_peer(self, peer: _Peer, reason: str) -> None:
        self._by_identity.pop(peer.identity, None)
        if self._by_name.get(peer.name) is peer:
            del self._by_name[peer.name]
        changed: list[_Gate] = []
        for gate in self._gates.values():
            touched = False
            if gate.func is not None and gate.func.provider == peer.name:
                gate.func, touched = None, True
            if gate.action is not None and gate.action.provider == peer.name:
                gate.action, touched = None, True
            if gate.subscribers.pop(peer.name, 0):
                touched = True
            if touched:
                changed.append(gate)
        for call_id, pending in list(self._pending.items()):
            if pending.provider == peer.name:
                del self._pending[call_id]
                self._finish_pending(pending)
                self._result(
                    pending.caller,
                    pending.caller_call_id,
                    _err(
                        "IpcPeerLeftError",
                        f"{peer.name} left the bus during the call to {pending.gate} ({reason}).",
                    ),
                )
            elif pending.caller == peer.identity:
                del self._pending[call_id]  # its reply will find nobody; drop it then
        for gate in changed:
            self._gate_changed(gate)
        for other in self._by_identity.values():
            other.seq += 1
            self._send(other.identity, w.PeerLeft(name=peer.name, reason=reason, seq=other.seq))
        log.info("peer left: %s", reason)

    # --- gates -----------------------------------------------------------------------------

    def _gate(self, name: str) -> _Gate:
        gate = self._gates.get(name)
        if gate is None:
            gate = self._gates[name] = _Gate(name)
        return gate

    def _gate_changed(self, gate: _Gate) -> None:
        info = gate.info()
        if gate.empty():
            self._gates.pop(gate.name, None)
        for peer in self._by_identity.values():
            peer.seq += 1
            self._send(peer.identity, w.GateChanged(gate=info, seq=peer.seq))

    def _provide(self, peer: _Peer, msg: w.Provide) -> None:
        problem = check_gate_name(msg.gate)
        if problem is None and not owns_gate(peer.name, msg.gate):
            problem = ownership_error(peer.name, msg.gate)
        if problem is None and len(msg.params) > 8:
            problem = f"{msg.gate} declares {len(msg.params)} parameters; a gate takes 0 to 8."
        if problem:
            self._notice(peer.identity, "IpcRefusedError", problem)
            return
        gate = self._gate(msg.gate)
        slot = w.SlotInfo(provider=peer.name, params=msg.params, returns=msg.returns)
        if msg.kind == "func":
            gate.func = slot
        else:
            gate.action = slot
        self._gate_changed(gate)

    def _withdraw(self, peer: _Peer, msg: w.Withdraw) -> None:
        gate = self._gates.get(msg.gate)
        if gate is None:
            return
        slot = gate.func if msg.kind == "func" else gate.action
        if slot is None or slot.provider != peer.name:
            return
        if msg.kind == "func":
            gate.func = None
        else:
            gate.action = None
        self._gate_changed(gate)

    def _subscribe(self, peer: _Peer, name: str, delta: int) -> None:
        problem = check_gate_name(name)
        if problem:
            self._notice(peer.identity, "IpcRefusedError", problem)
            return
        if delta < 0 and name not in self._gates:
            return
        gate = self._gate(name)
        count = max(0, gate.subscribers.get(peer.name, 0) + delta)
        if count:
            gate.subscribers[peer.name] = count
        else:
            gate.subscribers.pop(peer.name, None)
        self._gate_changed(gate)

    def _table(self, peer: _Peer) -> w.GateTable:
        return w.GateTable(
            gates=tuple(g.info() for g in self._gates.values()),
            peers=tuple(self._by_name),
            seq=peer.seq,
        )

    # --- calls and messages ----------------------------------------------------------------

    def _call(self, peer: _Peer, msg: w.Call, payload: bytes) -> None:
        error = self._call_problem(peer, msg, payload)
        if error is not None:
            self._result(peer.identity, msg.id, error)
            return
        gate = self._gates[msg.gate]
        slot = gate.func if msg.kind == "func" else gate.action
        assert slot is not None
        provider = self._by_name[slot.provider]
        self._next_call += 1
        call_id = self._next_call
        self._pending[call_id] = _Pending(peer.identity, msg.id, provider.name, msg.gate)
        peer.in_flight += 1
        frame = w.encode(w.Invoke(id=call_id, gate=msg.gate, kind=msg.kind, caller=peer.name, payload=payload))
        self._out.append(Outgoing(provider.identity, [frame], call_id))

    def _call_problem(self, peer: _Peer, msg: w.Call, payload: bytes) -> w.ErrorInfo | None:
        if len(payload) > self.config.max_payload:
            return _err("IpcRefusedError", self._too_big(msg.gate, len(payload)))
        if peer.in_flight >= self.config.max_in_flight:
            return _err(
                "IpcRefusedError",
                f"{peer.name} already has {peer.in_flight} calls in flight, the most the bus "
                "allows per process; wait for some to finish.",
            )
        gate = self._gates.get(msg.gate)
        slot = None if gate is None else (gate.func if msg.kind == "func" else gate.action)
        if slot is None:
            what = "method" if msg.kind == "func" else "action"
            problem = check_gate_name(msg.gate)
            if problem:
                return _err("IpcNotReadyError", problem)
            return _err("IpcNotReadyError", f"IPC {what} {msg.gate} was not registered yet.")
        return None

    def _reply(self, peer: _Peer, msg: w.Reply, payload: bytes) -> None:
        pending = self._pending.get(msg.id)
        if pending is None or pending.provider != peer.name:
            return  # the caller left, or the call already failed: nobody waits for this
        del self._pending[msg.id]
        self._finish_pending(pending)
        error = msg.error
        if error is None and len(payload) > self.config.max_payload:
            error = _err("IpcRefusedError", self._too_big(f"the result of {pending.gate}", len(payload)))
            payload = b""
        frame = w.encode(w.Result(id=pending.caller_call_id, error=error, payload=payload))
        self._out.append(Outgoing(pending.caller, [frame]))

    def _finish_pending(self, pending: _Pending) -> None:
        caller = self._by_identity.get(pending.caller)
        if caller is not None and caller.in_flight > 0:
            caller.in_flight -= 1

    def _broadcast_message(self, peer: _Peer, msg: w.Send, payload: bytes) -> None:
        problem = check_gate_name(msg.gate)
        if problem is None and not owns_gate(peer.name, msg.gate):
            problem = ownership_error(peer.name, msg.gate).replace("provide", "send messages on")
        if problem is None and len(payload) > self.config.max_payload:
            problem = self._too_big(msg.gate, len(payload))
        if problem:
            self._notice(peer.identity, "IpcRefusedError", problem)
            return
        gate = self._gates.get(msg.gate)
        if gate is None:
            return  # no subscriber anywhere: a no-op, as in the framework
        for name in gate.subscribers:
            target = self._by_name.get(name)
            if target is None:
                continue
            target.seq += 1
            frame = w.encode(w.Message(gate=msg.gate, sender=peer.name, seq=target.seq, payload=payload))
            self._out.append(Outgoing(target.identity, [frame]))

    # --- output helpers --------------------------------------------------------------------

    def _too_big(self, what: str, size: int) -> str:
        limit = self.config.max_payload
        return (
            f"The payload for {what} is {size} bytes; the bus carries at most {limit} bytes "
            f"({limit // 1024} KiB). Send less, or start the broker with a larger --max-payload."
        )

    def _send(
        self,
        identity: bytes,
        msg: w.Welcome
        | w.Refused
        | w.NeedHello
        | w.Pong
        | w.PeerJoined
        | w.PeerLeft
        | w.GateChanged
        | w.GateTable
        | w.Notice,
    ) -> None:
        self._out.append(Outgoing(identity, [w.encode(msg)]))

    def _result(self, identity: bytes, call_id: int, error: w.ErrorInfo) -> None:
        self._out.append(Outgoing(identity, [w.encode(w.Result(id=call_id, error=error))]))

    def _notice(self, identity: bytes, kind: str, message: str) -> None:
        self._send(identity, w.Notice(error=_err(kind, message)))

    def _refuse(self, identity: bytes, message: str) -> None:
        self._send(identity, w.Refused(error=_err("IpcRefusedError", message)))
