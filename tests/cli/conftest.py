"""The command line's tests use the systems of the rooms whose commands they run: the player's
commands the host's shared system (tests/host/conftest.py)."""

from __future__ import annotations

from tests.host.conftest import fresh_system, system

__all__ = ["fresh_system", "system"]
