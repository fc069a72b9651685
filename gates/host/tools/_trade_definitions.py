"""The definitions of XIV MCP's trading tools (module trading), with the real host's names, descriptions and schemas.

    trading   get_trade trade_with_player cancel_trade

The texts and the input schema are the real host's (`XivMcp/Tools/TradeTools.cs`). Capabilities
are the real `BuiltInCapabilities`' trading group (`game_ui`, `trade_items`; get_trade reads),
with `read_game` first as every core tool here; trade_with_player is destructive, as in the real host.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

from ._job_definitions import object_schema

__all__ = ["TRADE_DEFINITIONS", "TRADE_OUTPUT_SCHEMAS"]

_obj = object_schema
_READ: Final = ["read_game"]
_TRADE: Final = ["read_game", "game_ui", "trade_items"]
_OFFER: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "item": {"type": "string", "description": "Name or item id."},
                    "quantity": {"type": "integer", "minimum": 1},
                    "hq": {"type": "boolean", "description": "High quality (default: normal quality)."},
                },
                "required": ["item"],
            },
        },
        "gil": {"type": "integer", "minimum": 0, "maximum": 1000000},
    },
}

TRADE_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="get_trade",
        description="The trade window, if one is open: the other player, what each side offers (items and gil), "
        "and whether each side has pressed Trade.",
        read_only=True,
        capabilities=_READ,
    ),
    ToolDefinition(
        name="trade_with_player",
        description="Trades items and gil with a player standing nearby: sends the trade request, waits for them to "
        "accept, puts 'give' into the trade window, waits until they have put in their side and pressed Trade, then "
        "asks the player in game to approve the trade with exactly what both sides hold, and completes it. With "
        "'receive', the trade is stopped unless the other side holds at least that. The window is checked again "
        "right before the final confirmation; anything that changed stops the trade. Every trade asks in game; that "
        "cannot be turned off. At most 5 stacks and 1,000,000 gil per side. Requires 'Trading' in /xivmcp.",
        input_schema={
            "type": "object",
            "properties": {
                "player": {
                    "type": "string",
                    "description": "The other player's name, as shown over their head; they must be within a few "
                    "yalms.",
                },
                "give": {"$ref": "#/$defs/offer"},
                "receive": {
                    "$ref": "#/$defs/offer",
                    "description": "What you expect in return (at least). Leave out for a gift.",
                },
                "timeout_seconds": {
                    "type": "integer",
                    "minimum": 30,
                    "maximum": 600,
                    "description": "How long to wait for the other player at each step (default 120).",
                },
            },
            "required": ["player"],
            "$defs": {"offer": _OFFER},
        },
        destructive=True,
        capabilities=_TRADE,
    ),
    ToolDefinition(
        name="cancel_trade",
        description="Cancels the open trade window or trade request. Nothing changes hands.",
        capabilities=_TRADE,
    ),
)

_STR: Final = {"type": "string"}
_TEXT: Final = {"type": ["string", "null"]}
_BOOL: Final = {"type": "boolean"}

TRADE_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "get_trade": _obj(
        {
            "trading": _BOOL,
            "with": _TEXT,
            "give": _TEXT,
            "receive": _TEXT,
            "youPressedTrade": _BOOL,
            "theyPressedTrade": _BOOL,
        },
        ("trading", "with", "give", "receive", "youPressedTrade", "theyPressedTrade"),
    ),
    "trade_with_player": _obj(
        {"traded": _BOOL, "with": _STR, "gave": _STR, "received": _STR}, ("traded", "with", "gave", "received")
    ),
    "cancel_trade": _obj({"cancelled": _BOOL}, ("cancelled",)),
}
