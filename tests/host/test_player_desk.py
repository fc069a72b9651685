"""The player's desk answers every command of the protocol with the command's own reply type."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import anyio
import pytest

from gates.contract import Answer
from gates.player import (
    AdvanceClock,
    AnswerApproval,
    CallTool,
    ClearSession,
    Command,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    HostStats,
    Install,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListInstalled,
    ListJobs,
    ListModules,
    ListPlugins,
    ListTools,
    OpenConsole,
    PlayerClient,
    PlayerCommand,
    ReadAudit,
    ResetForTests,
    SetMode,
    SetModule,
    SetToolSetting,
    ShowJob,
    ShowPlugin,
    ShowPlugins,
    Uninstall,
)

from ._system import WAIT, inprocess_host, plugin_peer

pytestmark = pytest.mark.asyncio

HOUR = {"name": "hour", "steps": [{"tool": "wait", "args": {"seconds": 3600}}]}


async def test_every_player_command_is_answered_with_its_reply_type(tmp_path: Path) -> None:
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        await plugin.register("testpeer_look", readOnly=True)
        client = PlayerClient.for_data_dir(plugin.pi, tmp_path)
        sent: list[type[Command[Any]]] = []

        async def send(command: Command[Any]) -> Any:
            with anyio.fail_after(WAIT):
                reply = await client.send(command)
            assert type(reply) is type(command).reply_type, command
            sent.append(type(command))
            return reply

        digest = await client.digest("TestPeer")
        for command in (
            ListPlugins(),
            ListPlugins(plugin="TestPeer"),
            EnablePlugin(plugin="TestPeer", digest=digest),
            ConsentPlugin(plugin="TestPeer", digest=digest),  # nothing to consent to: still a decision
            SetMode(plugin="TestPeer", target="game_ui", mode="ask"),
            KeepDisabled(plugin="TestPeer"),
            LiftSuspension(plugin="TestPeer"),
            ReadAudit(plugin="TestPeer", limit=5),
            CallTool(tool="echo", arguments={"text": "hi"}),
            HostStats(),
            ListModules(),
            ListTools(),
            SetModule(module="game_data", what="reading", mode="ask"),
            SetToolSetting(tool="set_map_flag", setting="group"),
            AdvanceClock(seconds=1),
            Install(plugin="OtherPlugin", name="Other Plugin", version="1.0.0"),
            ListInstalled(),
            Uninstall(plugin="OtherPlugin"),
            ShowPlugin(plugin="TestPeer"),
            ShowPlugins(),
            ClearSession(plugin="TestPeer"),
            OpenConsole(),
        ):
            await send(command)
        async with anyio.create_task_group() as tg:
            tg.start_soon(send, CallTool(tool="get_currencies"))  # game_data reading is ask: it waits
            [waiting] = (await send(ListApprovals(wait=WAIT))).approvals
            await send(AnswerApproval(approval_id=waiting.approval_id, answer=Answer.DECLINE))
        started = (await send(CallTool(tool="start_job", arguments=HOUR))).result["started"]["id"]
        await send(ListJobs())
        await send(ShowJob(id=started))
        await send(ControlJob(id=started, action="cancel"))
        await send(ResetForTests())
        assert set(sent) == set(get_args(PlayerCommand))
