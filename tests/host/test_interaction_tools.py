"""interact_with_object, get_menu and select_menu_option against the simulated game, all real processes (W5, W8).

The Ferry Skipper in Limsa Lominsa Lower Decks has a menu: "Board the ferry." asks Yes or No,
"Ask about the ferries." talks. The YesAlready sample answers the Yes/No dialog by itself, since
XIV MCP pauses nothing for an NPC's menu (as the real host); at a summoning bell it is paused until
the RetainerList XIV MCP opened is closed (the real `AcquireBell`). Each change is read from the
game's change log: XivMcp's, with `game_ui`. A refusal changes nothing, in the real host's words.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import anyio.to_thread
import pytest

from ._game_session import fresh, made_since, seq, snapshot, start_game_allowing
from ._system import WAIT, XivMcpSystem
from .plugins.game_peers import clicker_peer

pytestmark = pytest.mark.asyncio

LIMSA = 129
SKIPPER = (-190.0, 2.0, 48.0)
ENTRIES = ["Board the ferry.", "Ask about the ferries.", "Nothing."]


@pytest.fixture(scope="module")
def menus(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    yield start_game_allowing(system, "game_navigation")


async def test_w5_interact_with_an_npc_opens_its_menu_and_select_menu_option_talks(menus: XivMcpSystem) -> None:
    async with fresh(menus) as (assistant, game):
        await game.set_position(SKIPPER[0] + 3.0, SKIPPER[2], y=SKIPPER[1], territory=LIMSA)
        start = await seq(game)
        assert await assistant.result("get_menu") == {"menu": None, "dialogueWaiting": False, "openWindows": []}
        assert await assistant.result("interact_with_object", {"name": "ferry"}) == {
            "interactedWith": "Ferry Skipper",
            "distance": 3.0,
            "openedWindows": ["SelectString"],
            "conditions": [],
            "fcChest": None,
            "summoningBell": None,
        }
        menu = await assistant.result("get_menu")
        assert menu["menu"] == [{"index": i, "text": t} for i, t in enumerate(ENTRIES)]
        selected = await assistant.result("select_menu_option", {"option": "ask"})
        assert selected == {"selected": "Ask about the ferries.", "openWindows": ["Talk"], "menu": None}
        assert (await assistant.result("get_menu"))["dialogueWaiting"] is True
        advanced = await assistant.result("select_menu_option", {"advance_dialogue": True})
        assert advanced == {"advanced": True, "openWindows": []}
        assert await made_since(game, start) == [
            ("XivMcp", "game_ui", "interacted with Ferry Skipper: opened 'SelectString'"),
            ("XivMcp", "game_ui", "chose 'Ask about the ferries.' in the menu of Ferry Skipper: opened 'Talk'"),
            ("XivMcp", "game_ui", "closed the window 'Talk'"),
        ]


async def test_w5_refused_interactions_and_selections_change_nothing(menus: XivMcpSystem) -> None:
    async with fresh(menus) as (assistant, game):
        await game.set_position(SKIPPER[0] + 12.0, SKIPPER[2], y=SKIPPER[1], territory=LIMSA)
        before = await snapshot(game)
        for tool, arguments, message in [
            ("interact_with_object", {}, "Give 'name' or 'game_object_id'."),
            ("interact_with_object", {"name": "Ferry Skipper"}, "Ferry Skipper is 12 yalms away; walk within ~8"),
            ("interact_with_object", {"name": "Moogle"}, "No targetable object named 'Moogle' nearby. Use get_near"),
            ("interact_with_object", {"game_object_id": 1}, "No targetable object with id 1 nearby."),
            ("select_menu_option", {}, "Give 'option' (text or index) or advance_dialogue=true."),
            ("select_menu_option", {"option": "0"}, "No menu is open. Use interact_with_object first."),
            ("select_menu_option", {"advance_dialogue": True}, "No dialogue is waiting."),
        ]:
            assert (await assistant.error(tool, arguments)).startswith(message), (tool, arguments)
        assert await snapshot(game) == before

        await game.set_position(SKIPPER[0] + 1.0, SKIPPER[2])
        await assistant.result("interact_with_object", {"name": "Ferry Skipper"})
        before = await snapshot(game)
        assert await assistant.error("select_menu_option", {"option": "swim"}) == (
            "No menu entry matches 'swim'. Entries: Board the ferry. | Ask about the ferries. | Nothing."
        )
        assert await assistant.error("select_menu_option", {"option": "7"}) == "The menu has entries 0-2."
        assert await snapshot(game) == before


async def test_w5_an_object_that_opens_nothing_is_the_game_not_reacting(menus: XivMcpSystem) -> None:
    async with fresh(menus) as (assistant, game):
        await game.set_position(-26.0, 20.0, y=0.0)  # by Tuliyollal's Striking Dummy
        before = await snapshot(game)
        error = await assistant.error("interact_with_object", {"name": "Striking Dummy"})
        assert error.startswith("The game did not react to interacting with Striking Dummy (2 yalms away, result 0).")
        assert await snapshot(game) == before


async def test_w8_yesalready_answers_the_dialog_an_npcs_menu_opens_but_waits_while_xiv_mcp_holds_the_bell(
    menus: XivMcpSystem,
) -> None:
    async with fresh(menus) as (assistant, game):
        yes = menus.start_plugin("plugins_sample.yesalready")
        try:
            await yes.expect("YesAlready: ready")
            await game.set_position(SKIPPER[0] + 1.0, SKIPPER[2], y=SKIPPER[1], territory=LIMSA)
            start = await seq(game)
            await assistant.result("interact_with_object", {"name": "Ferry Skipper"})
            selected = await assistant.result("select_menu_option", {"option": "0"})
            assert selected["selected"] == "Board the ferry."
            await yes.expect("YesAlready: answered Yes to SelectYesno")  # nothing paused it: an NPC's menu
            assert (await made_since(game, start))[-1] == ("YesAlready", "game_ui", "answered Yes to 'SelectYesno'")

            await game.set_position(-123.5, 16.0, y=18.0)  # by Limsa's Summoning Bell
            bell = await assistant.result("interact_with_object", {"name": "Summoning Bell"})
            assert bell["openedWindows"] == ["RetainerList"]
            assert bell["summoningBell"]["autoRetainer"] == "not installed"
            await yes.expect("YesAlready: paused by XivMcp")
            await game.open_window("SelectYesno", kind="yesno", text="Quit?")  # a dialog while at the bell
            await yes.expect("YesAlready: left SelectYesno (paused)")
            await game.close_window("RetainerList")  # the bell is closed: XIV MCP releases YesAlready
            await yes.expect("YesAlready: released by XivMcp")
            await yes.expect("YesAlready: answered Yes to SelectYesno")
        finally:
            await anyio.to_thread.run_sync(yes.stop)
            with anyio.fail_after(WAIT):
                await assistant.pi.wait_peer_gone("YesAlready")


async def test_w8_at_the_bell_xiv_mcp_asks_the_clickers_to_hold_off(menus: XivMcpSystem) -> None:
    async with fresh(menus) as (assistant, game), clicker_peer(menus.endpoint, assistant.pi, "TextAdvance") as text:
        await game.set_position(-8.0, 28.0)  # by Tuliyollal's Summoning Bell
        start = await seq(game)
        await assistant.result("interact_with_object", {"name": "Summoning Bell"})
        assert await text.next_request() == ("Add", "XivMcp")
        assert await made_since(game, start) == [
            ("XivMcp", "game_ui", "interacted with Summoning Bell: opened 'RetainerList'")
        ]
        await assistant.result("close_window", {"window": "RetainerList"})
        assert await text.next_request() == ("Remove", "XivMcp")
