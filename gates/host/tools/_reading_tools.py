"""The handlers of the reading tools of `game_data` that this issue added (W5), gathered for the host.

    CharacterTools   get_class_jobs get_equipment list_gearsets get_active_quests get_aetherytes
    Surroundings     get_party get_targets get_nearby_objects get_weather_forecast
    PluginList       list_plugins

Their definitions are `_reading_definitions.READING_DEFINITIONS`.
"""

from __future__ import annotations

from ..policy._installed import InstalledPlugins
from ._args import ToolHandler
from ._character_tools import CharacterTools
from ._game_tools import GameAccess
from ._plugin_list import PluginList
from ._surroundings import Surroundings

__all__ = ["reading_handlers"]


def reading_handlers(game: GameAccess, installed: InstalledPlugins) -> dict[str, ToolHandler]:
    """The handlers, over the host's one `GameAccess` and its installed plugins (F2)."""
    return {**CharacterTools(game).handlers(), **Surroundings(game).handlers(), **PluginList(installed).handlers()}
