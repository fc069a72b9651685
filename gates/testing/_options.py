"""The options of a test's private system, from `@pytest.mark.xivmcp(...)`.

    @pytest.mark.xivmcp(auto_enable=True, world="worlds/rich.json")
    def test_restock(player, assistant): ...

Markers merge from the module (`pytestmark`) through the class to the test, the closest winning
for each option. Tests with the same options share one system; other options get their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = ["MARKER", "MARKER_HELP", "SystemOptions", "merge_marker_options"]

MARKER: Final = "xivmcp"
MARKER_HELP: Final = (
    "xivmcp(auto_enable=False, test_clock=True, world=None, simulator_extensions=False): the options of the "
    "test's private XIV MCP system (see gates.testing)"
)


@dataclass(frozen=True, slots=True)
class SystemOptions:
    """How a private system runs: the key under which tests share it."""

    auto_enable: bool = False
    """`xivmcp host --auto-enable`: every plugin enabled as it registers, its capabilities allowed
    (but the critical ones, which are always asked)."""
    test_clock: bool = True
    """Host and game on the test clock: time moves only by `player.advance_clock`, so nothing
    times out by itself. Only such a system can be reset, and so shared between tests; with False
    (real time) each test gets a system of its own, at the cost of starting one."""
    world: Path | None = field(default=None)
    """A world file for the game (`xivmcp game --world`), else the default world."""
    simulator_extensions: bool = False
    """`xivmcp host --simulator-extensions`: the assistant also gets what the real XIV MCP does not
    pass on (outputSchema, structuredContent, progress notifications). Off, as in the game (F3)."""

    @property
    def shared(self) -> bool:
        """Whether tests with these options can share one system (reset between them)."""
        return self.test_clock

    def host_args(self) -> tuple[str, ...]:
        """The `xivmcp host` options these options ask for."""
        return (
            *(["--auto-enable"] if self.auto_enable else []),
            *(["--test-clock"] if self.test_clock else []),
            *(["--simulator-extensions"] if self.simulator_extensions else []),
        )

    def game_args(self) -> tuple[str, ...]:
        """The `xivmcp game` options these options ask for."""
        world = ["--world", str(self.world)] if self.world is not None else []
        return (*(["--test-clock"] if self.test_clock else []), *world)


_FLAGS: Final = ("auto_enable", "test_clock", "simulator_extensions")


def merge_marker_options(markers: list[tuple[tuple[Any, ...], dict[str, Any]]], test_dir: Path) -> SystemOptions:
    """The options of `markers` (each its args and kwargs, closest first), `world` relative to `test_dir`.

    Raises ValueError naming what is wrong with a marker and how to write it.
    """
    chosen: dict[str, Any] = {}
    for args, kwargs in reversed(markers):  # the farthest first, so the closest wins
        if args:
            raise ValueError(
                f"@pytest.mark.xivmcp takes keyword options only, not {args!r}: write for example "
                '@pytest.mark.xivmcp(auto_enable=True, world="world.json").'
            )
        unknown = sorted(set(kwargs) - {*_FLAGS, "world"})
        if unknown:
            raise ValueError(
                f"@pytest.mark.xivmcp has no option {', '.join(unknown)}; its options are auto_enable, "
                "test_clock, world and simulator_extensions."
            )
        chosen.update(kwargs)
    for flag in _FLAGS:
        if flag in chosen and not isinstance(chosen[flag], bool):
            raise ValueError(f"@pytest.mark.xivmcp({flag}=...) takes True or False, not {chosen[flag]!r}.")
    world = chosen.get("world")
    path: Path | None = None
    if world is not None:
        if not isinstance(world, str | Path):
            raise ValueError(f"@pytest.mark.xivmcp(world=...) takes a file path, not {world!r}.")
        path = (test_dir / world).resolve()
        if not path.is_file():
            raise ValueError(
                f"The world file {path} does not exist: give a path relative to the test file's folder "
                "(or an absolute one); `xivmcp game save FILE.json` writes one from a running game."
            )
    return SystemOptions(
        auto_enable=chosen.get("auto_enable", False),
        test_clock=chosen.get("test_clock", True),
        world=path,
        simulator_extensions=chosen.get("simulator_extensions", False),
    )
