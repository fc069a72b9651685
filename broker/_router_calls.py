"""Calls and messages through the router: admitting a Call, relaying its Reply, broadcasting.

`_Calls` checks a Call against the limits (payload size, calls in flight per process) and the
table, forwards it to the provider as an Invoke under a broker-wide call id, and relays the
provider's Reply as the caller's Result. A call whose Invoke cannot be delivered, or that is
still pending when the broker stops, fails with a Result. A Send from a gate's owner goes to
every subscriber of that gate as a sequenced Message.
"""

from __future__ import annotations

from . import _wire as w
from ._config import check_gate_name, ownership_error, owns_gate
from ._router_state import Outgoing, _err, _Peer, _Pending, _RouterState


class _Calls(_RouterState):
    """Calls from caller to provider and back, and messages to subscribers."""

    @property
    def pending_calls(self) -> int:
        return len(self._pending)

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
