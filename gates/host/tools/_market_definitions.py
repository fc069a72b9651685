"""The definitions of XIV MCP's market and retainer tools, with the real host's names, descriptions and schemas.

    market           get_market_listings buy_item sell_item request_spending_approval list_approvals
                     revoke_approval
    items_retainers  get_retainers get_retainer_inventories open_retainer close_retainer
                     transfer_retainer_items
    game_navigation  get_automation_status (which automation plugins XIV MCP holds back at the bell)

The texts are the real host's (`XivMcp/Tools/ShopTools.cs`, `MarketTools.cs`, `RetainerTools.cs`),
cut to what the simulated game has: no vendor-location plugin, Universalis, Penny Pincher, HQ
items or retainer caches. Capabilities are the real `BuiltInCapabilities`' (buy_item by tool,
sell_item by tool, the rest by their module's group), with `read_game` first as every core tool here.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._job_definitions import object_schema

__all__ = ["MARKET_DEFINITIONS", "MARKET_OUTPUT_SCHEMAS"]

_obj = object_schema
_READ: Final = ["read_game"]
_BUY: Final = ["read_game", "game_ui", "move_character", "spend_gil", "spend_currency"]
_SELL: Final = ["read_game", "game_ui", "trade_items"]
_SPEND: Final = ["read_game", "game_ui", "move_character", "spend_gil"]
"""The market group's capabilities (`BuiltInCapabilities.ByGroup`), for the approvals' tools."""
_RETAINERS: Final = ["read_game", "game_ui", "move_items"]
_ITEM: Final = {"type": "string", "description": "Item name or id."}
_RETAINER: Final = {"type": "string", "description": "Retainer name."}
_MARKET_GATE: Final = " Requires 'Market & purchases' in /xivmcp."
_ITEMS_GATE: Final = " Requires 'Items & retainers' in /xivmcp."

AUTOMATION_DEFINITION: Final = ToolDefinition(
    name="get_automation_status",
    description="The automation plugins XIV MCP works around, and what it pauses: AutoRetainer (busy, multi mode, "
    "suppressed, and whether XIV MCP suppressed it while it uses a summoning bell), YesAlready and TextAdvance "
    "(paused while XIV MCP drives windows), and whether XIV MCP holds the bell. Only loaded plugins are listed.",
    read_only=True,
    capabilities=_READ,
)

MARKET_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="get_market_listings",
        description="Your retainers' current market listings (item, quantity, price per unit) with when each "
        "retainer was last seen. compare=true adds the lowest competing price per item on the market board and "
        "flags listings that have been undercut.",
        input_schema=_obj(
            {
                "retainer": {"type": "string"},
                "compare": {"type": "boolean", "description": "Compare with the market board (default false)."},
            }
        ),
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="buy_item",
        description="Buys an item from an NPC vendor: picks a vendor (the current zone first, or the one you name), "
        "and buys the quantity like a player, from the vendor you stand at (walk there first with navigate_to "
        "destination=npc). Checks gil first and verifies what arrived. Gil shops buy directly. Any other shop "
        "(tomestones, scrips, seals, items) shows an approval popup in game, and only buys when the player clicks "
        "Approve." + _MARKET_GATE,
        input_schema=_obj(
            {
                "item": _ITEM,
                "quantity": {"type": "integer", "description": "How many to buy."},
                "npc": {
                    "type": "string",
                    "description": "Vendor NPC name; default: a vendor that sells it, current zone first.",
                },
                "menu_option": {
                    "type": "string",
                    "description": "Text of the NPC menu entry that opens the right shop (each vendor here has one).",
                },
                "approval": {
                    "type": "string",
                    "description": "Id of a standing approval (request_spending_approval) to use instead of asking "
                    "per purchase; it caps what can be spent.",
                },
            },
            ("item", "quantity"),
        ),
        capabilities=_BUY,
    ),
    ToolDefinition(
        name="sell_item",
        description="Puts an item up for sale on the market board through a retainer, from your bags (one call = "
        "one listing). Without 'price' it undercuts the cheapest competing listing on the market board (never "
        "your own retainers) by 1 gil. You must stand at a summoning bell." + _MARKET_GATE,
        input_schema=_obj(
            {
                "retainer": {"type": "string"},
                "item": _ITEM,
                "quantity": {"type": "integer", "description": "How many (default: all in your bags)."},
                "hq": {"type": "boolean", "description": "Sell the HQ stack (the simulated game has none)."},
                "price": {"type": "integer", "description": "Price per unit; omit to undercut the market."},
                "allow_low_price": {
                    "type": "boolean",
                    "description": "Accepted as the real host does; there are no Universalis averages to check here.",
                },
            },
            ("retainer", "item"),
        ),
        capabilities=_SELL,
    ),
    ToolDefinition(
        name="get_retainers",
        description="The character's retainers: name, class/job, level, gil, item and market listing counts.",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="get_retainer_inventories",
        description="Inventories of the character's retainers: items and market listings (with prices). Filter by "
        "retainer name and/or item name.",
        input_schema=_obj(
            {
                "retainer": {"type": "string", "description": "Retainer name (default: all retainers)."},
                "query": {"type": "string", "description": "Only items whose name contains this text."},
                "include_market": {
                    "type": "boolean",
                    "description": "Include market board listings (default true).",
                },
            }
        ),
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="open_retainer",
        description="Calls a retainer at the summoning bell you stand at and opens its inventory; another retainer "
        "that was open is closed first." + _ITEMS_GATE,
        input_schema=_obj({"retainer": _RETAINER}, ("retainer",)),
        capabilities=_RETAINERS,
    ),
    ToolDefinition(
        name="close_retainer",
        description="Closes the currently open retainer and returns to the retainer list." + _ITEMS_GATE,
        capabilities=_RETAINERS,
    ),
    ToolDefinition(
        name="transfer_retainer_items",
        description="Moves items between retainers, or between a retainer and the player's bags, at a summoning "
        'bell. Each transfer is { item_id, from, to } where from/to is a retainer name or "player"; the whole '
        "count of that item moves. Retainer-to-retainer goes through the player's bags. Transfers run in order and "
        "stop at the first that fails." + _ITEMS_GATE,
        input_schema=_obj(
            {
                "transfers": {
                    "type": "array",
                    "description": "Transfers, executed in order (max 50).",
                    "items": _obj(
                        {
                            "item_id": {"type": "integer"},
                            "from": {"type": "string", "description": 'Retainer name or "player".'},
                            "to": {"type": "string", "description": 'Retainer name or "player".'},
                        },
                        ("item_id", "from", "to"),
                    ),
                },
                "close_when_done": {
                    "type": "boolean",
                    "description": "Close the last opened retainer at the end (default true).",
                },
            },
            ("transfers",),
        ),
        capabilities=_RETAINERS,
    ),
    ToolDefinition(
        name="request_spending_approval",
        description="Asks the player once, in game, to approve spending up to an amount of a currency (e.g. 4,000 "
        "Orange Crafters' Scrip), optionally only on given items, for a while (default 24 h) — a standing approval "
        "for a job that buys repeatedly. Waits for the answer (up to 2 minutes). Pass the returned id as 'approval' "
        "to buy_item: purchases then don't ask again but never spend more than approved (each purchase's real cost "
        "is counted). The player can revoke it in /xivmcp → Jobs." + _MARKET_GATE,
        input_schema=_obj(
            {
                "currency": {
                    "type": "string",
                    "description": 'Currency name or item id, e.g. "Orange Crafters\' Scrip".',
                },
                "max_amount": {"type": "integer", "description": "Most that may be spent in total."},
                "items": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Only these items may be bought (optional).",
                },
                "purpose": {
                    "type": "string",
                    "description": 'Shown to the player, e.g. "Tacos scrip farm: buy materia".',
                },
                "valid_hours": {"type": "integer", "description": "Default 24."},
            },
            ("currency", "max_amount"),
        ),
        capabilities=_SPEND,
    ),
    ToolDefinition(
        name="list_approvals",
        description="Standing spending approvals: currency, approved and spent amount, items, expiry and state "
        "(active, used up, expired, revoked).",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="revoke_approval",
        description="Revokes a standing spending approval right away.",
        input_schema=_obj({"id": {"type": "string"}}, ("id",)),
        capabilities=_SPEND,
    ),
    AUTOMATION_DEFINITION,
)

_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_LIST: Final = {"type": "array"}

MARKET_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "buy_item": _obj(
        {
            "bought": _INT,
            "requested": _INT,
            "item": _STR,
            "from": _STR,
            "paidWith": _STR,
            "gilSpent": {"type": ["integer", "null"]},
            "nowInBags": _INT,
            "steps": _LIST,
        },
        ("bought", "requested", "item", "from", "nowInBags", "steps"),
    ),
    "sell_item": _obj(
        {"retainer": _STR, "item": _STR, "quantity": _INT, "outcome": {"type": "object"}, "steps": _LIST},
        ("retainer", "item", "quantity", "outcome", "steps"),
    ),
    "get_automation_status": _obj({"plugins": {"type": "object"}, "holdingBell": {"type": "boolean"}}, ("plugins",)),
    "open_retainer": _obj({"opened": {"type": ["string", "null"]}}, ("opened",)),
    "close_retainer": _obj({"closed": {"type": ["string", "null"]}}, ("closed",)),
    "transfer_retainer_items": _obj(
        {"completed": _INT, "requested": _INT, "results": _LIST}, ("completed", "requested", "results")
    ),
}
"""Output schemas of the tools whose results are fixed objects (the listings are bare lists, as the real host's)."""
