"""The simulated game's JSON documents, as msgspec Structs with the wire's camelCase names.

The world (`World`) is what `--world FILE.json` loads and `Game.Save` writes; `GameSnapshot` is
what XIV MCP reads around a third-party call (the real host's `GameSnapshot` fields); `Change`
is one recorded change of the world: which process made it, the capability it needs, and what
it did to the snapshot's fields (`SnapshotDelta`), so a reader can tell whose doing an effect was.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from ._gear_documents import GearInfo
from ._sheet import CharacterSheet
from ._shop_documents import MarketListing, Retainer, Vendor
from ._trade_documents import TradeGoods, TradeWindow
from ._travel_documents import DutyState, GameWorld
from ._weather import WeatherRate

__all__ = [
    "Aetheryte",
    "BagStack",
    "Change",
    "ChangesReply",
    "ChatLine",
    "Currency",
    "GameReply",
    "GameSnapshot",
    "InventoryItem",
    "ItemInfo",
    "MapFlag",
    "MapInfo",
    "MenuOption",
    "Movement",
    "OtherPlayer",
    "PartyMember",
    "PlayerInfo",
    "PositionInfo",
    "SnapshotDelta",
    "SnapshotReply",
    "Vec3",
    "Window",
    "World",
    "WorldObject",
    "Zone",
]


class _Doc(msgspec.Struct, rename="camel", kw_only=True):
    """Base of the game's documents: snake_case in Python, camelCase on the wire."""


class Vec3(_Doc):
    """A world position in yalms: X east, Y up, Z south."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


class MapInfo(_Doc):
    """What converting between world and map coordinates needs from a zone's map (A11)."""

    size_factor: int = 100
    """100 for most field maps, 200 for cities."""
    offset_x: int = 0
    offset_y: int = 0


class Aetheryte(_Doc):
    """An aetheryte of a zone: a teleport destination, by name or id."""

    id: int
    name: str
    position: Vec3
    cost: int = 0
    """Gil a teleport here costs (0: free, such as the home point)."""


class MenuOption(_Doc):
    """An entry of an object's menu (the game's SelectString), and what choosing it opens."""

    text: str
    question: str = ""
    """A Yes/No dialog (SelectYesno) choosing it asks, with this text; "" none."""
    says: str = ""
    """A line of dialogue (Talk) choosing it shows, waiting for a click; "" none."""


class WorldObject(_Doc):
    """Something that stands in a zone and can be walked to by name: an NPC, a summoning bell, ..."""

    name: str
    kind: str
    """"npc", "summoning_bell", "company_chest", "voyage_panel", "fishing_spot" or "object" (anything
    else one can walk up to)."""
    position: Vec3
    object_kind: str | None = None
    """The game's ObjectKind ("BattleNpc", "EventNpc", "EventObj", ...); None: EventNpc for an npc, else EventObj."""
    level: int = 0
    """A character's (BattleNpc, EventNpc): its level."""
    hp: int = 0
    """A character's: its HP (always full)."""
    spot: int = 0
    """A fishing spot's id (the game's FishingSpot row), by which navigate_to finds it too."""
    menu: list[MenuOption] = []
    """What interacting with it offers (a SelectString menu); none: it opens `opens`, if anything."""
    opens: str = ""
    """The window interacting with it opens when it has no menu ("FreeCompanyChest", ...)."""


class Zone(_Doc):
    """A zone of the world (a territory): its map, its aetherytes, what stands in it, its weather."""

    territory: int
    name: str
    map: MapInfo = msgspec.field(default_factory=MapInfo)
    aetherytes: list[Aetheryte] = []
    objects: list[WorldObject] = []
    """What stands in the zone (XIV MCP's navigate_to walks to them by name)."""
    place: Literal["", "inn", "home", "fc_house", "apartment", "workshop"] = ""
    """What kind of place the zone is: "" a town or field; "inn" an inn room; the others the
    character's own housing interiors (a world without a "home" zone: the character has no house)."""
    weather: list[WeatherRate] = []
    """The zone's weathers and their chances in percent, adding up to 100 (none: no weather of its own)."""


class ItemInfo(_Doc):
    """An item of the game's catalog: what a vendor sells it for (0: not sold) and buys it back for."""

    item_id: int
    name: str
    price: int = 0
    sell_price: int = 0
    currency: int = 1
    """What a vendor takes for it: 1 is gil, any other id one of the player's currencies."""
    stack_size: int = 999
    """The most of it one bag slot holds."""


class InventoryItem(_Doc):
    """An item in the character's bags, all its stacks counted together."""

    item_id: int
    name: str
    count: int


class BagStack(_Doc):
    """One stack in the character's bags: a slot (0-34) of a bag (Inventory1-4) and what it holds."""

    container: str
    slot: int
    item_id: int
    count: int


class Currency(_Doc):
    """A currency other than gil (tomestones, Wolf Marks, MGP, …), and how much of it the character has."""

    id: int
    name: str
    count: int


class Window(_Doc):
    """An open game window; a Yes/No dialog (`kind` "yesno") waits for an answer."""

    name: str
    kind: Literal["window", "yesno"] = "window"
    text: str = ""
    opened_by: str = ""
    menu: list[str] = []
    """A menu's (SelectString) entries."""
    about: str = ""
    """The object whose menu or dialog it is (Game.Interact opened it)."""


class MapFlag(_Doc):
    """The flag on the player's map: its zone, map coordinates and world position."""

    territory: int
    zone: str
    x: float
    y: float
    world: Vec3
    name: str | None = None


class ChatLine(_Doc):
    """A line of chat: its channel, its text, who said it and at what game time (seconds)."""

    channel: str
    text: str
    by: str
    at: float


class Movement(_Doc):
    """The character walking to `destination` at `speed` yalms per second, since `started_at`."""

    origin: Vec3
    destination: Vec3
    speed: float
    started_at: float
    by: str


class PlayerInfo(_Doc):
    """A character of the account: who it is, where it stands, its job, gil, target and combat."""

    name: str = "Wuk Lamat"
    world: str = "Ravana"
    world_id: int = 74
    content_id: int = 18014449511251234
    logged_in: bool = True
    territory: int = 1185
    position: Vec3 = msgspec.field(default_factory=Vec3)
    job: str = "Warrior"
    level: int = 100
    gil: int = 100_000
    target: str | None = None
    in_combat: bool = False
    current_world: str | None = None
    """The world it visits (None: its home world, `world`)."""
    current_world_id: int | None = None


class PartyMember(_Doc):
    """Another player in the character's party, wherever they are."""

    name: str
    world: str
    world_id: int
    job: str
    """An abbreviation ("WHM") or a name of the game's classes and jobs."""
    level: int
    territory: int
    content_id: int = 0
    position: Vec3 = msgspec.field(default_factory=Vec3)
    max_hp: int = 0
    max_mp: int = 10_000
    leader: bool = False
    """The party's leader (none: the character leads)."""


class OtherPlayer(_Doc, kw_only=True):
    """Another player standing in a zone, not of the account nor in the party: someone to trade with.

    How they answer a trade request is the world file's (`trades`): accept, then put `offers` into
    their side of the window and press Trade, or decline."""

    name: str
    world: str = "Ravana"
    territory: int
    position: Vec3 = msgspec.field(default_factory=Vec3)
    trades: Literal["accept", "decline"] = "accept"
    offers: TradeGoods = msgspec.field(default_factory=TradeGoods)


class World(_Doc):
    """The whole simulated world: what a world file holds and `Game.Save` writes."""

    seed: int = 0
    time: float = 0.0
    """The game clock, in seconds (a test clock starts here; a real one counts on from it)."""
    walk_speed: float = 6.0
    """Yalms per second on foot."""
    player: PlayerInfo = msgspec.field(default_factory=PlayerInfo)
    zones: list[Zone] = []
    items: list[ItemInfo] = []
    inventory: list[InventoryItem] = []
    bags: list[BagStack] = []
    """Where `inventory`'s items lie, stack by stack (`_bags`); derived from the counts when absent."""
    currencies: list[Currency] = []
    flag: MapFlag | None = None
    windows: list[Window] = []
    chat: list[ChatLine] = []
    movement: Movement | None = None
    characters: list[PlayerInfo] = []
    """Other characters of the account, for logging in as another one (`login` with a name)."""
    chat_sent: int = 0
    """Chat lines the player has sent (the snapshot's `chat_sent`); `chat` keeps only the newest."""
    sheets: list[CharacterSheet] = []
    """What each character has grown into (classes and jobs, gear, gearsets, quests), by content id."""
    party: list[PartyMember] = []
    """The other members of the character's party, at most 7 (none: not in a party)."""
    vendors: list[Vendor] = []
    """Who sells what, and for how much (`_shop_documents`)."""
    market: list[MarketListing] = []
    """Other players' listings on the market board."""
    retainers: list[Retainer] = []
    """The account's retainers, with what they hold and sell."""
    retainer_open: str | None = None
    """The retainer the character called at a summoning bell, until it is dismissed or the character leaves."""
    other_players: list[OtherPlayer] = []
    """Other players standing in the zones, to trade with (`_trade`)."""
    trade: TradeWindow | None = None
    """The trade window, while a trade is open."""
    gear: list[GearInfo] = []
    """Which catalog items are gear, and where and by whom they are worn (`_equip`)."""
    worlds: list[GameWorld] = []
    """The public worlds, each on its data centre (`_travel_documents`); none: the home worlds alone."""
    duty: DutyState | None = None
    """The duty the character is in (None: none)."""


class GameSnapshot(_Doc):
    """What XIV MCP can observe about the game around a call (the real host's `GameSnapshot`)."""

    logged_in: bool
    content_id: int
    territory: int
    world: int
    gil: int
    currencies: dict[int, int]
    item_total: int
    chat_sent: int


class SnapshotDelta(_Doc, omit_defaults=True):
    """What one change did to a snapshot: amounts added (negative: removed), or the new value."""

    gil: int = 0
    currencies: dict[int, int] = {}
    item_total: int = 0
    chat_sent: int = 0
    territory: int | None = None
    world: int | None = None
    logged_in: bool | None = None
    content_id: int | None = None


class Change(_Doc):
    """One change of the world, by the process that made it, with the capability it needs."""

    seq: int
    at: float
    by: str
    capability: str
    kind: str
    """What changed, one of: `chat`, `combat`, `currency`, `duty`, `flag`, `gearset`, `gil`, `items`,
    `login`, `position`, `retainer`, `settings`, `target`, `trade`, `window`, `world`, `zone`."""
    summary: str
    delta: SnapshotDelta = msgspec.field(default_factory=SnapshotDelta)


class GameReply(_Doc, omit_defaults=True):
    """Every game gate's reply: `{"ok": true, ...}` or `{"ok": false, "error": "..."}`."""

    ok: bool
    error: str | None = None


class SnapshotReply(_Doc):
    """`Game.Snapshot`: what XIV MCP can observe now, and the seq of the newest change."""

    ok: bool
    snapshot: GameSnapshot
    seq: int
    """The seq of the newest change so far: `Game.Changes` since it gives what came after."""


class ChangesReply(_Doc):
    """`Game.Changes`: the changes after `since` (oldest first), the snapshot now and the newest seq."""

    ok: bool
    snapshot: GameSnapshot
    seq: int
    changes: list[Change]
    complete: bool = True
    """False when older changes were dropped (the log is bounded): the list starts later than asked.
    Also False when `since` is newer than `seq` (a game started again since: its log is a new one)."""
    more: bool = False
    """True when the list stops before `seq` (the limit, or the size a reply may have on the bus):
    ask again with `since` set to the last change's seq."""


class PositionInfo(_Doc):
    """Where the character is: zone, world position, map coordinates, and where it walks to if it does."""

    territory: int
    zone: str
    position: Vec3
    map_x: float
    map_y: float
    moving: bool
    destination: Vec3 | None = None
