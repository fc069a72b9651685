"""The simulated game: a peer on the bus with a world to act on, and a client for plugins (W1-W3, A11).

    game/                 what it holds
    _documents, _replies  the world, the snapshot, a change, every gate's reply (msgspec Structs)
    _engine               the world's state; `record` is the one way it changes (W2)
    _moving, _goods,      what each changing gate does, checked before anything changes
    _social, _setting
    _reading              what each reading gate answers
    _roster, _sheet       the character's sheet, its party and the object table around it
    _trade, _equip,       the trade window with other players, putting on gear, gil at a
    _retainer_gil         retainer (their documents in `_trade_documents`, `_gear_documents`)
    _gearsets, _duties,   equipping a gearset, entering and leaving a duty, the account's characters
    _travel               and the worlds they visit (`_travel_documents`, `_default_worlds`)
    _classjobs, _weather  game data: the classes and jobs, the weather and its forecast
    _gates, _peer         the gates on the bus (`Game.*`), the process (`python -m game`)
    _admin                the admin gates' check: they answer only the player key (F4)
    _client               `GameClient`, the gates as typed async methods
    _maps                 map and world coordinates (A11)
    _world_file, _default_world   world files, and the world built in code

It imports only the standard library, msgspec, anyio, `broker`'s API and `gates.contract` (for
the capability ids): never the host, the MCP front or sqlite, so a plugin can import the client.
"""

from ._args import TradeItem
from ._bag_layout import BAG_SLOTS, BAGS
from ._bags import MoveItemsReply
from ._changes import replay
from ._classjobs import CLASS_JOBS, MAX_LEVEL, ClassJob, exp_to_next, find_class_job, shares_level
from ._client import GameClient, JsonValue
from ._default_world import default_world
from ._documents import (
    Aetheryte,
    BagStack,
    Change,
    ChangesReply,
    ChatLine,
    Currency,
    GameReply,
    GameSnapshot,
    InventoryItem,
    ItemInfo,
    MapFlag,
    MapInfo,
    MenuOption,
    Movement,
    OtherPlayer,
    PartyMember,
    PlayerInfo,
    PositionInfo,
    SnapshotDelta,
    SnapshotReply,
    Vec3,
    Window,
    World,
    WorldObject,
    Zone,
)
from ._equip import EquipReply
from ._errors import GameError, GameUnavailableError, WorldFileError
from ._gear_documents import RING, GearInfo
from ._maps import arrived, ground_distance, to_map, to_world, yalms_per_map_unit
from ._market import INTERACT_REACH, MarketReply, VendorsReply
from ._names import ADMIN_GATES, CHANGED_MESSAGE, GAME_NAME, RESET_MESSAGE, GameGate
from ._peer import GameConfig, add_game_options, run_game, serve_game
from ._reading import CHANGES_LIMIT
from ._replies import (
    AdminHelloReply,
    ChangeReply,
    ChatReply,
    ClockReply,
    CurrenciesReply,
    FlagReply,
    InventoryReply,
    ItemsReply,
    MoveReply,
    PlayerReply,
    PositionReply,
    ResetReply,
    SaveReply,
    StateReply,
    StopReply,
    TimeReply,
    WindowsReply,
    ZonesReply,
)
from ._retainers import RetainersReply
from ._roster import (
    CHARACTER_KINDS,
    OBJECT_KINDS,
    GameObject,
    ObjectsReply,
    PartyReply,
    SheetReply,
    player_entity_id,
)
from ._setting import SET_PATHS
from ._sheet import EQUIP_SLOTS, CharacterSheet, ClassJobLevel, EquippedItem, Gearset, Glamour, QuestState, Stain
from ._shop_documents import MarketListing, Retainer, RetainerItem, Vendor, VendorItem
from ._trade import TRADE_RANGE, TradeReply, TradeRequestReply
from ._trade_documents import MAX_TRADE_GIL, MAX_TRADE_STACKS, TradeGoods, TradeStack, TradeWindow
from ._travel import CharactersReply
from ._travel_documents import DutyState, GameWorld
from ._weather import (
    PERIOD_SECONDS,
    WeatherPeriod,
    WeatherRate,
    eorzea_clock,
    eorzea_hour,
    period_start,
    weather_at,
    weather_periods,
)
from ._world_file import load_world, save_world

__all__ = [
    "GameWorld",
    "DutyState",
    "CharactersReply",
    "ADMIN_GATES",
    "CHANGED_MESSAGE",
    "CHANGES_LIMIT",
    "CHARACTER_KINDS",
    "CLASS_JOBS",
    "EQUIP_SLOTS",
    "GAME_NAME",
    "MAX_LEVEL",
    "OBJECT_KINDS",
    "PERIOD_SECONDS",
    "RESET_MESSAGE",
    "SET_PATHS",
    "AdminHelloReply",
    "Aetheryte",
    "Change",
    "ChangeReply",
    "ChangesReply",
    "CharacterSheet",
    "ChatLine",
    "ChatReply",
    "ClassJob",
    "ClassJobLevel",
    "ClockReply",
    "CurrenciesReply",
    "Currency",
    "EquippedItem",
    "FlagReply",
    "GameClient",
    "GameConfig",
    "GameError",
    "GameGate",
    "GameObject",
    "GameReply",
    "GameSnapshot",
    "GameUnavailableError",
    "Gearset",
    "Glamour",
    "InventoryItem",
    "InventoryReply",
    "ItemInfo",
    "ItemsReply",
    "JsonValue",
    "MapFlag",
    "MapInfo",
    "MenuOption",
    "MoveReply",
    "Movement",
    "ObjectsReply",
    "PartyMember",
    "PartyReply",
    "PlayerInfo",
    "PlayerReply",
    "PositionInfo",
    "PositionReply",
    "QuestState",
    "ResetReply",
    "SaveReply",
    "SheetReply",
    "SnapshotDelta",
    "SnapshotReply",
    "Stain",
    "StateReply",
    "StopReply",
    "TimeReply",
    "TradeItem",
    "Vec3",
    "WeatherPeriod",
    "WeatherRate",
    "Window",
    "WindowsReply",
    "World",
    "WorldFileError",
    "WorldObject",
    "Zone",
    "ZonesReply",
    "add_game_options",
    "arrived",
    "default_world",
    "eorzea_clock",
    "eorzea_hour",
    "exp_to_next",
    "find_class_job",
    "ground_distance",
    "load_world",
    "period_start",
    "player_entity_id",
    "replay",
    "run_game",
    "save_world",
    "serve_game",
    "shares_level",
    "to_map",
    "to_world",
    "weather_at",
    "weather_periods",
    "yalms_per_map_unit",
]
__all__ += [  # vendors, the market board and retainers
    "INTERACT_REACH",
    "MarketListing",
    "MarketReply",
    "Retainer",
    "RetainerItem",
    "RetainersReply",
    "Vendor",
    "VendorItem",
    "VendorsReply",
]

__all__ += ["RING", "EquipReply", "GearInfo"]  # gear, and putting it on
__all__ += ["BAGS", "BAG_SLOTS", "BagStack", "MoveItemsReply"]  # where the items in the bags lie
__all__ += [  # other players and the trade window
    "MAX_TRADE_GIL",
    "MAX_TRADE_STACKS",
    "TRADE_RANGE",
    "OtherPlayer",
    "TradeGoods",
    "TradeReply",
    "TradeRequestReply",
    "TradeStack",
    "TradeWindow",
]
