"""The pytest plugin for plugin authors (K2): a private XIV MCP system and everything to drive it.

Installed with the package (`pytest11` entry point `xivmcp`), so a test file only names fixtures:

    import my_plugin

    def test_restock_buys_with_gil(player, assistant, game, plugin_process):
        plugin_process.start(my_plugin.plugin).wait_registered()
        player.enable("Restock")
        with game.changes_during() as changes:
            result = assistant.call_tool("restock_buy", {"count": 3})
        assert not result.is_error, result.text
        assert [c.kind for c in changes] == ["items"]

    @pytest.mark.xivmcp(auto_enable=True, world="rich_world.json")
    async def test_the_same_awaited(async_player, async_assistant, plugin_process): ...

The system (`xivmcp_system`) is a broker, the host and the game as real processes on free
loopback ports with a temporary data dir. It is started once for the tests with the same options
(`@pytest.mark.xivmcp(auto_enable=..., test_clock=..., world=..., simulator_extensions=...)`) and
reset before each of them; `test_clock=False` (real time) gets a system per test, since only a
test-clock host can be reset. `simulator_extensions=True` shows the assistant what the real XIV
MCP does not pass on (outputSchema, structuredContent, progress notifications); off, the
`assistant` sees results as the game's host sends them, as JSON text (F3). Each test's plugin
processes are stopped when it ends, whatever it did; a failed test's report shows their output.

Sync tests get blocking objects (`player`, `assistant`, `game`); async tests (pytest-asyncio,
anyio) the same methods to await (`async_player`, `async_assistant`, `async_game`), which run on the
kit's own loop without blocking the test's. Both kinds may be mixed in one file.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Final

import pytest

from ._options import MARKER, MARKER_HELP, SystemOptions, merge_marker_options

if TYPE_CHECKING:
    from ._assistant import Assistant
    from ._game import Game
    from ._player import Player
    from ._plugins import PluginProcess, PluginProcesses
    from ._sync import SyncAssistant, SyncGame
    from ._sync_player import SyncPlayer
    from ._system import PrivateSystem, SharedSystems

__all__ = [
    "assistant",
    "async_assistant",
    "async_game",
    "async_player",
    "game",
    "player",
    "plugin_process",
    "pytest_configure",
    "pytest_runtest_makereport",
    "xivmcp_shared_systems",
    "xivmcp_system",
]

_PLUGINS: Final = pytest.StashKey[list["PluginProcess"]]()
"""The plugin processes a test started, for its report."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    """A failed test's report shows what each of its plugin processes printed."""
    report = yield
    if isinstance(report, pytest.TestReport) and report.failed and report.when == "call":
        for process in item.stash.get(_PLUGINS, []):
            report.sections.append((f"xivmcp plugin {process.label} (pid {process.pid})", process.output()))
    return report


def _options_of(request: pytest.FixtureRequest) -> SystemOptions:
    markers = [(mark.args, dict(mark.kwargs)) for mark in request.node.iter_markers(MARKER)]
    try:
        return merge_marker_options(markers, request.path.parent)
    except ValueError as exc:
        raise pytest.UsageError(f"{request.node.nodeid}: {exc}") from None


@pytest.fixture(scope="session")
def xivmcp_shared_systems(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedSystems]:
    """The session's shared systems, one per options; every process is killed by pid at the end."""
    from ._system import SharedSystems

    systems = SharedSystems(lambda: tmp_path_factory.mktemp("xivmcp"))
    try:
        yield systems
    finally:
        systems.close()


@pytest.fixture
def xivmcp_system(
    request: pytest.FixtureRequest, xivmcp_shared_systems: SharedSystems, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PrivateSystem]:
    """The test's private system (`PrivateSystem`): shared and reset, or its own with test_clock=False."""
    from ._system import PrivateSystem

    options = _options_of(request)
    if not options.shared:
        with PrivateSystem(tmp_path_factory.mktemp("xivmcp"), options) as own:
            own.begin_test()
            yield own
        return
    system = xivmcp_shared_systems.get(options)
    system.begin_test()
    yield system
    system.end_test()


@pytest.fixture
def player(xivmcp_system: PrivateSystem) -> Iterator[SyncPlayer]:
    """The player's decisions, every `xivmcp` player command as a blocking method."""
    from ._sync_player import SyncPlayer

    sync = SyncPlayer(xivmcp_system.loop, xivmcp_system.player())
    yield sync
    sync.cancel_background()


@pytest.fixture
def async_player(xivmcp_system: PrivateSystem) -> Player:
    """`player` for async tests: the same methods, awaited."""
    return xivmcp_system.player(xivmcp_system.loop.link())


@pytest.fixture
def game(xivmcp_system: PrivateSystem) -> SyncGame:
    """The simulated world: read it, set it, and the changes made since the test began."""
    from ._sync import SyncGame

    return SyncGame(xivmcp_system.loop, xivmcp_system.game())


@pytest.fixture
def async_game(xivmcp_system: PrivateSystem) -> Game:
    """`game` for async tests: the same methods, awaited."""
    return xivmcp_system.game(xivmcp_system.loop.link())


@pytest.fixture
def assistant(xivmcp_system: PrivateSystem) -> Iterator[SyncAssistant]:
    """An AI app: an official MCP client session with the token, for this test."""
    from ._assistant import Assistant, assistant_client
    from ._sync import SyncAssistant

    loop = xivmcp_system.loop
    with loop.enter(assistant_client(xivmcp_system.mcp_url, xivmcp_system.token)) as client:
        sync = SyncAssistant(loop, Assistant(client))
        yield sync
        sync.cancel_background()


@pytest.fixture
def async_assistant(xivmcp_system: PrivateSystem) -> Iterator[Assistant]:
    """`assistant` for async tests: the same methods, awaited."""
    from ._assistant import Assistant, assistant_client

    loop = xivmcp_system.loop
    with loop.enter(assistant_client(xivmcp_system.mcp_url, xivmcp_system.token)) as client:
        yield Assistant(client, link=loop.link())


@pytest.fixture
def plugin_process(request: pytest.FixtureRequest, xivmcp_system: PrivateSystem) -> Iterator[PluginProcesses]:
    """`plugin_process.start(target, *args)`: the author's plugin as a real process (see `PluginProcesses`)."""
    from ._plugins import PluginProcesses

    processes = PluginProcesses(xivmcp_system.harness, request.path.parent)
    request.node.stash[_PLUGINS] = processes.started
    try:
        yield processes
    finally:
        processes.stop_all()
