"""Which plugins XIV MCP's own tools use, and where each plugin is installed from.

Used by :mod:`gates.host.policy._dependencies` to tell a plugin developer (and the player) what a declared
built-in tool needs: ``needed`` plugins it cannot run without (state ``needs_plugin`` while one is
missing) and optional ones it only does better with, each with what XIV MCP does ``without`` it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from gates.contract import OFFICIAL_REPO

__all__ = ["BUILTIN_REQUIREMENTS", "KNOWN_PLUGINS", "KnownPlugin", "Requirement"]

"""Dalamud's main plugin repository, which needs no setup."""


@dataclass(frozen=True, slots=True)
class KnownPlugin:
    internal_name: str
    name: str
    repo: str


@dataclass(frozen=True, slots=True)
class Requirement:
    """A plugin a built-in tool uses: ``needed`` if the tool can't run without it, else what it does ``without``."""

    plugin: str
    needed: bool
    reason: str
    without: str | None = None


KNOWN_PLUGINS: Final[Mapping[str, KnownPlugin]] = MappingProxyType(
    {
        p.internal_name: p
        for p in (
            KnownPlugin("vnavmesh", "vnavmesh", "https://puni.sh/api/repository/veyn"),
            KnownPlugin(
                "Lifestream",
                "Lifestream",
                "https://raw.githubusercontent.com/NightmareXIV/MyDalamudPlugins/main/pluginmaster.json",
            ),
            KnownPlugin("AutoDuty", "AutoDuty", "https://puni.sh/api/repository/erdelf"),
            KnownPlugin("Artisan", "Artisan", "https://love.puni.sh/ment.json"),
            KnownPlugin(
                "GatherBuddyReborn",
                "GatherBuddy Reborn",
                "https://raw.githubusercontent.com/FFXIV-CombatReborn/CombatRebornRepo/main/pluginmaster.json",
            ),
            KnownPlugin("ItemVendorLocation", "Item Vendor Location", OFFICIAL_REPO),
            KnownPlugin("FCCH", "FCCH", "https://puni.sh/api/repository/nexai"),
            KnownPlugin("PennyPincher", "Penny Pincher", OFFICIAL_REPO),
            KnownPlugin("WaymarkPresetPlugin", "Waymark Preset Plugin", OFFICIAL_REPO),
        )
    }
)


def _travel(target: str) -> tuple[Requirement, Requirement]:
    return (
        Requirement(
            "vnavmesh",
            False,
            f"Walks to {target} for you.",
            f"XIV MCP puts a flag on your map at {target} and waits until you arrive.",
        ),
        Requirement(
            "Lifestream",
            False,
            f"Travels to {target}'s zone for you.",
            "XIV MCP flags the way and waits while you travel there yourself.",
        ),
    )


def _does_the_work(plugin: str, summary: str, *tools: str) -> dict[str, tuple[Requirement, ...]]:
    return {tool: (Requirement(plugin, True, f"Does the work: {summary}"),) for tool in tools}


_PENNY: Final = Requirement(
    "PennyPincher", False, "Undercuts with its settings (amount, rounding, minimum).", "XIV MCP undercuts by 1 gil."
)
_WAYMARKS_OPTIONAL: Final = Requirement(
    "WaymarkPresetPlugin", False, "Adds the presets in its library.", "Only the game's own 30 preset slots are used."
)

BUILTIN_REQUIREMENTS: Final[Mapping[str, tuple[Requirement, ...]]] = MappingProxyType(
    {
        "navigate_to": _travel("the destination"),
        "buy_item": (
            Requirement("ItemVendorLocation", True, "Finds the vendors that sell the item and where they stand."),
            *_travel("the vendor"),
        ),
        "turn_in_collectables": (
            Requirement("ItemVendorLocation", True, "Finds a Collectable Appraiser when none is nearby."),
            *_travel("the appraiser"),
        ),
        "place_waymark_preset": (
            Requirement(
                "WaymarkPresetPlugin", True, "Places presets from its library; the game's own slots work without it."
            ),
        ),
        "list_waymark_presets": (_WAYMARKS_OPTIONAL,),
        "get_waymark_preset": (_WAYMARKS_OPTIONAL,),
        "sell_item": (_PENNY,),
        "reprice_listings": (_PENNY,),
        **_does_the_work(
            "AutoDuty", "runs and loops duties.", "list_duties", "run_duty", "get_duty_status", "stop_duty"
        ),
        **_does_the_work(
            "Artisan",
            "crafts items and lists.",
            "get_crafting_lists",
            "set_crafting_list",
            "delete_crafting_list",
            "craft_item",
            "crafting_control",
            "run_crafting_list",
            "prepare_craft_plan",
        ),
        **_does_the_work(
            "GatherBuddyReborn",
            "gathers with its auto-gather lists.",
            "get_gather_lists",
            "set_gather_list",
            "delete_gather_list",
            "set_auto_gather",
            "gather_until",
        ),
        # A core tool that also works without: Lifestream travels, else the player does (ToolRequirements.cs).
        "visit_world": (
            Requirement(
                "Lifestream",
                False,
                "Travels to the world or data center for you.",
                "XIV MCP asks you to travel there with World Visit or Data Center Travel, and waits until you arrive.",
            ),
        ),
        **_does_the_work("ItemVendorLocation", "finds the NPCs that sell an item.", "find_vendors"),
        **_does_the_work("FCCH", "moves items in and out of the FC chest.", "fc_chest_transfer"),
    }
)
