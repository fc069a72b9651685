"""The simulated game's screen as a picture: what take_screenshot captures (module `screen`).

The real host captures the game window's pixels (`XivMcp/Util/ScreenCapture.cs`). The simulated
game has no pixels, so this draws what a player would see of it, from what the game says:

    the zone's map     map coordinates 1 to 42 across the whole window, a grid line every unit,
                       a stronger one every 5, the zone's name and the character's coordinates on top
    what stands there  the zone's objects, aetherytes and party members (`Game.GetObjects`), a
                       marker and a name each, coloured by kind
    the map flag       when it is in this zone: a red flag at its coordinates
    the character      a white disc at its map coordinates, drawn over everything of the map
    open windows       one panel each on the right, named (a main menu window by its menu name);
                       a Yes/No dialog with its text and its two buttons
    logged out         the title screen, with the windows still open

`draw` is a pure function of a `Screen`: the same world gives the same picture, and `png` the same
bytes (Pillow's PNG encoder has no timestamp or random part). The window is `SCREEN_SIZE` pixels
square, so a screenshot stays a small PNG (the real game window is usually 1600 to 3840 across).
"""

from __future__ import annotations

import colorsys
import io
from dataclasses import dataclass, field
from typing import Final

from PIL import Image, ImageDraw, ImageFont

__all__ = ["CHARACTER_COLOUR", "SCREEN_SIZE", "Marker", "Screen", "ShownWindow", "draw", "fit_width", "pixel_of", "png"]

MAP_MIN: Final = 1.0
MAP_MAX: Final = 42.0
"""Map coordinates run from 1 to 42 on every map (the game's `to_map`)."""
SCREEN_SIZE: Final = 512
"""The simulated game window's width and height in pixels."""
CHARACTER_COLOUR: Final = (255, 255, 255)
"""The character's disc: the pixel at its map coordinates has this colour, unless a window covers it."""
_CHARACTER_RADIUS: Final = 6
_FLAG_COLOUR: Final = (220, 40, 40)
_TEXT: Final = (240, 240, 240)
_SHADOW: Final = (0, 0, 0)
_BAR: Final = (20, 22, 30)
_PANEL: Final = (36, 40, 56)
_PANEL_EDGE: Final = (150, 130, 80)
_KIND_COLOURS: Final = {
    "Pc": (80, 200, 255),
    "BattleNpc": (230, 80, 60),
    "EventNpc": (90, 210, 110),
    "Aetheryte": (120, 140, 255),
    "Retainer": (200, 160, 255),
}
_OTHER_KIND: Final = (240, 200, 80)
_PANEL_WIDTH: Final = 200
_LINE: Final = 12
"""Pixels per line of text (the bitmap font is 11 high)."""


@dataclass(frozen=True, slots=True)
class Marker:
    """Something drawn on the map: its name, its kind (`OBJECT_KINDS`) and map coordinates."""

    name: str
    kind: str
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class ShownWindow:
    """An open game window: the name it is shown under, and a Yes/No dialog's question."""

    title: str
    text: str = ""
    yes_no: bool = False


@dataclass(frozen=True, slots=True)
class Screen:
    """What the game window shows. `zone` None: no character is logged in (the title screen)."""

    zone: str | None = None
    territory: int = 0
    character: str = ""
    position: tuple[float, float] = (MAP_MIN, MAP_MIN)
    """The character's map coordinates."""
    markers: tuple[Marker, ...] = ()
    flag: tuple[float, float] | None = None
    """The map flag's coordinates, when it is in this zone."""
    windows: tuple[ShownWindow, ...] = field(default_factory=tuple)


def pixel_of(x: float, y: float, size: int = SCREEN_SIZE) -> tuple[int, int]:
    """The pixel of the map coordinates (x, y) on a window `size` pixels across."""
    span = MAP_MAX - MAP_MIN
    return round((x - MAP_MIN) / span * (size - 1)), round((y - MAP_MIN) / span * (size - 1))


def _zone_colour(territory: int) -> tuple[int, int, int]:
    """A muted ground colour of its own for each zone."""
    r, g, b = colorsys.hsv_to_rgb((territory * 47 % 360) / 360, 0.35, 0.42)
    return round(r * 255), round(g * 255), round(b * 255)


def _lighter(colour: tuple[int, int, int], by: int) -> tuple[int, int, int]:
    r, g, b = colour
    return min(r + by, 255), min(g + by, 255), min(b + by, 255)


class _Painter:
    def __init__(self, background: tuple[int, int, int]) -> None:
        self.image = Image.new("RGB", (SCREEN_SIZE, SCREEN_SIZE), background)
        self.pen = ImageDraw.Draw(self.image)
        self.font = ImageFont.load_default_imagefont()  # a bitmap font inside Pillow: no FreeType, same everywhere

    def text(self, at: tuple[int, int], text: str, colour: tuple[int, int, int] = _TEXT) -> None:
        x, y = at
        self.pen.text((x + 1, y + 1), text, fill=_SHADOW, font=self.font)
        self.pen.text((x, y), text, fill=colour, font=self.font)

    def centred(self, y: int, text: str) -> None:
        width = self.pen.textlength(text, font=self.font)
        self.text((round((SCREEN_SIZE - width) / 2), y), text)


def _map(p: _Painter, screen: Screen, ground: tuple[int, int, int]) -> None:
    for unit in range(int(MAP_MIN), int(MAP_MAX) + 1):
        at, _ = pixel_of(unit, MAP_MIN)
        colour = _lighter(ground, 28 if unit % 5 == 0 else 12)
        p.pen.line([(at, 0), (at, SCREEN_SIZE - 1)], fill=colour)
        p.pen.line([(0, at), (SCREEN_SIZE - 1, at)], fill=colour)
    labels: list[tuple[int, int, int, int]] = []
    for marker in screen.markers:
        x, y = pixel_of(marker.x, marker.y)
        colour = _KIND_COLOURS.get(marker.kind, _OTHER_KIND)
        if marker.kind == "Aetheryte":
            p.pen.polygon([(x, y - 6), (x + 5, y), (x, y + 6), (x - 5, y)], fill=colour, outline=_SHADOW)
        else:
            p.pen.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour, outline=_SHADOW)
        p.text(_free_place(p, labels, (x + 7, y - 6), marker.name), marker.name)
    if screen.flag is not None:
        x, y = pixel_of(*screen.flag)
        p.pen.line([(x, y), (x, y - 16)], fill=_SHADOW, width=2)
        p.pen.polygon([(x + 1, y - 16), (x + 12, y - 12), (x + 1, y - 8)], fill=_FLAG_COLOUR, outline=_SHADOW)
    x, y = pixel_of(*screen.position)
    r = _CHARACTER_RADIUS
    p.pen.ellipse([x - r - 1, y - r - 1, x + r + 1, y + r + 1], fill=_SHADOW)
    p.pen.ellipse([x - r, y - r, x + r, y + r], fill=CHARACTER_COLOUR)
    p.pen.rectangle([0, 0, SCREEN_SIZE - 1, _LINE + 6], fill=_BAR)
    map_x, map_y = screen.position
    p.text((6, 4), f"{screen.zone}  X {map_x:.1f}  Y {map_y:.1f}  {screen.character}")


def _free_place(p: _Painter, taken: list[tuple[int, int, int, int]], at: tuple[int, int], text: str) -> tuple[int, int]:
    """Where a marker's name goes: at `at`, or the nearest line below or above it that no name
    drawn before covers (markers a few yalms apart are a few pixels apart on a zone's map)."""
    x, y = at
    width = round(p.pen.textlength(text, font=p.font))
    for step in (0, 1, -1, 2, -2, 3, -3, 4, -4):
        top = y + step * _LINE
        box = (x, top, x + width, top + _LINE)
        if all(box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1] for b in taken):
            taken.append(box)
            return x, top
    return at  # crowded all around: over the others


def _windows(p: _Painter, windows: tuple[ShownWindow, ...]) -> None:
    left, top = SCREEN_SIZE - _PANEL_WIDTH - 8, _LINE + 14
    for window in windows:
        lines = _wrapped(p, window.text) if window.yes_no else []
        height = _LINE * (2 + len(lines)) + (_LINE + 8 if window.yes_no else 0) + 8
        if top + height > SCREEN_SIZE:
            break  # no room left on the screen for another window
        p.pen.rectangle([left, top, left + _PANEL_WIDTH, top + height], fill=_PANEL, outline=_PANEL_EDGE, width=2)
        p.text((left + 8, top + 6), window.title)
        for index, line in enumerate(lines):
            p.text((left + 8, top + 6 + _LINE * (index + 2)), line)
        if window.yes_no:
            y = top + height - _LINE - 8
            for x, label in ((left + 30, "Yes"), (left + _PANEL_WIDTH - 70, "No")):
                p.pen.rectangle([x, y, x + 40, y + _LINE + 2], outline=_PANEL_EDGE)
                p.text((x + 10, y + 2), label)
        top += height + 8


def _wrapped(p: _Painter, text: str) -> list[str]:
    """`text` in lines that fit a window panel (at most 6)."""
    lines: list[str] = []
    for word in text.split():
        if lines and p.pen.textlength(f"{lines[-1]} {word}", font=p.font) <= _PANEL_WIDTH - 16:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines[:6]


def draw(screen: Screen) -> Image.Image:
    """The game window as the player sees it now."""
    if screen.zone is None:
        painter = _Painter(_BAR)
        painter.centred(SCREEN_SIZE // 2 - _LINE, "FINAL FANTASY XIV")
        painter.centred(SCREEN_SIZE // 2 + _LINE, "No character is logged in.")
    else:
        ground = _zone_colour(screen.territory)
        painter = _Painter(ground)
        _map(painter, screen, ground)
    _windows(painter, screen.windows)
    return painter.image


def fit_width(image: Image.Image, max_width: int) -> Image.Image:
    """Scaled down to at most `max_width` pixels across, keeping the aspect ratio, averaging pixels
    (the real host's `Pixels.FitWidth`); as it is when it is no wider."""
    width, height = image.size
    if width <= max_width:
        return image
    return image.resize((max_width, max(1, round(height * max_width / width))), Image.Resampling.BOX)


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
