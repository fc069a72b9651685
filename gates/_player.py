"""The player's desk: the game's `/xivmcp` window, reached over the `XivMcp.Player` gate.

In the game only the player clicks that window; here only a process that can read the player
key (`DATA_DIR/player.key`, mode 0600, written by the host at start) can use the gate, so a
plugin on the bus cannot enable itself or approve its own calls.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from ._contract import (
    PLAYER_KEY_FILE,
    AdvanceClock,
    AnswerApproval,
    CallTool,
    ConsentPlugin,
    EnablePlugin,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListPlugins,
    ReadAudit,
    SetMode,
    decode_player_command,
    encode_json,
    error_reply,
    exception_reply,
)
from ._host import Host


def write_secret(path: Path, value: str) -> None:
    """Write a secret readable by this user only (0600 from the start, not chmod-ed after)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value)
    if os.name == "posix":
        os.chmod(path, 0o600)


def read_player_key(data_dir: Path) -> str:
    path = data_dir / PLAYER_KEY_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"No player key at {path}: start the host with the same --data-dir (`xivmcp up --data-dir {data_dir}`)."
        ) from None


def player_key(data_dir: Path) -> str:
    """The player key, created on first start."""
    path = data_dir / PLAYER_KEY_FILE
    if path.exists():
        return read_player_key(data_dir)
    key = secrets.token_urlsafe(32)
    write_secret(path, key)
    return key


class PlayerDesk:
    """Handles player commands; every reply is `{"ok": true, …}` or `{"ok": false, "error": "…"}`."""

    def __init__(self, host: Host, task_group: anyio.abc.TaskGroup) -> None:
        self.host = host
        self._key = player_key(host.config.data_dir)
        self._tg = task_group

    async def handle(self, key: str | None, command_json: str | None) -> str:
        if not key or not hmac.compare_digest(key.encode(), self._key.encode()):
            return error_reply(
                "Only the player can use XivMcp.Player: pass the key from player.key in XIV MCP's data dir."
            )
        try:
            return encode_json({"ok": True, **await self._run(command_json or "")})
        except Exception as exc:
            return exception_reply(exc)

    async def _run(self, command_json: str) -> dict[str, Any]:
        host = self.host
        command = decode_player_command(command_json)
        match command:
            case ListPlugins():
                return {"plugins": host.plugins_report()}
            case EnablePlugin(plugin=plugin) | ConsentPlugin(plugin=plugin):
                return {"plugin": plugin, "state": host.enable(plugin).value}
            case KeepDisabled(plugin=plugin):
                return {"plugin": plugin, "state": host.keep_disabled(plugin).value}
            case LiftSuspension(plugin=plugin):
                return {"plugin": plugin, "state": host.lift(plugin).value}
            case SetMode(plugin=plugin, target=target, mode=mode):
                return {"plugin": plugin, "target": target, "mode": host.set_mode(plugin, target, mode)}
            case ListApprovals():
                return {
                    "approvals": [
                        {
                            "approvalId": a.id,
                            "plugin": a.plugin,
                            "tool": a.tool,
                            "capability": a.capability,
                            "summary": a.summary,
                            "secondsLeft": None if a.deadline is None else round(a.deadline - host.clock.now(), 1),
                        }
                        for a in host.approvals.pending()
                    ]
                }
            case AnswerApproval(approval_id=approval_id, answer=answer):
                approval = host.answer(approval_id, answer)
                return {"approvalId": approval.id, "state": approval.state.value}
            case ReadAudit(plugin=plugin, limit=limit):
                return {"entries": [_entry(e) for e in host.audit.tail(limit, plugin)]}
            case CallTool(tool=tool, arguments=arguments):
                outcome = await host.call_tool(tool, arguments)
                if outcome.ok:
                    return {"result": outcome.result}
                return {"isError": True, "error": outcome.error}
            case AdvanceClock(seconds=seconds):
                return {"now": host.advance_clock(seconds)}
        raise AssertionError(f"unhandled player command {command!r}")


def _entry(entry: Any) -> dict[str, Any]:
    return {
        "time": entry.time,
        "kind": entry.kind,
        "plugin": entry.plugin,
        "tool": entry.tool,
        "flagged": entry.flagged,
        "details": entry.details,
    }
