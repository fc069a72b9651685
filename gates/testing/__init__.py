"""The testing kit: a private XIV MCP system as real processes, and the pytest plugin for plugin authors.

The process harness (what our own tests and benchmarks use):

    with XivMcpSystem(tmp_path) as system:          # nothing is shared with the user's own system
        system.start()                              # a broker on a free loopback port, then the host
        plugin = system.start_plugin("plugins_sample.myplugin")
        plugin.wait_line("MyPlugin: registered myplugin_restock")
        subprocess.run(system.cli("enable", "MyPlugin"), check=True)

The pytest plugin (K2; installed with the package as the `pytest11` entry point `xivmcp`, see
`gates.testing.pytest_plugin`) gives a plugin author's tests, sync or async:

    xivmcp_system     a broker, the host and the game (`PrivateSystem`), shared by the tests with
                      the same options and reset before each; `@pytest.mark.xivmcp(...)` sets them
    player            the player's decisions: every `xivmcp` player command (`SyncPlayer`; K3)
    assistant         an official MCP client session with the token (`SyncAssistant`)
    game              the world, set and read, and the changes a call made (`SyncGame`)
    plugin_process    `.start(plugin_or_module_or_script)`: the author's plugin as a process
    async_player, async_assistant, async_game   the same to await (`Player`, `Assistant`, `Game`)

`Player`, `Assistant` and `Game` also work on a connection of your own, in your own event loop
(`Player.over(pi, data_dir)`, `Assistant(client)` with `assistant_client(url, token)`,
`Game(GameClient.as_player(pi, data_dir))`). The names that load the player's or the game's client or the `mcp`
client are imported on first use, so `import gates.testing` (and the pytest plugin, loaded by
every pytest run) stays light.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from ._harness import START_TIMEOUT, Process, XivMcpSystem, free_endpoint, free_port, xivmcp_argv
from ._link import CALL_WAIT, DIRECT, DirectLink, KitLoop, Link, PortalLink
from ._options import SystemOptions

if _typing.TYPE_CHECKING:
    from gates.player import (
        ApprovalAnswer,
        CallReply,
        HostReset,
        JobControlled,
        JobSummary,
        PendingApproval,
        PlayerError,
        PluginDecision,
    )

    from ._assistant import Assistant, AssistantError, ToolResult, assistant_client
    from ._game import GAME_WAIT, Game
    from ._player import WAIT, CallOutcomeError, ClockAdvanced, Player
    from ._plugins import PluginProcess, PluginProcesses, PluginTarget
    from ._sync import BackgroundCall, SyncAssistant, SyncGame
    from ._sync_player import SyncPlayer
    from ._system import PrivateSystem, SharedSystems

__all__ = [
    "CALL_WAIT",
    "DIRECT",
    "GAME_WAIT",
    "START_TIMEOUT",
    "WAIT",
    "ApprovalAnswer",
    "Assistant",
    "AssistantError",
    "BackgroundCall",
    "CallOutcomeError",
    "CallReply",
    "ClockAdvanced",
    "DirectLink",
    "Game",
    "HostReset",
    "JobControlled",
    "JobSummary",
    "KitLoop",
    "Link",
    "PendingApproval",
    "Player",
    "PlayerError",
    "PluginDecision",
    "PluginProcess",
    "PluginProcesses",
    "PluginTarget",
    "PortalLink",
    "PrivateSystem",
    "Process",
    "SharedSystems",
    "SyncAssistant",
    "SyncGame",
    "SyncPlayer",
    "SystemOptions",
    "ToolResult",
    "XivMcpSystem",
    "assistant_client",
    "free_endpoint",
    "free_port",
    "xivmcp_argv",
]

_ON_FIRST_USE: _typing.Final = {
    "Assistant": "_assistant",
    "AssistantError": "_assistant",
    "ToolResult": "_assistant",
    "assistant_client": "_assistant",
    "GAME_WAIT": "_game",
    "Game": "_game",
    "WAIT": "_player",
    "CallOutcomeError": "_player",
    "ClockAdvanced": "_player",
    "Player": "_player",
    "ApprovalAnswer": "gates.player",
    "CallReply": "gates.player",
    "HostReset": "gates.player",
    "JobControlled": "gates.player",
    "JobSummary": "gates.player",
    "PendingApproval": "gates.player",
    "PlayerError": "gates.player",
    "PluginDecision": "gates.player",
    "PluginProcess": "_plugins",
    "PluginProcesses": "_plugins",
    "PluginTarget": "_plugins",
    "BackgroundCall": "_sync",
    "SyncAssistant": "_sync",
    "SyncGame": "_sync",
    "SyncPlayer": "_sync_player",
    "PrivateSystem": "_system",
    "SharedSystems": "_system",
}
"""The names that load the player's or the game's client or the `mcp` client, by module (one of the
kit's own, or `gates.player` for the player's reply types, which the kit passes on as they are)."""


def __getattr__(name: str) -> _typing.Any:
    """A kit name that loads more than the harness, imported on first use."""
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_importlib.import_module(module if "." in module else f"{__name__}.{module}"), name)
