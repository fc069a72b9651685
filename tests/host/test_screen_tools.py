"""XIV MCP's take_screenshot against the simulated game, all real processes (W5, F1, A5).

One system for the module: `xivmcp broker`, `xivmcp host --test-clock --no-mcp` and `xivmcp game
--test-clock` on the default world. The test's own peer is the player (calls go through the player's
`call`, as `xivmcp call` sends them, and reach the gate as the assistant's) and the game's client
with the player key. The module `screen` asks the player before reading, as in the game; the tests
that are not about that allow it for their own time, and put it back after.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import anyio
import jsonschema
import pytest
from PIL import Image

from gates.contract import BUILTIN_TOOLS
from gates.host.tools._core_definitions import OUTPUT_SCHEMAS
from gates.host.tools._screen_picture import CHARACTER_COLOUR, SCREEN_SIZE, Screen, ShownWindow, draw, pixel_of, png
from gates.player import CallReply
from gates.testing import Player

from ._game_session import start_game_allowing
from ._reading import session, unchanged
from ._system import XivMcpSystem

pytestmark = pytest.mark.asyncio

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GAME_WINDOW = {"width": SCREEN_SIZE, "height": SCREEN_SIZE}
SMALL = 20_000
"""Bytes a screenshot of the default world stays under (it is 6,234 bytes: a map, a few markers)."""


@pytest.fixture(scope="module")
def world(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system)


@asynccontextmanager
async def screen_allowed(player: Player) -> AsyncIterator[None]:
    """The module `screen` set to allow reading for the block, back to its default after."""
    await player.module("screen", "reading", "allow")
    try:
        yield
    finally:
        await player.module("screen", "reading", "default")


def picture(reply: CallReply) -> Image.Image:
    assert not reply.is_error, reply.error
    [image] = reply.images
    assert (image.mime_type, image.caption) == ("image/png", "The game screen.")
    assert image.data.startswith(PNG_SIGNATURE)
    return Image.open(io.BytesIO(image.data))


async def test_f1_w5_take_screenshot_is_a_simulated_read_only_tool_of_the_module_screen(world: XivMcpSystem) -> None:
    assert BUILTIN_TOOLS["take_screenshot"].module == "screen" and BUILTIN_TOOLS["take_screenshot"].read_only
    async with session(world) as (player, _):
        [card] = [m for m in await player.modules() if m.id == "screen"]
        assert (card.reading, card.changes) == ("ask", None)  # the real default: the player is asked
        [tool] = card.tools
        assert (tool.name, tool.simulated) == ("take_screenshot", True)


async def test_w5_take_screenshot_asks_the_player_then_shows_the_character_on_the_zones_map(
    world: XivMcpSystem,
) -> None:
    async with session(world) as (player, game), unchanged(game):
        replies: list[CallReply] = []
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                replies.append(await player.call("take_screenshot"))

            tg.start_soon(call)
            approval = await player.wait_approval("take_screenshot")
            assert (approval.plugin, approval.summary) == (
                "XivMcp",
                "XIV MCP wants to run take_screenshot (Screen, reading)",
            )
            assert replies == []  # nothing is taken before the player answers
            await player.approve(approval.approval_id)
        [reply] = replies
        assert reply.result == {
            "area": "game",
            "captured": GAME_WINDOW,
            "image": GAME_WINDOW,
            "gameWindow": GAME_WINDOW,
        }
        jsonschema.validate(reply.result, OUTPUT_SCHEMAS["take_screenshot"])  # the extensions' outputSchema
        shot = picture(reply)
        assert (shot.format, shot.size, shot.mode) == ("PNG", (SCREEN_SIZE, SCREEN_SIZE), "RGB")
        assert len(reply.images[0].data) < SMALL
        here = await game.position()
        assert shot.getpixel(pixel_of(here.map_x, here.map_y)) == CHARACTER_COLOUR
        assert (await player.approvals()) == []  # approved once: the next call asks again


async def test_w5_a_declined_screenshot_is_refused_and_takes_nothing(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), unchanged(game):
        replies: list[CallReply] = []
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                replies.append(await player.call("take_screenshot"))

            tg.start_soon(call)
            approval = await player.wait_approval("take_screenshot")
            await player.decline(approval.approval_id)
        [reply] = replies
        assert reply.is_error and reply.images == [] and reply.result is None
        assert reply.error == "The player declined take_screenshot."  # the real host's words (ToolGate)


async def test_w5_the_same_world_gives_the_same_bytes_and_a_move_another_picture(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), screen_allowed(player):
        first = (await player.call("take_screenshot")).images[0].data
        async with unchanged(game):
            assert (await player.call("take_screenshot")).images[0].data == first
        before = await game.position()
        await game.set_position(before.position.x + 100, before.position.z + 100)
        moved = await player.call("take_screenshot")
        assert moved.images[0].data != first
        here = await game.position()
        assert picture(moved).getpixel(pixel_of(here.map_x, here.map_y)) == CHARACTER_COLOUR
        assert picture(moved).getpixel(pixel_of(before.map_x, before.map_y)) != CHARACTER_COLOUR
        await game.set_flag(here.map_x, here.map_y + 4)
        assert (await player.call("take_screenshot")).images[0].data != moved.images[0].data  # the flag shows


async def test_w5_logged_out_the_title_screen_shows_the_open_windows_by_name(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), screen_allowed(player):
        await game.open_window("RecipeNote")  # a main menu window, shown by its menu name
        await game.open_window("SelectYesno", "yesno", "Do you want to leave the duty?")
        await game.logout()  # the windows stay open
        async with unchanged(game):
            reply = await player.call("take_screenshot")
        expected = Screen(
            windows=(ShownWindow("Crafting Log"), ShownWindow("SelectYesno", "Do you want to leave the duty?", True))
        )
        assert reply.images[0].data == png(draw(expected))
        unnamed = Screen(windows=(ShownWindow(""), ShownWindow("", "Do you want to leave the duty?", True)))
        assert png(draw(unnamed)) != png(draw(expected))  # the names are on the picture


async def test_w5_max_width_scales_the_picture_down_and_is_held_to_the_real_bounds(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), screen_allowed(player), unchanged(game):
        small = await player.call("take_screenshot", {"area": " game ", "max_width": 320})
        assert small.result == {
            "area": "game",
            "captured": GAME_WINDOW,
            "image": {"width": 320, "height": 320},
            "gameWindow": GAME_WINDOW,
        }
        assert picture(small).size == (320, 320)
        held = await player.call("take_screenshot", {"max_width": 100})  # clamped to 320, as the real Int does
        assert held.result["image"] == {"width": 320, "height": 320}
        wide = await player.call("take_screenshot", {"max_width": 99_999})  # never scaled up
        assert wide.result["image"] == GAME_WINDOW


async def test_w5_a_refused_screenshot_says_why_in_the_real_words_and_changes_nothing(world: XivMcpSystem) -> None:
    async with session(world) as (player, game), screen_allowed(player), unchanged(game):
        assert await player.error("take_screenshot", {"area": "desktop"}) == "area must be game, xivmcp or overlay."
        assert await player.error("take_screenshot", {"area": "xivmcp"}) == (
            "The XIV MCP window is not open. Open it with show_xivmcp_window first."
        )
        assert await player.error("take_screenshot", {"area": "overlay"}) == (
            "The overlay is not shown: nothing is running (or it is turned off in /xivmcp → Overlay)."
        )
        assert (await player.error("take_screenshot", {"zoom": 2})).startswith("take_screenshot has no argument 'zoom'")
        assert await player.error("take_screenshot", {"max_width": "wide"}) == (
            "'max_width' must be a number, such as 1600; got 'wide'."
        )
