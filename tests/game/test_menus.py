"""Interacting with objects, and the menus and dialogs that opens (W1, W8).

The default world's Ferry Skipper (Limsa Lominsa Lower Decks) has a menu: one entry asks Yes or
No, one talks; a Summoning Bell opens the retainer list. Each change is the caller's, with
`game_ui`; a refusal changes nothing and says what to do.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from game import GameClient, GameError, Window

from ._system import TESTER, WAIT, game_peer, game_system

pytestmark = pytest.mark.asyncio

LIMSA = 129
SKIPPER = (-190.0, 48.0)


def shown(windows: list[Window]) -> list[tuple[str, str, str, list[str]]]:
    return [(w.name, w.kind, w.text, w.menu) for w in windows]


async def changes(game: GameClient, since: int) -> list[tuple[str, str, str]]:
    return [(c.by, c.capability, c.summary) for c in (await game.changes(since)).changes]


async def refused(game: GameClient, pending: object) -> str:
    seq = (await game.snapshot()).seq
    with pytest.raises(GameError) as caught:
        await pending  # type: ignore[misc]
    assert (await game.snapshot()).seq == seq  # nothing changed
    return caught.value.message


async def test_w1_interacting_with_an_npc_opens_its_menu_and_an_entry_its_yes_no_dialog(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.set_position(SKIPPER[0] + 12.0, SKIPPER[1], y=2.0, territory=LIMSA)
                far = await refused(game, game.interact("Ferry Skipper"))
                assert (
                    far
                    == "Game.Interact: Ferry Skipper is 12.0 yalms away, out of reach (within 8); walk up to it first"
                )
                assert "nothing named 'Nobody' stands in Limsa Lominsa Lower Decks" in await refused(
                    game, game.interact("Nobody")
                )
                no_menu = await refused(game, game.select_menu(0))
                assert no_menu.startswith("Game.SelectMenu: no menu (SelectString) is open")

                await game.set_position(SKIPPER[0] + 2.0, SKIPPER[1])
                seq = (await game.snapshot()).seq
                await game.interact("ferry skipper")
                entries = ["Board the ferry.", "Ask about the ferries.", "Nothing."]
                assert shown(await game.windows()) == [("SelectString", "window", "Ferry Skipper", entries)]
                assert "the menu has entries 0-2; got 3" in await refused(game, game.select_menu(3))
                await game.select_menu(0)
                assert shown(await game.windows()) == [("SelectYesno", "yesno", "Board the ferry to Aleport?", [])]
                await game.answer_dialog("SelectYesno", yes=True)
                assert await game.windows() == []
                assert await changes(game, seq) == [
                    (TESTER, "game_ui", "interacted with Ferry Skipper: opened 'SelectString'"),
                    (TESTER, "game_ui", "chose 'Board the ferry.' in the menu of Ferry Skipper: opened 'SelectYesno'"),
                    (TESTER, "game_ui", "answered Yes to 'SelectYesno'"),
                ]

                await game.interact("Ferry Skipper")
                await game.select_menu(1)
                [talk] = await game.windows()
                assert (talk.name, talk.about) == ("Talk", "Ferry Skipper")
                await game.close_window("Talk")  # clicked away
                await game.interact("Ferry Skipper")
                await game.select_menu(2)  # "Nothing.": the menu closes
                assert await game.windows() == []


async def test_w1_a_bell_opens_the_retainer_list_and_a_dummy_nothing(tmp_path: Path) -> None:
    with game_system(tmp_path) as system:
        async with game_peer(system) as (_, game):
            with anyio.fail_after(WAIT):
                await game.set_position(-8.0, 28.0)  # by Tuliyollal's Summoning Bell
                await game.interact("Summoning Bell")
                assert [(w.name, w.about) for w in await game.windows()] == [("RetainerList", "Summoning Bell")]
                seq = (await game.snapshot()).seq
                await game.interact("Summoning Bell")  # already open: nothing more happens
                await game.set_position(-26.0, 20.0)
                await game.interact("Striking Dummy")  # opens nothing: the game does not react
                assert (await game.snapshot()).seq == seq + 1  # only the move
