"""`Player`: the player's decisions from Python, one method per `xivmcp` player command (K3).

    player = Player.over(pi, data_dir)                 # on your own bus connection, in your own loop
    await player.enable("MyPlugin")                    # xivmcp enable MyPlugin
    await player.mode("MyPlugin", "spend_gil", "ask")  # xivmcp mode MyPlugin spend_gil ask
    approval = await player.wait_approval("myplugin_restock")
    await player.approve(approval.approval_id, session=True)   # xivmcp approve ID --session

The names and arguments are the command line's (`keep-disabled` is `keep_disabled`, `job pause ID`
is `pause_job(ID)`), and so is the way: every command goes to the host's `XivMcp.Player` gate
through `gates.player.PlayerClient`, which proves the player key of the data dir. A refusal raises
`PlayerError` with the host's message; a tool's own error is not a refusal (`CallReply.error`).
Each command is bounded in time (`within`), so a test never hangs on a host that stopped answering.
In the pytest plugin, `async_player` is this class and `player` its blocking twin (`SyncPlayer`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import msgspec

from broker import PluginInterface
from game import GameClient, GameError
from gates.contract import JobInfo
from gates.host import AuditEntry, PluginCard, PluginsReport
from gates.player import PlayerClient

from ._link import DIRECT, Link, bounded
from ._player_results import (
    ApprovalAnswer,
    CallReply,
    ClockAdvanced,
    HostReset,
    JobControlled,
    JobSummary,
    PendingApproval,
    PlayerError,
    PluginDecision,
)

__all__ = ["AUDIT_WINDOW", "WAIT", "Player"]

WAIT: Final = 10.0
"""Seconds one command may take by default (a loaded 2-core CI machine answers slowly)."""
AUDIT_WINDOW: Final = 1000
"""Audit lines `audit` reads to find where the current test began (the host's last reset)."""


class Player:
    """The player at the /xivmcp window, as a test drives it: every command of `xivmcp`, awaited."""

    def __init__(
        self, client: PlayerClient, game: GameClient | None = None, *, link: Link = DIRECT, within: float = WAIT
    ) -> None:
        """`client` sends the commands; `game` moves the game's test clock with the host's; `link`
        says on which loop they run (see `_link`); `within` bounds each command (seconds)."""
        self._client = client
        self._game = game
        self._link = link
        self.within = within

    @classmethod
    def over(cls, pi: PluginInterface, data_dir: Path, *, within: float = WAIT) -> Player:
        """The player over your own bus connection `pi`, with the key of the host's `data_dir`."""
        return cls(PlayerClient.for_data_dir(pi, data_dir), GameClient.as_player(pi, data_dir), within=within)

    async def _send(self, cmd: str, *, answer_within: float | None = None, **fields: Any) -> dict[str, Any]:
        """One command with its `fields` (which may have any name but `answer_within`, the bound)."""
        reply = await self._run(cmd, answer_within, lambda: self._client.command(cmd, **fields))
        return _ok(cmd, reply)

    async def _run(self, cmd: str, answer_within: float | None, work: Callable[[], Awaitable[dict[str, Any]]]) -> Any:
        limit = self.within if answer_within is None else answer_within
        return await self._link.run(lambda: bounded(limit, f"XIV MCP's answer to the player's `{cmd}`", work()))

    # --- plugins -----------------------------------------------------------------------------

    async def plugins(self) -> PluginsReport:
        """`xivmcp plugins`: every plugin XIV MCP knows, its state, tools and capability modes."""
        return msgspec.convert(await self._send("plugins"), PluginsReport)

    async def plugin(self, name: str) -> PluginCard:
        """One plugin's card from `plugins`; PlayerError if XIV MCP does not know it."""
        cards = msgspec.convert(await self._send("plugins", plugin=name), PluginsReport).plugins
        if not cards:
            known = ", ".join(card.name for card in (await self.plugins()).plugins) or "none yet"
            raise PlayerError(
                "plugins", f"XIV MCP knows no plugin named {name!r} (known: {known}); has it registered yet?"
            )
        return cards[0]

    async def enable(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """`xivmcp enable PLUGIN [--digest D]`: consent to the registration shown now (or the one of `digest`)."""
        return await self._decide("enable", plugin, digest)

    async def consent(self, plugin: str, digest: str | None = None) -> PluginDecision:
        """`xivmcp consent PLUGIN [--digest D]`: accept a registration that grew (awaiting_consent)."""
        return await self._decide("consent", plugin, digest)

    async def _decide(self, cmd: str, plugin: str, digest: str | None) -> PluginDecision:
        reply = await self._run(cmd, None, lambda: self._client.enable(plugin, digest, cmd=cmd))
        return msgspec.convert(_ok(cmd, reply), PluginDecision)

    async def keep_disabled(self, plugin: str) -> PluginDecision:
        """`xivmcp keep-disabled PLUGIN`: not asked again until its registration grows."""
        return msgspec.convert(await self._send("keep_disabled", plugin=plugin), PluginDecision)

    async def lift(self, plugin: str) -> PluginDecision:
        """`xivmcp lift PLUGIN`: lift a suspension (only the player can)."""
        return msgspec.convert(await self._send("lift", plugin=plugin), PluginDecision)

    async def mode(self, plugin: str, target: str, mode: str) -> PluginDecision:
        """`xivmcp mode PLUGIN TARGET MODE`: a capability id or one of its tools to allow, ask, deny or default."""
        return msgspec.convert(await self._send("mode", plugin=plugin, target=target, mode=mode), PluginDecision)

    # --- approvals ---------------------------------------------------------------------------

    async def approvals(self, wait: float = 0) -> list[PendingApproval]:
        """`xivmcp approvals [--wait S]`: those waiting; if none does yet, wait up to `wait` s for one."""
        reply = await self._send("approvals", answer_within=self.within + wait, wait=wait)
        return msgspec.convert(reply["approvals"], list[PendingApproval])

    async def wait_approval(self, tool: str | None = None, wait: float = WAIT) -> PendingApproval:
        """The approval that waits for `tool` (any tool if None), waiting up to `wait` s for one to be asked."""
        waiting = await self.approvals(wait=wait)
        mine = [a for a in waiting if tool is None or a.tool == tool]
        if not mine:
            asked = ", ".join(f"{a.approval_id} ({a.tool})" for a in waiting) or "none"
            raise PlayerError(
                "approvals",
                f"no approval for {tool or 'any tool'} was asked within {wait:g} s (waiting: {asked}); "
                "is the call running, and is the tool or its capability set to ask?",
            )
        return mine[0]

    async def approve(self, approval_id: str, *, session: bool = False, always: bool = False) -> ApprovalAnswer:
        """`xivmcp approve ID [--session | --always]`: once, for this session, or always for this tool."""
        if session and always:
            raise ValueError("approve() takes session=True or always=True, not both (as `--session` or `--always`).")
        answer = "approve_session" if session else "always_allow" if always else "approve_once"
        return msgspec.convert(await self._send("answer", approvalId=approval_id, answer=answer), ApprovalAnswer)

    async def decline(self, approval_id: str) -> ApprovalAnswer:
        """`xivmcp decline ID`: the call is told no."""
        return msgspec.convert(await self._send("answer", approvalId=approval_id, answer="decline"), ApprovalAnswer)

    # --- audit, calls --------------------------------------------------------------------------

    async def audit(self, plugin: str | None = None, limit: int = 50) -> list[AuditEntry]:
        """`xivmcp audit [--plugin P] [-n LIMIT]`, oldest first, from the host's last `reset` on.

        A shared test system is reset before each test, so these are the current test's lines
        (a host never reset gives its whole log). `limit` counts after the `plugin` filter.
        """
        reply = await self._send("audit", limit=AUDIT_WINDOW)
        entries = msgspec.convert(reply["entries"], list[AuditEntry])
        resets = [i for i, entry in enumerate(entries) if entry.details.get("reset") is True]
        since = entries[resets[-1] + 1 :] if resets else entries
        mine = [entry for entry in since if plugin is None or entry.plugin == plugin]
        return mine[-limit:] if limit > 0 else []

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, *, within: float = WAIT) -> CallReply:
        """`xivmcp call TOOL ARGS`: a tool through the permission gate, as the assistant would call it.

        A call that waits for an approval blocks until it is answered: start it in a task (or,
        in a sync test, with `SyncPlayer.start_call`) and answer it with `wait_approval` + `approve`.
        """
        reply = await self._send("call", answer_within=within, tool=tool, arguments=arguments or {})
        return msgspec.convert(reply, CallReply)

    # --- jobs --------------------------------------------------------------------------------

    async def jobs(self, finished: bool = True) -> list[JobSummary]:
        """`xivmcp jobs`: every job, newest first (without the finished ones if `finished` is False)."""
        return msgspec.convert((await self._send("jobs", finished=finished))["jobs"], list[JobSummary])

    async def job(self, job_id: str, log_lines: int = 30) -> JobInfo:
        """`xivmcp job ID [-n LINES]`: one job (by id or name) with its steps, results and log."""
        return msgspec.convert((await self._send("job", id=job_id, logLines=log_lines))["job"], JobInfo)

    async def pause_job(self, job_id: str) -> JobControlled:
        """`xivmcp job pause ID`."""
        return await self._steer(job_id, "pause")

    async def resume_job(self, job_id: str) -> JobControlled:
        """`xivmcp job resume ID`: the paused step runs again from its start."""
        return await self._steer(job_id, "resume")

    async def cancel_job(self, job_id: str) -> JobControlled:
        """`xivmcp job cancel ID`."""
        return await self._steer(job_id, "cancel")

    async def _steer(self, job_id: str, action: str) -> JobControlled:
        return msgspec.convert(await self._send("job_control", id=job_id, action=action), JobControlled)

    # --- XIV MCP's own tools, the clock --------------------------------------------------------

    async def modules(self) -> list[dict[str, Any]]:
        """`xivmcp modules`: each module of XIV MCP's own tools with its modes and each tool's setting."""
        modules: list[dict[str, Any]] = (await self._send("modules"))["modules"]
        return modules

    async def module(self, module: str, what: str, mode: str | None = None) -> str:
        """`xivmcp module MODULE reading|changes MODE` or `xivmcp module MODULE on|off`; the host's sentence."""
        return str((await self._send("module", module=module, what=what, mode=mode))["message"])

    async def tool(self, tool: str, setting: str) -> str:
        """`xivmcp tool TOOL group|allow|ask|deny`: one of XIV MCP's own tools on its own; the host's sentence."""
        return str((await self._send("tool", tool=tool, setting=setting))["message"])

    async def advance_clock(self, seconds: float) -> ClockAdvanced:
        """`xivmcp advance-clock SECONDS`: the host's test clock, and the game's with it (one clock for all)."""
        host_time = float((await self._send("advance_clock", seconds=seconds))["now"])
        if self._game is None:
            return ClockAdvanced(host_time, None, "no game client was given to this Player")
        game = self._game
        try:
            moved = await self._link.run(lambda: bounded(self.within, "the game's clock", game.advance_clock(seconds)))
        except GameError as exc:  # no game, or a game on the real clock: its time is its own
            return ClockAdvanced(host_time, None, str(exc))
        return ClockAdvanced(host_time, moved.time)

    async def reset(self) -> HostReset:
        """Put a --test-clock host back at its start (the pytest plugin does this before each test)."""
        return msgspec.convert(await self._send("reset", answer_within=self.within + 10), HostReset)


def _ok(cmd: str, reply: dict[str, Any]) -> dict[str, Any]:
    if reply.get("ok") is not True:
        raise PlayerError(cmd, str(reply.get("error") or f"no reason given (the reply was {reply})"))
    return reply
