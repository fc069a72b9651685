"""XIV MCP's tool of the module `screen`: take_screenshot, a picture of the simulated game window.

The definition (arguments, description, readOnly, `read_game`) and the result are the real host's
(`XivMcp/Tools/XivMcpWindowTools.cs`): the data `{area, captured, image, gameWindow}` as the text,
then the caption "The game screen." and the PNG, which the MCP front sends as an image content
(`McpServer.CallTool`). The module's reading mode asks the player by default, as in the game.

What the picture shows is read from the game (`_screen_picture` draws it): the current zone with
its objects, the map flag and the character, and the open game windows. The simulator has no XIV
MCP window and no activity overlay, so the areas `xivmcp` and `overlay` refuse with the real
host's words for a window that is not shown. Taking a screenshot changes nothing.
"""

from __future__ import annotations

from typing import Any, Final

from game import GameObject, MapFlag, Window, Zone, to_map
from gates.contract import RefusedError, ToolDefinition

from ..base._call_outcome import CallOutcome, ToolImage
from ._args import ToolArgs, ToolHandler
from ._game_definitions import MAIN_WINDOWS, text_arg
from ._game_tools import GameAccess
from ._job_definitions import object_schema
from ._reading_definitions import whole_number
from ._screen_picture import Marker, Screen, ShownWindow, draw, fit_width, png

__all__ = ["SCREEN_DEFINITIONS", "SCREEN_OUTPUT_SCHEMAS", "ScreenTools", "screen_png"]

AREAS: Final = ("game", "xivmcp", "overlay")
CAPTIONS: Final = {"game": "The game screen.", "xivmcp": "The XIV MCP window.", "overlay": "The activity overlay."}
MAX_WIDTH_DEFAULT: Final = 1600
MAX_WIDTH_LOW: Final = 320
MAX_WIDTH_HIGH: Final = 3840
NO_XIVMCP_WINDOW: Final = "The XIV MCP window is not open. Open it with show_xivmcp_window first."
NO_OVERLAY: Final = "The overlay is not shown: nothing is running (or it is turned off in /xivmcp → Overlay)."
_MENU_NAMES: Final = {window.addon: window.name for window in MAIN_WINDOWS}

SCREEN_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="take_screenshot",
        description="Takes a screenshot of the game, with plugin windows on it, and returns it as an image: the whole "
        "game window (area 'game', the default), only XIV MCP's own window (area 'xivmcp', which must be open; see "
        "show_xivmcp_window), or only the activity overlay (area 'overlay', shown while a tool call or job runs). "
        "Use it to see what the player sees, or to check XIV MCP's window. The screen can show chat, tells and other "
        "players' names, so only describe what the player asked about. Large screenshots are scaled down to "
        "'max_width' pixels across. Follows the 'Screen' setting in /xivmcp, which asks the player by default. "
        "The simulated game window is 512 by 512 pixels: the zone's map with the character, the map flag and what "
        "stands there, and the open game windows; it has no XIV MCP window or overlay to capture.",
        input_schema=object_schema(
            {
                "area": {"type": "string", "enum": list(AREAS), "description": "What to capture (default game)."},
                "max_width": {
                    "type": "integer",
                    "minimum": MAX_WIDTH_LOW,
                    "maximum": MAX_WIDTH_HIGH,
                    "description": "Scale down to at most this width in pixels (default 1600).",
                },
            }
        ),
        read_only=True,
        capabilities=["read_game"],
    ),
)

_SIZE: Final = object_schema({"width": {"type": "integer"}, "height": {"type": "integer"}}, ("width", "height"))
SCREEN_OUTPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "take_screenshot": object_schema(
        {"area": {"type": "string"}, "captured": _SIZE, "image": _SIZE, "gameWindow": _SIZE},
        ("area", "captured", "image", "gameWindow"),
    )
}
"""The data's shape (the simulator's extension: outputSchema); the PNG goes as an image content."""


def _marker(zone: Zone, thing: GameObject) -> Marker:
    x, y = to_map(zone.map, thing.position.x, thing.position.z)
    return Marker(name=thing.name, kind=thing.kind, x=x, y=y)


def _shown(window: Window) -> ShownWindow:
    title = _MENU_NAMES.get(window.name, window.name)
    return ShownWindow(title=title, text=window.text, yes_no=window.kind == "yesno")


class ScreenTools:
    """The handler of take_screenshot, over the host's one `GameAccess`."""

    def __init__(self, game: GameAccess) -> None:
        self.game = game

    def handlers(self) -> dict[str, ToolHandler]:
        return {"take_screenshot": self._take}

    async def _take(self, args: ToolArgs, _: Any) -> CallOutcome:
        area = text_arg(args, "area") or "game"
        if area not in AREAS:
            raise RefusedError("area must be game, xivmcp or overlay.")
        max_width = whole_number(args, "max_width", MAX_WIDTH_DEFAULT, MAX_WIDTH_LOW, MAX_WIDTH_HIGH)
        if area == "xivmcp":
            raise RefusedError(NO_XIVMCP_WINDOW)
        if area == "overlay":
            raise RefusedError(NO_OVERLAY)
        shot = draw(await self.screen())
        scaled = fit_width(shot, max_width)
        (width, height), (shown_width, shown_height) = shot.size, scaled.size
        data = {
            "area": area,
            "captured": {"width": width, "height": height},
            "image": {"width": shown_width, "height": shown_height},
            "gameWindow": {"width": width, "height": height},
        }
        return CallOutcome(result=data, images=(ToolImage(png(scaled), CAPTIONS[area]),))

    async def screen(self) -> Screen:
        """What the game window shows now, read from the game."""
        client = self.game.client
        me = (await self.game.call(client.player())).player
        windows = tuple(_shown(w) for w in await self.game.call(client.windows()))
        if not me.logged_in:
            return Screen(windows=windows)
        zone = await self.game.zone(None, me.territory)
        table = await self.game.call(client.objects())
        flag: MapFlag | None = await self.game.call(client.flag())
        return Screen(
            zone=zone.name,
            territory=zone.territory,
            character=me.name,
            position=to_map(zone.map, table.position.x, table.position.z),
            markers=tuple(_marker(zone, thing) for thing in table.objects),
            flag=(flag.x, flag.y) if flag is not None and flag.territory == zone.territory else None,
            windows=windows,
        )


async def screen_png(game: GameAccess) -> bytes:
    """The simulated game window as a PNG, as take_screenshot would capture it now (the console's
    Game tab shows it to the player; nothing is audited, as the player looking at their screen)."""
    return png(draw(await ScreenTools(game).screen()))
