"""The player's command protocol: what `xivmcp enable`, `approve`, `call`, ... send to `XivMcp.Player`.

The game's /xivmcp window, as commands: each is one tagged JSON object (``{"cmd": "enable",
"plugin": "MyPlugin"}``), sent with the player key from the data dir (plugins have no key). It is
private to the host and its command line; no plugin speaks it.
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import PLAYER_KEY_FILE, Answer, DocumentDecoder, Wire

__all__ = [
    "PLAYER_GATE",
    "PLAYER_HELLO_GATE",
    "PLAYER_KEY_FILE",
    "AdvanceClock",
    "AnswerApproval",
    "CallTool",
    "ConsentPlugin",
    "EnablePlugin",
    "HostStats",
    "ListJobs",
    "ShowJob",
    "ControlJob",
    "KeepDisabled",
    "LiftSuspension",
    "ListApprovals",
    "ListModules",
    "ListPlugins",
    "PlayerCommand",
    "ReadAudit",
    "ResetForTests",
    "SetMode",
    "SetModule",
    "SetToolSetting",
    "decode_player_command",
]

PLAYER_GATE: Final = "XivMcp.Player"
"""`Player(authJson, commandJson)`: one command, with the proof of the key (see `_auth.py`)."""
PLAYER_HELLO_GATE: Final = "XivMcp.PlayerHello"
"""`PlayerHello(clientNonce)`: the host proves it knows the key and hands out a nonce."""


class _Command(Wire, kw_only=True, tag_field="cmd", forbid_unknown_fields=True):
    pass


class ListPlugins(_Command, tag="plugins"):
    plugin: str | None = None
    """Only this plugin's card (none if XIV MCP does not know it); default: every plugin's."""


class EnablePlugin(_Command, tag="enable"):
    plugin: str
    digest: str
    """The registration digest the player was shown (`plugins`): a registration that grew since is refused."""


class KeepDisabled(_Command, tag="keep_disabled"):
    plugin: str


class ConsentPlugin(_Command, tag="consent"):
    plugin: str
    digest: str
    """The registration digest the player was shown (`plugins`): a registration that grew since is refused."""


class LiftSuspension(_Command, tag="lift"):
    plugin: str


class SetMode(_Command, tag="mode"):
    plugin: str
    target: str
    """A capability id or one of the plugin's tool names."""
    mode: str
    """allow, ask, deny, or default (back to the catalog default / the capabilities)."""


class ListApprovals(_Command, tag="approvals"):
    wait: float = 0
    """If none waits yet, wait up to this many (real) seconds for an approval to be asked."""


class AnswerApproval(_Command, tag="answer"):
    approval_id: str
    answer: Answer


class ReadAudit(_Command, tag="audit"):
    plugin: str | None = None
    limit: int = 50


class CallTool(_Command, tag="call"):
    tool: str
    arguments: dict[str, Any] = {}
    notify: str | None = None
    """An action gate of the caller's own (`<its name>.…`, one string): while the call runs, the
    host sends it a JSON event for each progress line ({"kind": "progress", "text"}) and each
    approval the call waits for ({"kind": "approval", "approvalId", "tool", "plugin", "summary"})."""


class HostStats(_Command, tag="stats"):
    """What the host has under way: calls waiting for plugins, approvals waiting for the player."""


class ListJobs(_Command, tag="jobs"):
    finished: bool = True


class ShowJob(_Command, tag="job"):
    id: str
    log_lines: int = 30


class ControlJob(_Command, tag="job_control"):
    id: str
    action: str
    """pause, resume or cancel."""


class AdvanceClock(_Command, tag="advance_clock"):
    seconds: float


class ResetForTests(_Command, tag="reset"):
    """Put a --test-clock host back to its start for the next test of a shared system (the pytest
    plugin's): forget the plugins that are not connected and every setting, withdraw the approvals
    waiting, cancel and forget every job. Refused on the real clock: a player's host keeps its decisions."""


class ListModules(_Command, tag="modules"):
    """The modules of XIV MCP's own tools, with their modes and each tool's setting."""


class SetModule(_Command, tag="module"):
    module: str
    what: str
    """reading or changes (then `mode`), or on / off (the whole module)."""
    mode: str | None = None
    """allow, ask, deny, or default."""


class SetToolSetting(_Command, tag="tool"):
    tool: str
    setting: str
    """group (follow its module), allow, ask or deny."""


PlayerCommand = (
    ListPlugins
    | EnablePlugin
    | KeepDisabled
    | ConsentPlugin
    | LiftSuspension
    | SetMode
    | ListApprovals
    | AnswerApproval
    | ReadAudit
    | CallTool
    | HostStats
    | ListJobs
    | ShowJob
    | ControlJob
    | AdvanceClock
    | ResetForTests
    | ListModules
    | SetModule
    | SetToolSetting
)

_PLAYER_COMMAND: Final[DocumentDecoder[Any]] = DocumentDecoder(
    PlayerCommand,  # type: ignore[arg-type]  # a union, which msgspec decodes
    "player command",
    '{"cmd": "enable", "plugin": "MyPlugin"}',
)


def decode_player_command(text: str | bytes) -> PlayerCommand:
    result: PlayerCommand = _PLAYER_COMMAND.decode(text)
    return result
