"""The capability catalog: what a tool may do, how risky it is, and its default mode.

Before the player chooses, only reading (low risk) runs without asking; a critical capability
can be asked or denied, never always allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from ._codes import CapabilityId, Mode, Risk

__all__ = [
    "CAPABILITIES",
    "CAPABILITY_IDS",
    "Capability",
    "default_mode",
    "find_capability",
    "is_mode_allowed",
]


@dataclass(frozen=True, slots=True)
class Capability:
    """One entry of the catalog: what a tool may do, how risky it is, and what the player reads."""

    id: CapabilityId
    risk: Risk
    title: str
    description: str

    @property
    def default(self) -> Mode:
        return default_mode(self.risk)


def default_mode(risk: Risk) -> Mode:
    """Before the player chooses, only reading (low risk) runs without asking."""
    return Mode.ALLOW if risk is Risk.LOW else Mode.ASK


def is_mode_allowed(risk: Risk, mode: Mode) -> bool:
    """A critical capability can be asked or denied, never always allowed."""
    return not (risk is Risk.CRITICAL and mode is Mode.ALLOW)


CAPABILITIES: Final[tuple[Capability, ...]] = (
    Capability(
        CapabilityId.READ_GAME,
        Risk.LOW,
        "Read game state",
        "Reads the character, inventory, zone and other game data; changes nothing. Added to every tool for you.",
    ),
    Capability(
        CapabilityId.GAME_UI,
        Risk.MEDIUM,
        "Use game windows",
        "Opens, closes and clicks game windows and menus, and talks to NPCs.",
    ),
    Capability(
        CapabilityId.MOVE_CHARACTER,
        Risk.MEDIUM,
        "Move the character",
        "Walks, mounts, teleports, or changes zone, instance or world.",
    ),
    Capability(
        CapabilityId.MOVE_ITEMS,
        Risk.MEDIUM,
        "Move items",
        "Moves items between bags, armoury, saddlebag, retainers or chests.",
    ),
    Capability(CapabilityId.NETWORK, Risk.MEDIUM, "Go online", "Sends requests to web services outside the game."),
    Capability(CapabilityId.COMBAT, Risk.HIGH, "Fight", "Enters duties or fights; the character can die."),
    Capability(CapabilityId.SPEND_GIL, Risk.HIGH, "Spend gil", "Pays gil, including teleports and repairs."),
    Capability(
        CapabilityId.SPEND_CURRENCY,
        Risk.HIGH,
        "Spend other currencies",
        "Pays tomestones, scrips, seals, MGP or items used as currency.",
    ),
    Capability(
        CapabilityId.TRADE_ITEMS,
        Risk.HIGH,
        "Sell or trade items",
        "Lists on the market board, sells to vendors or trades with players.",
    ),
    Capability(CapabilityId.CHAT_SEND, Risk.HIGH, "Send chat", "Sends chat or commands other players can see."),
    Capability(
        CapabilityId.LOGIN,
        Risk.HIGH,
        "Log out or switch characters",
        "Logs out, switches character or closes the game.",
    ),
    Capability(CapabilityId.EDIT_SETTINGS, Risk.HIGH, "Change settings", "Changes game, plugin or file settings."),
    Capability(
        CapabilityId.DISCARD_ITEMS,
        Risk.CRITICAL,
        "Destroy items",
        "Discards or desynthesises items, anything that can't be undone. Always asked.",
    ),
)
CAPABILITY_IDS: Final[tuple[str, ...]] = tuple(c.id.value for c in CAPABILITIES)
_BY_ID: Final[Mapping[str, Capability]] = MappingProxyType({c.id.value: c for c in CAPABILITIES})


def find_capability(capability_id: str) -> Capability | None:
    """The catalog entry for an id, or ``None`` for an id the host does not know."""
    return _BY_ID.get(capability_id)
