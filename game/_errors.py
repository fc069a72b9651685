"""The game's exceptions.

    GameError                  a game gate refused a call; the message is the game's own
    └── GameUnavailableError   no game is on the bus (or it left during the call)
    WorldFileError             a world file that cannot be read, is not JSON, or is not a valid world
    Refusal                    (inside the game) why a gate refuses; becomes `{"ok": false, ...}`

`GameClient` raises only `GameError` and its subclass, never a bus error, so a caller that
catches `GameError` has handled every way a call to the game can fail.
"""

from __future__ import annotations

from typing import Final

__all__ = ["NO_GAME", "GameError", "GameUnavailableError", "Refusal", "WorldFileError"]

NO_GAME: Final = "No game is on the bus: start one with `xivmcp game` (or `xivmcp up`)."


class GameError(Exception):
    """Raised by `GameClient` when a game gate answers `{"ok": false, "error": message}`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameUnavailableError(GameError):
    """Raised by `GameClient` when no game is on the bus to answer, or it left during the call."""

    def __init__(self, message: str = NO_GAME) -> None:
        super().__init__(message)


class WorldFileError(Exception):
    """Raised by `load_world` (and `Game.Save`) with one line naming the file and what is wrong."""


class Refusal(Exception):
    """Raised inside the game when a call must be refused; nothing has been changed yet.

    The message says what was wrong and what to do instead; the gate puts its own name in front.
    """
