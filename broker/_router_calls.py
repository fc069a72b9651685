"""Calls and messages through the router: admitting a Call, relaying its Reply, broadcasting.

`CallRelay` owns the calls in flight. It checks a Call against the limits (payload size, calls
in flight per process and per process and provider) and the gate table, forwards it to the
provider as an Invoke under a broker-wide call id, and relays the provider's Reply as the
caller's Result. A caller that gives up on a call says Abandon, which frees it here at once
(B6): without that, every cancelled call would hold its place until the provider answered,
perhaps never. A call whose Invoke cannot be delivered, whose provider leaves, or that is still
pending when the broker stops, fails with a Result. A Send from a gate's owner goes to every
subscriber of that gate as a sequenced Message.

The hot path: a Call whose route is cached (`Peer.routes`) and that is within every limit is
checked with a few comparisons and forwarded, its payload as it came (from a large frame, a
`CallView`'s, never decoded); anything else takes `_route`, which refuses it with its reason
or finds and caches the route.
"""

from __future__ import annotations

from typing import Final

from . import _wire as w
from ._config import BrokerConfig, check_gate_name, ownership_error, owns_gate
from ._router_gates import GateRegistry
from ._router_tables import Outbox, Outgoing, Pair, Peer, PeerTable, Pending, Route, err

_NOT_BINARY: Final = (
    "Malformed message frame: the payload must be msgpack binary (bytes) - at `$.payload`. "
    "Use the broker package's client."
)


class CallRelay:
    """Calls from caller to provider and back, and messages to subscribers."""

    def __init__(self, config: BrokerConfig, peers: PeerTable, gates: GateRegistry, out: Outbox) -> None:
        self._config = config
        self._peers = peers
        self._gates = gates
        self._out = out
        self._pending: dict[int, Pending] = {}
        """Calls forwarded and not yet answered, by the broker's call id."""
        self._next_call = 0

    def __len__(self) -> int:
        return len(self._pending)

    # --- a call and its reply --------------------------------------------------------------

    def call(self, peer: Peer, msg: w.Call | w.CallView) -> None:
        config = self._config
        payload = msg.payload
        size = len(payload) if isinstance(payload, bytes) else w.bin_size(payload)
        route = peer.routes.get((msg.gate, msg.kind))
        if (
            route is None
            or size < 0
            or size > config.max_payload
            or len(peer.calls) >= config.max_in_flight
            or route.pair.in_flight >= config.max_in_flight_per_provider
        ):
            route = self._route(peer, msg, size)
            if route is None:
                return
        self._next_call += 1
        call_id = self._next_call
        if peer.calls.setdefault(msg.id, call_id) != call_id:
            self._out.result(
                peer.identity,
                msg.id,
                err("IpcRefusedError", f"Call id {msg.id} is already in flight; number each call anew."),
            )
            return
        provider, pair = route.provider, route.pair
        self._pending[call_id] = Pending(peer, msg.id, provider.name, msg.gate, pair)
        pair.in_flight += 1
        invoke = w.InvokeOut(id=call_id, gate=msg.gate, kind=msg.kind, caller=peer.name, payload=payload)
        self._out.items.append(Outgoing(provider.identity, w.encode(invoke), call_id))

    def reply(self, peer: Peer, msg: w.Reply | w.ReplyView) -> None:
        payload = msg.payload
        size = len(payload) if isinstance(payload, bytes) else w.bin_size(payload)
        if size < 0:
            self._out.notice(peer.identity, "IpcError", _NOT_BINARY)
            return
        pending = self._pending.get(msg.id)
        if pending is None or pending.provider != peer.name:
            return  # the caller left or gave up, or the call already failed: nobody waits for this
        del self._pending[msg.id]
        _finish(pending)
        error = msg.error
        if error is None and size > self._config.max_payload:
            error = err("IpcRefusedError", self._too_big(f"the result of {pending.gate}", size))
            payload = b""
        frame = w.encode(w.ResultOut(id=pending.caller_call_id, error=error, payload=payload))
        self._out.items.append(Outgoing(pending.caller.identity, frame))

    def abandon(self, peer: Peer, msg: w.Abandon) -> None:
        call_id = peer.calls.get(msg.id)
        if call_id is None:
            return  # answered already (the Result crossed the Abandon), or never admitted
        pending = self._pending.pop(call_id, None)
        if pending is not None:
            _finish(pending)

    def _route(self, peer: Peer, msg: w.Call | w.CallView, size: int) -> Route | None:
        """A call off the hot path: refuse it (and return None), or find its route and cache it."""
        if size < 0:
            self._out.notice(peer.identity, "IpcError", _NOT_BINARY)
            return None
        config = self._config
        slot = self._gates.slot(msg.gate, msg.kind)
        if slot is None or size > config.max_payload or len(peer.calls) >= config.max_in_flight:
            self._out.result(peer.identity, msg.id, self._call_problem(peer, msg, size))
            return None
        provider = slot.provider
        pair = peer.to.get(provider)
        if pair is None:
            pair = peer.to[provider] = Pair()
        elif pair.in_flight >= config.max_in_flight_per_provider:
            self._out.result(peer.identity, msg.id, _pair_full(peer, provider, pair))
            return None
        route = peer.routes[(msg.gate, msg.kind)] = Route(self._peers.by_name[provider], pair)
        return route

    def _call_problem(self, peer: Peer, msg: w.Call | w.CallView, size: int) -> w.ErrorInfo:
        if size > self._config.max_payload:
            return err("IpcRefusedError", self._too_big(msg.gate, size))
        if len(peer.calls) >= self._config.max_in_flight:
            return err(
                "IpcRefusedError",
                f"{peer.name} already has {len(peer.calls)} calls in flight, the most the bus allows "
                "per process; wait for some to finish, or cancel the calls it no longer needs "
                "(a cancelled call is freed at once).",
            )
        what = "method" if msg.kind == "func" else "action"
        problem = check_gate_name(msg.gate)
        if problem:
            return err("IpcNotReadyError", problem)
        return err("IpcNotReadyError", f"IPC {what} {msg.gate} was not registered yet.")

    def _too_big(self, what: str, size: int) -> str:
        limit = self._config.max_payload
        return (
            f"The payload for {what} is {size} bytes; the bus carries at most {limit} bytes "
            f"({limit // 1024} KiB). Send less, or start the broker with a larger --max-payload."
        )

    # --- messages --------------------------------------------------------------------------

    def broadcast(self, peer: Peer, msg: w.Send) -> None:
        payload = msg.payload
        problem = check_gate_name(msg.gate)
        if problem is None and not owns_gate(peer.name, msg.gate):
            problem = ownership_error(peer.name, msg.gate).replace("provide", "send messages on")
        if problem is None and len(payload) > self._config.max_payload:
            problem = self._too_big(msg.gate, len(payload))
        if problem:
            self._out.notice(peer.identity, "IpcRefusedError", problem)
            return
        # No subscriber anywhere: a no-op, as in the framework.
        by_name, items = self._peers.by_name, self._out.items
        for name in self._gates.subscribers(msg.gate):
            target = by_name.get(name)
            if target is None:
                continue
            target.seq += 1
            frame = w.encode(w.Message(gate=msg.gate, sender=peer.name, seq=target.seq, payload=payload))
            items.append(Outgoing(target.identity, frame))

    # --- calls that cannot finish ----------------------------------------------------------

    def undeliverable(self, item: Outgoing, why: str) -> None:
        """The Invoke `item` could not be sent to its provider: fail its call."""
        pending = self._pending.pop(item.call_id, None)
        if pending is not None:
            _finish(pending)
            self._out.result(
                pending.caller.identity,
                pending.caller_call_id,
                err("IpcPeerLeftError", f"{pending.provider} could not be reached for {pending.gate}: {why}."),
            )

    def forget_calls_of(self, peer: Peer) -> None:
        """`peer` started a new session and fails its own calls in flight itself: drop them
        here (a late reply to one finds nobody)."""
        for call_id in peer.calls.values():
            pending = self._pending.pop(call_id, None)
            if pending is not None:
                pending.pair.in_flight -= 1
        peer.calls.clear()

    def drop_peer(self, peer: Peer, reason: str) -> None:
        """`peer` left: drop the calls it made, and fail every call it was serving."""
        for call_id in peer.calls.values():
            self._pending.pop(call_id, None)  # its calls' replies will find nobody; drop them then
        peer.calls.clear()
        for call_id, pending in list(self._pending.items()):
            if pending.provider == peer.name:
                del self._pending[call_id]
                _finish(pending)
                self._out.result(
                    pending.caller.identity,
                    pending.caller_call_id,
                    err("IpcPeerLeftError", f"{peer.name} left the bus during the call to {pending.gate} ({reason})."),
                )
        for other in self._peers.by_identity.values():
            other.to.pop(peer.name, None)  # its calls to the peer all failed above

    def shutdown(self) -> None:
        """Fail every pending call: the broker is stopping."""
        pending_calls, self._pending = self._pending, {}
        for pending in pending_calls.values():
            self._out.result(
                pending.caller.identity,
                pending.caller_call_id,
                err("IpcDisconnectedError", f"The broker stopped during the call to {pending.gate}."),
            )


def _finish(pending: Pending) -> None:
    pending.pair.in_flight -= 1
    pending.caller.calls.pop(pending.caller_call_id, None)


def _pair_full(peer: Peer, provider: str, pair: Pair) -> w.ErrorInfo:
    return err(
        "IpcRefusedError",
        f"{peer.name} already has {pair.in_flight} calls in flight to {provider}, the most the "
        f"bus allows from one process to another; {provider} is not answering them (is it hung "
        "or overloaded?). Wait for some to finish, or cancel the calls it no longer needs; "
        "calls to other processes are not affected.",
    )
