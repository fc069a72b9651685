"""The default world's places XIV MCP's navigate_to goes into, a menu, and its fishing spots (W1).

An inn room (Limsa Lominsa's Mizzenmast Inn, with its Summoning Bell), and the character's
housing in Mist: the free company's house (its Company Chest), the company workshop (its Voyage
Control Panel) and an apartment. The character has no private house, so `navigate_to home`
shows what the real host answers a character without one. Territory ids are the game's; the
interiors' maps are small (size factor 400). The player goes in with `Game.SetPosition` and the
zone's territory, as talking to the innkeeper or opening the house's door would.

The Ferry Skipper in Limsa Lominsa Lower Decks has a menu: one entry asks Yes or No (a
SelectYesno dialog, which YesAlready answers by itself), one shows a line of dialogue (Talk).
The Voyage Control Panel's menu leads nowhere. Fishing spots stand in Middle La Noscea and Limsa
Lominsa Lower Decks, each with its FishingSpot id, so navigate_to fishing_spot finds them by name
or id.
"""

from __future__ import annotations

from typing import Final

import msgspec

from ._documents import MapInfo, MenuOption, Vec3, WorldObject, Zone

__all__ = ["FERRY_SKIPPER", "FISHING_SPOTS", "INN_TERRITORY", "default_places", "fishing_spots"]

INN_TERRITORY: Final = 177
"""Mizzenmast Inn: the inn room."""
_INTERIOR: Final = 400


def default_places() -> list[Zone]:
    """The inn room and the character's housing interiors."""
    interior = MapInfo(size_factor=_INTERIOR)
    return [
        Zone(
            territory=INN_TERRITORY,
            name="Mizzenmast Inn",
            map=interior,
            place="inn",
            objects=[WorldObject(name="Summoning Bell", kind="summoning_bell", position=Vec3(x=-1.5, z=4.0))],
        ),
        Zone(
            territory=283,
            name="Private House - Mist",
            map=interior,
            place="fc_house",
            objects=[WorldObject(name="Company Chest", kind="company_chest", position=Vec3(x=6.0, z=-9.0))],
        ),
        Zone(
            territory=423,
            name="Company Workshop - Mist",
            map=interior,
            place="workshop",
            objects=[
                WorldObject(
                    name="Voyage Control Panel",
                    kind="voyage_panel",
                    position=Vec3(x=-5.0, z=-12.0),
                    menu=[MenuOption(text=t) for t in ("Submersible management", "Airship management", "Nothing.")],
                )
            ],
        ),
        Zone(territory=608, name="Topmast Apartment", map=interior, place="apartment"),
    ]


FERRY_SKIPPER: Final = WorldObject(
    name="Ferry Skipper",
    kind="npc",
    position=Vec3(x=-190.0, y=2.0, z=48.0),
    menu=[
        MenuOption(text="Board the ferry.", question="Board the ferry to Aleport?"),
        MenuOption(text="Ask about the ferries.", says="Ferries leave the Lower Decks for Aleport and Vesper Bay."),
        MenuOption(text="Nothing."),
    ],
)
"""An NPC with a menu, in Limsa Lominsa Lower Decks: one entry asks Yes or No, one talks."""

FISHING_SPOTS: Final = {
    134: (("Zephyr Drift", 16, Vec3(x=-18.0, y=38.0, z=-40.0)),),
    129: (("Limsa Lominsa Lower Decks", 10, Vec3(x=-200.0, y=2.0, z=60.0)),),
}
"""Fishing spots by territory: name, FishingSpot id and centre (out on the water)."""


def fishing_spots(territory: int) -> list[WorldObject]:
    """The people with menus and the fishing spots of a zone of the default world."""
    people = [msgspec.structs.replace(FERRY_SKIPPER)] if territory == 129 else []
    return people + [
        WorldObject(name=name, kind="fishing_spot", position=centre, spot=spot)
        for name, spot, centre in FISHING_SPOTS.get(territory, ())
    ]
