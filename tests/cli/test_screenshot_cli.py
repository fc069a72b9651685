"""`xivmcp call take_screenshot`, run as the real subprocess against a system of real processes (W5).

A PNG is bytes, not text: `call` prints the result's data as it prints any result, then one line
that says the image's caption, type and size. `--save FILE` writes the image to FILE; printing it
as base64 would flood the terminal with some 10,000 characters nobody reads.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from PIL import Image

from tests.host._system import ROOT, WAIT, XivMcpSystem, host_system

pytestmark = pytest.mark.asyncio

SAID = re.compile(r"The game screen\. \[image/png, ([\d,]+) bytes\] (.*)")


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    """Broker, host and game (`--test-clock`) as processes; the module `screen` set to allow reading."""
    with host_system(tmp_path_factory.mktemp("system"), "--test-clock") as started:
        started.start_game("--test-clock")
        yield started


async def xivmcp(system: XivMcpSystem, *args: str, expect_code: int = 0) -> tuple[str, str]:
    with anyio.fail_after(WAIT * 2):
        done = await anyio.run_process(system.cli(*args), cwd=ROOT, check=False)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == expect_code, f"{args} exited {done.returncode}: {out} {err}"
    return out, err


async def test_w5_call_take_screenshot_says_what_the_image_is_and_save_writes_it(
    system: XivMcpSystem, tmp_path: Path
) -> None:
    await xivmcp(system, "module", "screen", "reading", "allow")
    try:
        out, _ = await xivmcp(system, "call", "take_screenshot", "--quiet")
        data, told = out.splitlines()
        assert json.loads(data)["image"] == {"width": 512, "height": 512}
        said = SAID.fullmatch(told)
        assert said is not None and said[2] == "not shown here (--save FILE writes it)"
        size = int(said[1].replace(",", ""))
        assert 1_000 < size < 20_000 and len(out) < 500  # described, not dumped

        shot = tmp_path / "shot.png"
        out, _ = await xivmcp(system, "call", "take_screenshot", '{"max_width": 320}', "--save", str(shot))
        data, told = out.splitlines()
        said = SAID.fullmatch(told)
        assert said is not None and said[2] == f"saved to {shot}"
        assert int(said[1].replace(",", "")) == shot.stat().st_size
        image = Image.open(io.BytesIO(shot.read_bytes()))
        assert (image.format, image.size) == ("PNG", (320, 320))

        out, _ = await xivmcp(system, "call", "take_screenshot", "--json")  # the whole answer, the PNG in base64
        [told_json] = json.loads(out)["images"]
        assert (told_json["mimeType"], told_json["caption"]) == ("image/png", "The game screen.")
        assert base64.b64decode(told_json["data"], validate=True).startswith(b"\x89PNG")

        _, err = await xivmcp(
            system, "call", "take_screenshot", "--save", str(tmp_path / "no" / "such" / "a.png"), expect_code=1
        )
        assert err.strip().startswith(f"Could not write the image to {tmp_path / 'no' / 'such' / 'a.png'}: ")
    finally:
        await xivmcp(system, "module", "screen", "reading", "default")


async def test_w5_call_take_screenshot_waits_for_the_player_as_the_screen_asks_by_default(system: XivMcpSystem) -> None:
    async with anyio.create_task_group() as tg:
        outcome: dict[str, tuple[str, str]] = {}

        async def call() -> None:
            outcome["call"] = await xivmcp(system, "call", "take_screenshot", expect_code=1)

        tg.start_soon(call)
        listed, _ = await xivmcp(system, "approvals", "--json", "--wait", str(WAIT))
        [approval] = json.loads(listed)["approvals"]
        assert (approval["tool"], approval["summary"]) == (
            "take_screenshot",
            "XIV MCP wants to run take_screenshot (Screen, reading)",
        )
        await xivmcp(system, "decline", approval["approvalId"])
    out, err = outcome["call"]
    assert out == "" and err.splitlines()[-1] == "The player declined take_screenshot."
    assert err.startswith("waiting for the player: XIV MCP wants to run take_screenshot (Screen, reading).")
