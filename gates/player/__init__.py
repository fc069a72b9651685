"""The player's side of XIV MCP: the commands the player sends, and the client that sends them.

What the game's `/xivmcp` window lets a player do (enable a plugin, set a mode, answer an
approval, steer a job, ...) travels as one typed command over the `XivMcp.Player` gate, proven by
the player key in the data dir (B8). The command line, the test kit's `Player`, the benches and
the tests all speak it through `PlayerClient`; the host's desk (`gates.host`) answers it.

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
from ._client import (
    NotYourHostError,
    PlayerClient,
    read_player_key,
)
from ._protocol import (
    PLAYER_GATE,
    PLAYER_HELLO_GATE,
    PLAYER_KEY_FILE,
    AdvanceClock,
    AnswerApproval,
    CallTool,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    HostStats,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListJobs,
    ListModules,
    ListPlugins,
    PlayerCommand,
    ReadAudit,
    ResetForTests,
    SetMode,
    SetModule,
    SetToolSetting,
    ShowJob,
    decode_player_command,
)

__all__ = [
    "AdvanceClock",
    "AnswerApproval",
    "CallTool",
    "ConsentPlugin",
    "ControlJob",
    "EnablePlugin",
    "HostStats",
    "KeepDisabled",
    "LiftSuspension",
    "ListApprovals",
    "ListJobs",
    "ListModules",
    "ListPlugins",
    "NONCE_LIFETIME",
    "NotYourHostError",
    "PLAYER_GATE",
    "PLAYER_HELLO_GATE",
    "PLAYER_KEY_FILE",
    "PlayerAuth",
    "PlayerClient",
    "PlayerCommand",
    "PlayerHelloReply",
    "ReadAudit",
    "ResetForTests",
    "SetMode",
    "SetModule",
    "SetToolSetting",
    "ShowJob",
    "decode_player_auth",
    "decode_player_command",
    "host_proof",
    "new_nonce",
    "player_mac",
    "read_player_key",
]
