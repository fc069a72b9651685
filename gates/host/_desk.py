"""The player's desk: the game's `/xivmcp` window, reached over the `XivMcp.Player` gate.

In the game only the player clicks that window; here only a process that can read the player
key (`DATA_DIR/player.key`, mode 0600, written by the host at start) can use the gate, so a
plugin on the bus cannot enable itself or approve its own calls. The key is proven by challenge
and response (`_player_auth.py`), never sent.

`call` stands in for an AI app: when the process that sent it leaves the bus before the answer
(killed, or gave up), the call is abandoned as an app giving up would: the plugin gets Cancel
and two minutes to stop (an approval it was waiting for is withdrawn). `approvals` can wait a
little for one to be asked (`xivmcp approvals --wait SECONDS`), so scripts need not poll.
"""

from __future__ import annotations

from typing import Any, Final

import anyio
import anyio.abc

from broker import current_caller
from gates.contract import RefusedError, encode_json, error_reply, exception_reply, ok_reply

from ._audit import AuditEntry
from ._clock import SystemClock
from ._host import Host
from ._player_auth import Challenges, PlayerHelloReply, decode_player_auth, host_proof
from ._player_protocol import (
    PLAYER_KEY_FILE,
    AdvanceClock,
    AnswerApproval,
    CallTool,
    ConsentPlugin,
    EnablePlugin,
    HostStats,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListPlugins,
    ReadAudit,
    SetMode,
    decode_player_command,
)
from ._secrets import secret

MAX_NONCE: Final = 128
"""The longest client nonce `XivMcp.PlayerHello` takes."""
MAX_WAIT: Final = 60.0
"""The longest a player command waits for something to happen (`approvals --wait`), in seconds."""


class PlayerDesk:
    """Handles player commands; every reply is `{"ok": true, …}` or `{"ok": false, "error": "…"}`."""

    def __init__(self, host: Host, task_group: anyio.abc.TaskGroup) -> None:
        self.host = host
        self._key = secret(host.config.data_dir / PLAYER_KEY_FILE, "player key")
        self._challenges = Challenges(SystemClock())  # real time: a nonce's lifetime is no test's business
        self._tg = task_group
        self._running: dict[str, set[anyio.CancelScope]] = {}
        """The commands under way, by the InternalName of the process that sent them."""
        self._approval_asked = anyio.Event()
        host.approvals.on_request(lambda _: self._approval_asked.set())

    def hello(self, client_nonce: str | None) -> str:
        """`XivMcp.PlayerHello`: prove this host knows the key, and hand out a nonce for one command."""
        if not client_nonce or len(client_nonce) > MAX_NONCE:
            return error_reply(
                f"XivMcp.PlayerHello takes a random nonce of 1 to {MAX_NONCE} characters "
                "(the xivmcp commands send one)."
            )
        reply = PlayerHelloReply(nonce=self._challenges.issue(), proof=host_proof(self._key, client_nonce))
        return ok_reply(reply)

    async def handle(self, auth_json: str | None, command_json: str | None) -> str:
        command_json = command_json or ""
        try:
            auth = decode_player_auth(auth_json or "")
        except RefusedError:
            auth = None
        if auth is None or not self._challenges.redeem(self._key, auth, command_json):
            return error_reply(
                "Only the player can use XivMcp.Player: ask XivMcp.PlayerHello for a nonce and prove the key "
                "from player.key in XIV MCP's data dir (the xivmcp commands do this; the key itself is never sent)."
            )
        caller = current_caller()
        with anyio.CancelScope() as scope:
            self._running.setdefault(caller, set()).add(scope)
            try:
                return encode_json({"ok": True, **await self._run(command_json)})
            except Exception as exc:
                return exception_reply(exc)
            finally:
                scopes = self._running.get(caller, set())
                scopes.discard(scope)
                if not scopes:
                    self._running.pop(caller, None)
        # Cancelled by `caller_left`: nobody is there to read a reply.
        return error_reply(f"{caller} left the bus; the command was abandoned.")

    def caller_left(self, name: str) -> None:
        """The process `name` left the bus: give up what it asked for, as an app that gives up on a
        call (a direct call is cancelled: its plugin gets Cancel and two minutes to stop)."""
        for scope in self._running.pop(name, set()):
            scope.cancel()

    async def _wait_for_approval(self, seconds: float) -> None:
        """Wait (in real time, at most `seconds`) until an approval waits for the player."""
        with anyio.move_on_after(min(max(seconds, 0.0), MAX_WAIT)):
            while not self.host.approvals.pending():
                if self._approval_asked.is_set():
                    self._approval_asked = anyio.Event()
                await self._approval_asked.wait()

    async def _run(self, command_json: str) -> dict[str, Any]:
        host = self.host
        command = decode_player_command(command_json)
        match command:
            case ListPlugins():
                return {"plugins": host.reports.cards()}
            case EnablePlugin(plugin=plugin, digest=digest) | ConsentPlugin(plugin=plugin, digest=digest):
                return {"plugin": plugin, "state": host.player.enable(plugin, digest).value}
            case KeepDisabled(plugin=plugin):
                return {"plugin": plugin, "state": host.player.keep_disabled(plugin).value}
            case LiftSuspension(plugin=plugin):
                return {"plugin": plugin, "state": host.player.lift(plugin).value}
            case SetMode(plugin=plugin, target=target, mode=mode):
                return {"plugin": plugin, "target": target, "mode": host.player.set_mode(plugin, target, mode)}
            case ListApprovals(wait=wait):
                if wait > 0:
                    await self._wait_for_approval(wait)
                return {
                    "approvals": [
                        {
                            "approvalId": a.id,
                            "plugin": a.plugin,
                            "tool": a.tool,
                            "kind": a.kind.value,
                            "capabilities": list(a.capabilities),
                            "summary": a.summary,
                            "secondsLeft": None if a.deadline is None else round(a.deadline - host.clock.now(), 1),
                        }
                        for a in host.approvals.pending()
                    ]
                }
            case AnswerApproval(approval_id=approval_id, answer=answer):
                approval = host.player.answer(approval_id, answer)
                return {"approvalId": approval.id, "state": approval.state.value}
            case ReadAudit(plugin=plugin, limit=limit):
                return {"entries": [_entry(e) for e in host.audit.tail(limit, plugin)]}
            case CallTool(tool=tool, arguments=arguments):
                outcome = await host.call_tool(tool, arguments)
                if outcome.ok:
                    return {"result": outcome.result}
                return {"isError": True, "error": outcome.error}
            case HostStats():
                return {"calls": host.calls.running, "approvals": len(host.approvals.pending())}
            case AdvanceClock(seconds=seconds):
                return {"now": host.player.advance_clock(seconds)}
        raise AssertionError(f"unhandled player command {command!r}")


def _entry(entry: AuditEntry) -> dict[str, Any]:
    """Every field, defaults included: the player's `audit` shows each line whole."""
    return {
        "time": entry.time,
        "kind": entry.kind,
        "plugin": entry.plugin,
        "tool": entry.tool,
        "flagged": entry.flagged,
        "details": entry.details,
    }
