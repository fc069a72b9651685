"""`xivmcp plugins` names the command that answers each card: enable a new plugin, consent to a
grown registration, lift a suspension (the player reads commands, not the game window's words)."""

from __future__ import annotations

import pytest

from gates.contract import PluginState
from gates.player import Awaits, PluginCard, PluginsReport
from xivmcp._player_text import _print_plugins


def card(state: PluginState, *, awaits: Awaits | None = None, suspend_reason: str | None = None) -> PluginCard:
    return PluginCard(
        name="Hello",
        state=state,
        connected=True,
        suspend_reason=suspend_reason,
        digest="0123456789ab",
        tools=[],
        capabilities=[],
        awaits=awaits,
    )


def test_each_card_names_the_command_that_answers_it(capsys: pytest.CaptureFixture[str]) -> None:
    new = Awaits(new_tools=["hello_greet"], new_capabilities=[])
    grown = Awaits(new_tools=["hello_wave"], new_capabilities=["chat_send"])
    reason = "hello_buy: 320 gil spent. (not declared)"
    for shown in (
        card(PluginState.UNDECIDED, awaits=new),
        card(PluginState.AWAITING_CONSENT, awaits=grown),
        card(PluginState.SUSPENDED, suspend_reason=reason),
    ):
        _print_plugins(PluginsReport(plugins=[shown]))
    lines = capsys.readouterr().out.splitlines()
    assert "  awaits the player: new tools hello_greet; new capabilities none (`xivmcp enable Hello`)" in lines
    assert "  awaits the player: new tools hello_wave; new capabilities chat_send (`xivmcp consent Hello`)" in lines
    assert f"  suspended: {reason} (`xivmcp lift Hello`)" in lines
