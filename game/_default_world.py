"""The world a game starts with when no `--world` file is given: fixed, built in code (W1).

Zones, aetherytes and items have the real game's territory ids, names and prices where those
are well known, so a plugin prototyped here reads values it will meet in the game. Nothing is
random: the seed is only recorded in the world, so two games started alike are alike. Zones
hold what XIV MCP's navigate_to walks to by name (Summoning Bells, NPCs such as Wuk Evu), and a
Striking Dummy stands in Tuliyollal; the characters' sheets, the party and the weather are in
`_default_people.py`. The Material Supplier, a walk from the start, sells potions for gil; the
character has two retainers, and the market board holds a few other players' listings
(`_default_shops`). An inn room, the character's housing and fishing spots are in `_default_places`;
the public worlds and a duty's zone in `_default_worlds.py`.
"""

from __future__ import annotations

from typing import Final

from ._bag_layout import reconcile
from ._default_gear import default_gear, default_gear_items
from ._default_people import default_party, default_sheets, default_weather
from ._default_places import default_places, fishing_spots
from ._default_shops import default_market, default_retainers, default_vendors
from ._default_traders import default_other_players
from ._default_worlds import default_duty_zones, default_worlds
from ._documents import (
    Aetheryte,
    Currency,
    InventoryItem,
    ItemInfo,
    MapInfo,
    PlayerInfo,
    Vec3,
    World,
    WorldObject,
    Zone,
)

__all__ = ["HOME_TERRITORY", "default_world"]

HOME_TERRITORY: Final = 1185
"""Tuliyollal: where the player starts, and the home point (teleporting there is free)."""

_CITY: Final = 200
_FIELD: Final = 100


def _zones() -> list[Zone]:
    return [
        Zone(
            territory=1185,
            name="Tuliyollal",
            map=MapInfo(size_factor=_CITY),
            aetherytes=[Aetheryte(id=216, name="Tuliyollal", position=Vec3(x=-24.0, y=0.5, z=8.0), cost=0)],
            objects=[
                WorldObject(name="Summoning Bell", kind="summoning_bell", position=Vec3(x=-8.0, y=0.0, z=30.0)),
                WorldObject(name="Material Supplier", kind="npc", position=Vec3(x=14.0, y=0.0, z=-6.0)),
                WorldObject(
                    name="Striking Dummy",
                    kind="object",
                    position=Vec3(x=-26.0, y=0.0, z=22.0),
                    object_kind="BattleNpc",
                    level=100,
                    hp=44_000,
                ),
            ],
        ),
        Zone(
            territory=1188,
            name="Kozama'uka",
            map=MapInfo(size_factor=_FIELD),
            aetherytes=[
                Aetheryte(id=200, name="Ok'hanu", position=Vec3(x=-170.0, y=6.0, z=-480.0), cost=312),
                Aetheryte(id=201, name="Many Fires", position=Vec3(x=540.0, y=116.0, z=-390.0), cost=356),
            ],
            objects=[WorldObject(name="Wuk Evu", kind="npc", position=Vec3(x=-150.0, y=6.0, z=-455.0))],
        ),
        Zone(
            territory=129,
            name="Limsa Lominsa Lower Decks",
            map=MapInfo(size_factor=_CITY),
            aetherytes=[
                Aetheryte(id=8, name="Limsa Lominsa Aetheryte Plaza", position=Vec3(x=-84.0, y=18.0, z=1.0), cost=999)
            ],
            objects=[
                WorldObject(name="Summoning Bell", kind="summoning_bell", position=Vec3(x=-123.5, y=18.0, z=18.0))
            ],
        ),
        Zone(
            territory=134,
            name="Middle La Noscea",
            map=MapInfo(size_factor=_FIELD),
            aetherytes=[Aetheryte(id=52, name="Summerford Farms", position=Vec3(x=224.0, y=113.0, z=-258.0), cost=871)],
        ),
    ]


def _items() -> list[ItemInfo]:
    return [
        ItemInfo(item_id=2, name="Fire Shard", price=0, sell_price=1),
        ItemInfo(item_id=3, name="Ice Shard", price=0, sell_price=1),
        ItemInfo(item_id=8, name="Fire Crystal", price=0, sell_price=2),
        ItemInfo(item_id=4551, name="Potion", price=60, sell_price=3),
        ItemInfo(item_id=4554, name="Hi-Potion", price=320, sell_price=12),
        ItemInfo(item_id=4555, name="Ether", price=280, sell_price=10),
        ItemInfo(item_id=44162, name="Grade 2 Gemdraught of Strength", price=0, sell_price=41),
        ItemInfo(item_id=41763, name="Savage Aim Materia XII", price=150, sell_price=0, currency=28),
        ItemInfo(item_id=10386, name="Wolf Collar", price=7_000, sell_price=0, currency=25),
        ItemInfo(item_id=44178, name="Dinner Moogle Bonds", price=0, sell_price=0),
    ]


def _held(catalog: list[ItemInfo], counts: dict[int, int]) -> list[InventoryItem]:
    names = {item.item_id: item.name for item in catalog}
    return [InventoryItem(item_id=item_id, name=names[item_id], count=count) for item_id, count in counts.items()]


def default_world(seed: int = 0) -> World:
    """The default world, the same for every seed (which is recorded in `World.seed`)."""
    catalog = _items() + default_gear_items()
    zones = _zones() + default_places() + default_duty_zones()
    for zone in zones:
        zone.weather = default_weather(zone.territory)
        zone.objects += fishing_spots(zone.territory)
    player = PlayerInfo(
        name="Wuk Lamat",
        world="Ravana",
        world_id=74,
        content_id=18014449511251234,
        territory=HOME_TERRITORY,
        position=Vec3(x=-20.0, y=0.5, z=12.0),
        job="Warrior",
        level=100,
        gil=100_000,
    )
    alt = PlayerInfo(
        name="Erenville",
        world="Ravana",
        world_id=74,
        content_id=18014449511259876,
        logged_in=False,
        territory=1188,
        position=Vec3(x=-165.0, y=6.0, z=-470.0),
        job="Bard",
        level=92,
        gil=48_210,
    )
    world = World(
        seed=seed,
        time=0.0,
        walk_speed=6.0,
        player=player,
        zones=zones,
        items=catalog,
        inventory=_held(catalog, {4554: 20, 2: 999, 3: 450, 8: 120, 44162: 5, 44178: 1}),
        currencies=[
            Currency(id=28, name="Allagan Tomestone of Poetics", count=1_400),
            Currency(id=25, name="Wolf Marks", count=12_000),
            Currency(id=29, name="MGP", count=250_000),
        ],
        characters=[alt],
        sheets=default_sheets(),
        party=default_party(),
        vendors=default_vendors(),
        market=default_market(),
        retainers=default_retainers(),
        other_players=default_other_players(),
        gear=default_gear(),
        worlds=default_worlds(),
    )
    reconcile(world)  # the bags' stacks, laid out from the counts
    return world
