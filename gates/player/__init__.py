"""The player's side of XIV MCP: the commands the player sends, their replies, and the client that sends them.

What the game's `/xivmcp` window lets a player do (enable a plugin, set a mode, answer an
approval, steer a job, ...) travels as one typed command over the `XivMcp.Player` gate, proven by
the player key in the data dir (B8), and comes back as one typed reply:

    _protocol   the commands, each a `Command[Reply]` (`EnablePlugin` answers `PluginDecision`)
    _replies    the replies; `_cards` the window's panels (plugins, modules); `_events` what a
                running `call` tells the player on the way
    _client     `PlayerClient.send(command) -> reply`, which proves the key (`_auth`)

The command line, the test kit's `Player`, `xivmcp check`, the benches and the tests all speak it
through `PlayerClient`; the host's desk (`gates.host`) answers it with these same types.

Importing this package loads neither the host nor MCP: a process that only acts as the player
needs the bus, the contract and these few modules.
"""

from __future__ import annotations

from ._auth import (
    NONCE_LIFETIME,
    PlayerAuth,
    PlayerHelloReply,
    decode_player_auth,
    host_proof,
    new_nonce,
    player_mac,
)
from ._cards import Awaits, InstalledReport, ModuleCard, ModulesReport, ModuleTool, PluginCard, PluginsReport, ToolCard
from ._client import NotYourHostError, PlayerClient, PlayerError, read_player_key
from ._events import ApprovalEvent, CallEvent, ProgressEvent, decode_call_event
from ._protocol import (
    JOB_ACTIONS,
    PLAYER_GATE,
    PLAYER_HELLO_GATE,
    PLAYER_KEY_FILE,
    AdvanceClock,
    AnswerApproval,
    CallTool,
    Command,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    HostStats,
    Install,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListInstalled,
    ListJobs,
    ListModules,
    ListPlugins,
    ListTools,
    PlayerCommand,
    ReadAudit,
    ResetForTests,
    SetMode,
    SetModule,
    SetToolSetting,
    ShowJob,
    Uninstall,
    decode_player_command,
)
from ._replies import (
    ApprovalAnswer,
    ApprovalsReport,
    AuditLine,
    AuditReport,
    CallImage,
    CallReply,
    HostClock,
    HostReset,
    JobControlled,
    JobsReport,
    JobSummary,
    ListedTool,
    ModeDecision,
    PendingApproval,
    PluginDecision,
    SettingChanged,
    StatsReport,
    ToolsReport,
)

__all__ = [
    "Install",
    "InstalledReport",
    "ListInstalled",
    "Uninstall",
    "JOB_ACTIONS",
    "NONCE_LIFETIME",
    "PLAYER_GATE",
    "PLAYER_HELLO_GATE",
    "PLAYER_KEY_FILE",
    "AdvanceClock",
    "AnswerApproval",
    "ApprovalAnswer",
    "ApprovalEvent",
    "ApprovalsReport",
    "AuditLine",
    "AuditReport",
    "Awaits",
    "CallEvent",
    "CallImage",
    "CallReply",
    "CallTool",
    "Command",
    "ConsentPlugin",
    "ControlJob",
    "EnablePlugin",
    "HostClock",
    "HostReset",
    "HostStats",
    "JobControlled",
    "JobSummary",
    "JobsReport",
    "KeepDisabled",
    "LiftSuspension",
    "ListApprovals",
    "ListJobs",
    "ListModules",
    "ListPlugins",
    "ListTools",
    "ListedTool",
    "ModeDecision",
    "ModuleCard",
    "ModuleTool",
    "ModulesReport",
    "NotYourHostError",
    "PendingApproval",
    "PlayerAuth",
    "PlayerClient",
    "PlayerCommand",
    "PlayerError",
    "PlayerHelloReply",
    "PluginCard",
    "PluginDecision",
    "PluginsReport",
    "ProgressEvent",
    "ReadAudit",
    "ResetForTests",
    "SetMode",
    "SetModule",
    "SetToolSetting",
    "SettingChanged",
    "ShowJob",
    "StatsReport",
    "ToolCard",
    "ToolsReport",
    "decode_call_event",
    "decode_player_auth",
    "decode_player_command",
    "host_proof",
    "new_nonce",
    "player_mac",
    "read_player_key",
]
