"""The player's command protocol: what `xivmcp enable`, `approve`, `call`, ... send to `XivMcp.Player`.

The game's /xivmcp window, as commands: each is one tagged JSON object (``{"cmd": "enable",
"plugin": "MyPlugin", "digest": "…"}``), sent with the proof of the player key from the data dir
(plugins have no key). It is private to the host and its command line; no plugin speaks it.

Each command names the type of its reply (`class EnablePlugin(Command[PluginDecision])`), so
`PlayerClient.send(EnablePlugin(...))` is typed `PluginDecision`, and the host's desk checks that
it answers each command with that type.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Generic, TypeVar, get_args

import msgspec

from gates.contract import PLAYER_KEY_FILE, Answer, DocumentDecoder, JobReply, Wire

from ._cards import InstalledReport, ModulesReport, PluginsReport, PluginView
from ._replies import (
    ApprovalAnswer,
    ApprovalsReport,
    AuditReport,
    CallReply,
    ConsoleTicket,
    HostClock,
    HostReset,
    JobControlled,
    JobsReport,
    ModeDecision,
    PluginDecision,
    SettingChanged,
    StatsReport,
    ToolsReport,
)

__all__ = [
    "JOB_ACTIONS",
    "PLAYER_GATE",
    "PLAYER_HELLO_GATE",
    "PLAYER_KEY_FILE",
    "AdvanceClock",
    "AnswerApproval",
    "CallTool",
    "ClearSession",
    "Command",
    "ConsentPlugin",
    "ControlJob",
    "EnablePlugin",
    "HostStats",
    "Install",
    "KeepDisabled",
    "LiftSuspension",
    "ListApprovals",
    "ListInstalled",
    "ListJobs",
    "ListModules",
    "ListPlugins",
    "ListTools",
    "OpenConsole",
    "PlayerCommand",
    "ReadAudit",
    "ResetForTests",
    "SetMode",
    "SetModule",
    "SetToolSetting",
    "ShowJob",
    "ShowPlugin",
    "Uninstall",
    "decode_player_command",
]

PLAYER_GATE: Final = "XivMcp.Player"
"""`Player(authJson, commandJson)`: one command, with the proof of the key (see `_auth.py`)."""
PLAYER_HELLO_GATE: Final = "XivMcp.PlayerHello"
"""`PlayerHello(clientNonce)`: the host proves it knows the key and hands out a nonce."""
JOB_ACTIONS: Final = ("pause", "resume", "cancel")
"""What `ControlJob` (`xivmcp job ACTION ID`) does to a job."""

R = TypeVar("R", bound=msgspec.Struct)


class Command(Wire, Generic[R], kw_only=True, tag_field="cmd", forbid_unknown_fields=True):
    """A player command whose reply is an `R`: subclass it as ``Command[TheReply]``, with a tag."""

    reply_type: ClassVar[type[msgspec.Struct]]
    """The `R` of the class: what the host answers it with, and what `PlayerClient.send` decodes."""

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__(**options)
        # The reply is read from the generic base, so each command names it once (and mypy sees it).
        replies = [arg for base in cls.__dict__.get("__orig_bases__", ()) for arg in get_args(base)]
        if replies and isinstance(replies[0], type):
            cls.reply_type = replies[0]
        elif not hasattr(cls, "reply_type"):
            raise TypeError(f"{cls.__name__} must name its reply: class {cls.__name__}(Command[TheReply], tag=...).")

    def cli_name(self) -> str:
        """The `xivmcp` command that sends this (for messages): ``keep-disabled`` for ``keep_disabled``."""
        return str(type(self).__struct_config__.tag).replace("_", "-")


class ListPlugins(Command[PluginsReport], tag="plugins"):
    plugin: str | None = None
    """Only this plugin's card (none if XIV MCP does not know it); default: every plugin's."""


class EnablePlugin(Command[PluginDecision], tag="enable"):
    plugin: str
    digest: str
    """The registration digest the player was shown (`plugins`): a registration that grew since is refused."""


class ShowPlugin(Command[PluginView], tag="plugin"):
    """One plugin's whole card: tools with descriptions, what it was consented to, dependencies."""

    plugin: str


class ClearSession(Command[PluginDecision], tag="clear_session"):
    """Forget the plugin's "for this session" approvals (the window's Clear button)."""

    plugin: str


class OpenConsole(Command[ConsoleTicket], tag="console"):
    """A one-time ticket for the web console's login link (`xivmcp console`)."""


class KeepDisabled(Command[PluginDecision], tag="keep_disabled"):
    plugin: str


class ConsentPlugin(Command[PluginDecision], tag="consent"):
    plugin: str
    digest: str
    """The registration digest the player was shown (`plugins`): a registration that grew since is refused."""


class LiftSuspension(Command[PluginDecision], tag="lift"):
    plugin: str


class SetMode(Command[ModeDecision], tag="mode"):
    plugin: str
    target: str
    """A capability id or one of the plugin's tool names."""
    mode: str
    """allow, ask, deny, or default (back to the catalog default / the capabilities)."""


class ListApprovals(Command[ApprovalsReport], tag="approvals"):
    wait: float = 0
    """If none waits yet, wait up to this many (real) seconds for an approval to be asked."""


class AnswerApproval(Command[ApprovalAnswer], tag="answer"):
    approval_id: str
    answer: Answer

    def cli_name(self) -> str:
        return "decline" if self.answer == Answer.DECLINE else "approve"


class ReadAudit(Command[AuditReport], tag="audit"):
    plugin: str | None = None
    limit: int = 50


class CallTool(Command[CallReply], tag="call"):
    tool: str
    arguments: dict[str, Any] = {}
    notify: str | None = None
    """An action gate of the caller's own (`<its name>.…`, one string): while the call runs, the
    host sends it each progress line and each approval the call waits for (`CallEvent`)."""


class HostStats(Command[StatsReport], tag="stats"):
    """What the host has under way: calls waiting for plugins, approvals waiting for the player."""


class ListJobs(Command[JobsReport], tag="jobs"):
    finished: bool = True


class ShowJob(Command[JobReply], tag="job"):
    id: str
    log_lines: int = 30


class ControlJob(Command[JobControlled], tag="job_control"):
    id: str
    action: str
    """pause, resume or cancel (`JOB_ACTIONS`)."""

    def cli_name(self) -> str:
        return f"job {self.action}"


class AdvanceClock(Command[HostClock], tag="advance_clock"):
    seconds: float


class ResetForTests(Command[HostReset], tag="reset"):
    """Put a --test-clock host back to its start for the next test of a shared system (the pytest
    plugin's): forget the plugins that are not connected and every setting, withdraw the approvals
    waiting, cancel and forget every job. Refused on the real clock: a player's host keeps its decisions."""


class ListModules(Command[ModulesReport], tag="modules"):
    """The modules of XIV MCP's own tools, with their modes and each tool's setting."""


class ListTools(Command[ToolsReport], tag="tools"):
    """The tools the assistant is offered now, as the host's tools/list would list them."""


class SetModule(Command[SettingChanged], tag="module"):
    module: str
    what: str
    """reading or changes (then `mode`), or on / off (the whole module)."""
    mode: str | None = None
    """allow, ask, deny, or default."""


class SetToolSetting(Command[SettingChanged], tag="tool"):
    tool: str
    setting: str
    """group (follow its module), allow, ask or deny."""


class ListInstalled(Command[InstalledReport], tag="installed"):
    """The plugins installed, as Dalamud would list them: those on the bus and those the host knows."""


class Install(Command[InstalledReport], tag="install"):
    """Put a plugin on the installed list (or change its display name, version or repo): it is then
    `plugin_not_loaded` rather than `plugin_missing` for the plugins that depend on it."""

    plugin: str
    """Its InternalName."""
    name: str | None = None
    version: str | None = None
    repo: str | None = None


class Uninstall(Command[InstalledReport], tag="uninstall"):
    plugin: str


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
    | ListTools
    | SetModule
    | SetToolSetting
    | ListInstalled
    | Install
    | Uninstall
    | ShowPlugin
    | ClearSession
    | OpenConsole
)

_PLAYER_COMMAND: Final[DocumentDecoder[Any]] = DocumentDecoder(
    PlayerCommand,  # type: ignore[arg-type]  # a union, which msgspec decodes
    "player command",
    '{"cmd": "enable", "plugin": "MyPlugin", "digest": "…"}',
)


def decode_player_command(text: str | bytes) -> PlayerCommand:
    result: PlayerCommand = _PLAYER_COMMAND.decode(text)
    return result
