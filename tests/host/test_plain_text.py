"""The host refuses control characters where the player reads a line of the plugin's (S3): a
summary, a progress line, a job's name; the refusal names the gate and the field."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests._gates import refused

from ._system import inprocess_host, ok, player_of, plugin_peer, start_call

pytestmark = pytest.mark.asyncio

TRICKS = ("\r\x1b[2K", "\x9b2K", "\x7f", "\n")


async def test_s3_progress_lines_summaries_and_job_names_with_control_characters_are_refused(tmp_path: Path) -> None:
    # SPEC: S3
    async with inprocess_host(tmp_path) as (endpoint, _), plugin_peer(endpoint, "TestPeer") as plugin:
        player = player_of(plugin.pi, tmp_path)
        await plugin.register("testpeer_work", capabilities=["game_ui"])
        await player.enable("TestPeer")
        await player.mode("TestPeer", "game_ui", "allow")
        async with anyio.create_task_group() as tg:
            call = start_call(tg, player, "testpeer_work")
            call_id, _, _ = await plugin.next_invoke()
            for trick in TRICKS:
                shown = repr(trick[0])[1:-1]
                error = await refused(plugin.pi, "ReportProgress", call_id, f"12 kills{trick}")
                assert error.startswith("XivMcp.ReportProgress refused the progress line: it holds control "), error
                assert f"({shown}" in error and "Send plain text on one line" in error
                request = json.dumps({"capability": "game_ui", "summary": f"Open the map{trick}"})
                error = await refused(plugin.pi, "RequestApproval", call_id, request)
                assert error.startswith("XivMcp.RequestApproval refused the request's 'summary'"), error
                job = json.dumps({"name": f"farm{trick}", "steps": [{"tool": "echo", "args": {"text": "x"}}]})
                error = await refused(plugin.pi, "StartJob", "TestPeer", job)
                assert error.startswith("XivMcp.StartJob refused the job's 'name'"), error
            await ok(plugin.pi, "ReportProgress", call_id, "12 kills, \u00e9t\u00e9 \u202e")  # text is text
            # SPEC: F5 - for a call it does not know, the real host's "No pending call" comes first
            assert await refused(plugin.pi, "ReportProgress", "c999", "12\r") == "No pending call 'c999'."
            await ok(plugin.pi, "CompleteCall", call_id, "31")
            assert (await call.outcome()).result == 31
        steps = [{"tool": "echo", "args": {"text": "x"}}]  # the assistant's own job: the same rule
        error = await player.error("start_job", {"name": "farm\r\x1b[2K", "steps": steps})
        assert error.startswith("start_job refused the job's 'name': it holds control characters (\\r, \\x1b)"), error
