"""Calls and messages through the router: admitting a Call, relaying its Reply, broadcasting.

`_Calls` checks a Call against the limits (payload size, calls in flight per process and per
process and provider) and the table, forwards it to the provider as an Invoke under a
broker-wide call id, and relays the provider's Reply as the caller's Result. A caller that
gives up on a call says Abandon, which frees it here at once (B6): without that, every
cancelled call would hold its place until the provider answered, perhaps never. A call whose
Invoke cannot be delivered, or that is still pending when the broker stops, fails with a
Result. A Send from a gate's owner goes to every subscriber of that gate as a sequenced Message.

The hot path: a Call whose route is cached (`_Peer.routes`) and that is within every limit is
checked with a few comparisons and forwarded, its payload as it came (from a large frame, a
`CallView`'s, never decoded); anything else takes `_route`, which refuses it with its reason
or finds and caches the route.
"""

from __future__ import annotations

from typing import Final

from . import _wire as w
from ._config import check_gate_name, ownership_error, owns_gate
from ._router_state import Outgoing, _err, _Pair, _Peer, _Pending, _Route, _RouterState

_NOT_BINARY: Final = (
    "Malformed message frame: the payload must be msgpack binary (bytes) - at `$.payload`. "
    "Use the broker package's client."
)


class _Calls(_RouterState):
    """Calls from caller to provider and back, and messages to subscribers."""

    @property
    def pending_calls(self) -> int:
        return len(self._pending)

    def shutdown(self) -> list[Outgoing]:
        """Fail every pending call: the broker is stopping."""
        self._out = []
        for call_id in list(self._pending):
            pending = self._pending.pop(call_id)
            self._result(
                pending.caller.identity,
                pending.caller_call_id,
                _err("IpcDisconnectedError", f"The broker stopped during the call to {pending.gate}."),
            )
        return self._out

    def _undeliverable_invoke(self, item: Outgoing, why: str) -> None:
        pending = self._pending.pop(item.call_id, None)
        if pending is not None:
            self._finish_pending(pending)
            self._result(
                pending.caller.identity,
                pending.caller_call_id,
                _err("IpcPeerLeftError", f"{pending.provider} could not be reached for {pending.gate}: {why}."),
            )

    def _call(self, peer: _Peer, msg: w.Call | w.CallView) -> None:
        config = self.config
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
            self._result(
                peer.identity,
                msg.id,
                _err("IpcRefusedError", f"Call id {msg.id} is already in flight; number each call anew."),
            )
            return
        provider, pair = route.provider, route.pair
        self._pending[call_id] = _Pending(peer, msg.id, provider.name, msg.gate, pair)
        pair.in_flight += 1
        invoke = w.InvokeOut(id=call_id, gate=msg.gate, kind=msg.kind, caller=peer.name, payload=payload)
        self._out.append(Outgoing(provider.identity, w.encode(invoke), call_id))

    def _route(self, peer: _Peer, msg: w.Call | w.CallView, size: int) -> _Route | None:
        """A call off the hot path: refuse it (and return None), or find its route and cache it."""
        if size < 0:
            self._notice(peer.identity, "IpcError", _NOT_BINARY)
            return None
        config = self.config
        gate = self._gates.get(msg.gate)
        slot = None if gate is None else (gate.func if msg.kind == "func" else gate.action)
        if slot is None or size > config.max_payload or len(peer.calls) >= config.max_in_flight:
            self._result(peer.identity, msg.id, self._call_problem(peer, msg, size))
            return None
        provider = slot.provider
        pair = peer.to.get(provider)
        if pair is None:
            pair = peer.to[provider] = _Pair()
        elif pair.in_flight >= config.max_in_flight_per_provider:
            self._result(peer.identity, msg.id, self._pair_full(peer, provider, pair))
            return None
        route = peer.routes[(msg.gate, msg.kind)] = _Route(self._by_name[provider], pair)
        return route

    def _call_problem(self, peer: _Peer, msg: w.Call | w.CallView, size: int) -> w.ErrorInfo:
        if size > self.config.max_payload:
            return _err("IpcRefusedError", self._too_big(msg.gate, size))
        if len(peer.calls) >= self.config.max_in_flight:
            return _err(
                "IpcRefusedError",
                f"{peer.name} already has {len(peer.calls)} calls in flight, the most the bus allows "
                "per process; wait for some to finish, or cancel the calls it no longer needs "
                "(a cancelled call is freed at once).",
            )
        what = "method" if msg.kind == "func" else "action"
        problem = check_gate_name(msg.gate)
        if problem:
            return _err("IpcNotReadyError", problem)
        return _err("IpcNotReadyError", f"IPC {what} {msg.gate} was not registered yet.")

    def _pair_full(self, peer: _Peer, provider: str, pair: _Pair) -> w.ErrorInfo:
        return _err(
            "IpcRefusedError",
            f"{peer.name} already has {pair.in_flight} calls in flight to {provider}, the most the "
            f"bus allows from one process to another; {provider} is not answering them (is it hung "
            "or overloaded?). Wait for some to finish, or cancel the calls it no longer needs; "
            "calls to other processes are not affected.",
        )

    def _reply(self, peer: _Peer, msg: w.Reply | w.ReplyView) -> None:
        payload = msg.payload
        size = len(payload) if isinstance(payload, bytes) else w.bin_size(payload)
        if size < 0:
            self._notice(peer.identity, "IpcError", _NOT_BINARY)
            return
        pending = self._pending.get(msg.id)
        if pending is None or pending.provider != peer.name:
            return  # the caller left or gave up, or the call already failed: nobody waits for this
        del self._pending[msg.id]
        self._finish_pending(pending)
        error = msg.error
        if error is None and size > self.config.max_payload:
            error = _err("IpcRefusedError", self._too_big(f"the result of {pending.gate}", size))
            payload = b""
        frame = w.encode(w.ResultOut(id=pending.caller_call_id, error=error, payload=payload))
        self._out.append(Outgoing(pending.caller.identity, frame))

    def _abandon(self, peer: _Peer, msg: w.Abandon) -> None:
        call_id = peer.calls.get(msg.id)
        if call_id is None:
            return  # answered already (the Result crossed the Abandon), or never admitted
        pending = self._pending.pop(call_id, None)
        if pending is not None:
            self._finish_pending(pending)

    def _finish_pending(self, pending: _Pending) -> None:
        pending.pair.in_flight -= 1
        pending.caller.calls.pop(pending.caller_call_id, None)

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
            self._out.append(Outgoing(target.identity, frame))
