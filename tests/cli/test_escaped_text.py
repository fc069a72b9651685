"""Text a plugin chose reaches the player's terminal escaped (S3), and the host refuses control
characters where they have no business. Broker, host and the Trickster plugin are processes; each
command is the real `xivmcp` subprocess."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.host._system import ROOT, WAIT, Process, XivMcpSystem

from .test_player import background, cli, finished, waiting_approval

pytestmark = pytest.mark.asyncio

ERASE_LINE = "\r\x1b[2K"
"""What makes a terminal forget the line it is on: whatever follows is all the player sees."""
RLO = "\u202e"
"""A right-to-left override: the text after it is shown reversed (not refused: a language may need it)."""
RAW = ("\x1b", "\r", RLO, "\x9b")


def shown_raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


@pytest.fixture(scope="module")
def trickster(system: XivMcpSystem) -> Iterator[Process]:
    proc = system.start_plugin("tests/host/plugins/trickster_plugin.py")
    proc.wait_line("Trickster: registered trickster_job")
    yield proc


@pytest.fixture(scope="module")
def enabled(system: XivMcpSystem, trickster: Process) -> None:
    for argv in (system.cli("enable", "Trickster"), system.cli("mode", "Trickster", "game_ui", "ask")):
        subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, timeout=WAIT * 2)


async def approve_the_call(system: XivMcpSystem) -> None:
    """Approve (once) the approval `trickster_ask` needs before it runs: then it asks with its summary."""
    approval = await waiting_approval(system)
    assert approval["summary"].startswith("Trickster wants to run trickster_ask"), approval
    await cli(system.cli("approve", approval["approvalId"]))


async def test_s3_a_summary_with_terminal_codes_is_refused_naming_the_gate_and_the_field(
    system: XivMcpSystem, enabled: None
) -> None:
    # SPEC: S3
    args = json.dumps({"summary": f"Buy 1 potion{ERASE_LINE}Look at the view"})
    async with background(system.cli("call", "trickster_ask", args)) as call:
        await approve_the_call(system)
        code, out, err = await finished(call)
    assert code == 0, err
    refused = json.loads(out)["refused"]
    assert "XivMcp.RequestApproval refused the request's 'summary'" in refused
    assert "control characters (\\r, \\x1b)" in refused and "Send plain text" in refused
    assert (await cli(system.cli("approvals"))).strip() == "no approvals waiting"


async def test_s3_a_summary_with_a_bidi_override_shows_escaped_in_approvals_call_and_audit(
    system: XivMcpSystem, enabled: None
) -> None:
    # SPEC: S3
    summary = f"Buy 1 potion for {RLO}0001 gil"
    async with background(system.cli("call", "trickster_ask", json.dumps({"summary": summary}))) as call:
        await approve_the_call(system)
        approval = await waiting_approval(system)
        listing = await cli(system.cli("approvals"))
        assert shown_raw(listing) == [] and "Buy 1 potion for \\u202e0001 gil" in listing, listing
        await cli(system.cli("decline", approval["approvalId"]))
        _, out, err = await finished(call)
    assert shown_raw(out + err) == [] and "waiting for the player: Buy 1 potion for \\u202e0001 gil" in err
    audit = await cli(system.cli("audit"))
    assert shown_raw(audit) == [] and "\\u202e0001 gil" in audit


async def test_s3_a_plugins_result_shows_escaped_as_text_and_as_json(system: XivMcpSystem, enabled: None) -> None:
    # SPEC: S3
    text = f"all is well{ERASE_LINE}\x9b31m{RLO}"
    out = await cli(system.cli("call", "trickster_say", json.dumps({"text": text})))
    assert shown_raw(out) == [] and "\\x1b[2K" in out, out
    as_json = await cli(system.cli("call", "trickster_say", json.dumps({"text": text}), "--json"))
    assert shown_raw(as_json) == []
    assert text in json.loads(as_json)["result"]  # the same JSON, its characters written as escapes


async def test_s3_a_job_name_with_terminal_codes_is_refused_and_a_bidi_one_shows_escaped(
    system: XivMcpSystem, enabled: None
) -> None:
    # SPEC: S3
    refused = json.loads(await cli(system.cli("call", "trickster_job", json.dumps({"name": f"farm{ERASE_LINE}"}))))
    assert "XivMcp.StartJob refused the job's 'name'" in refused["refused"], refused
    job = json.loads(await cli(system.cli("call", "trickster_job", json.dumps({"name": f"farm {RLO}nuf"}))))["job"]
    for listing in (await cli(system.cli("jobs")), await cli(system.cli("job", job))):
        assert shown_raw(listing) == [] and "farm \\u202enuf (Trickster)" in listing, listing
