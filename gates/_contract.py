"""The XIV MCP plugin contract, API version 2: names, codes and every JSON document, in one place.

This module knows nothing of sockets or processes. It holds

* the gate names (``XivMcp.<Gate>``, ``<InternalName>.XivMcp.<Gate>``) and each gate's signature,
* the codes that cross the boundary (plugin states, modes, risks, capability ids, dependency and
  approval states) as ``StrEnum`` values,
* the capability catalog,
* each JSON document as a msgspec ``Struct`` with the wire's field names (``inputSchema``,
  ``awaitingConsent``, ``approvalId``, ...),
* one decoder per input document, whose errors say what was wrong and what to send instead,
* the reply helpers every host gate goes through: ``{"ok": true, ...}`` or
  ``{"ok": false, "error": "..."}``, never an exception into the caller.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, Generic, ParamSpec, TypeVar

import msgspec

from gates._errors import HostReplyError, InvalidDocumentError, RefusedError

_log = logging.getLogger("gates")

API_VERSION: Final = 2
HOST_NAME: Final = "XivMcp"

# --------------------------------------------------------------------------- gate names


class Gate(StrEnum):
    """The call gates XIV MCP provides."""

    API_VERSION = "XivMcp.ApiVersion"
    IS_READY = "XivMcp.IsReady"
    LIST_CAPABILITIES = "XivMcp.ListCapabilities"
    REGISTER_TOOL = "XivMcp.RegisterTool"
    UNREGISTER_TOOL = "XivMcp.UnregisterTool"
    UNREGISTER_ALL = "XivMcp.UnregisterAll"
    GET_STATUS = "XivMcp.GetStatus"
    DECLARE_DEPENDENCIES = "XivMcp.DeclareDependencies"
    CHECK_PERMISSION = "XivMcp.CheckPermission"
    REQUEST_APPROVAL = "XivMcp.RequestApproval"
    GET_APPROVAL = "XivMcp.GetApproval"
    COMPLETE_CALL = "XivMcp.CompleteCall"
    FAIL_CALL = "XivMcp.FailCall"
    REPORT_PROGRESS = "XivMcp.ReportProgress"
    START_JOB = "XivMcp.StartJob"
    GET_JOB = "XivMcp.GetJob"
    LIST_JOBS = "XivMcp.ListJobs"
    PAUSE_JOB = "XivMcp.PauseJob"
    RESUME_JOB = "XivMcp.ResumeJob"
    CANCEL_JOB = "XivMcp.CancelJob"


class Message(StrEnum):
    """The messages XIV MCP broadcasts: register on ``Ready``, stop running calls on ``Disposing``."""

    READY = "XivMcp.Ready"
    DISPOSING = "XivMcp.Disposing"


class PluginGate(StrEnum):
    """The gates a plugin provides, named ``<InternalName>.XivMcp.<Gate>``."""

    INVOKE = "Invoke"
    CANCEL = "Cancel"


def plugin_gate(internal_name: str, gate: PluginGate | str) -> str:
    """The full name of a plugin's gate: ``plugin_gate("MyPlugin", "Invoke")`` is ``MyPlugin.XivMcp.Invoke``."""
    if not internal_name or any(c.isspace() for c in internal_name):
        raise ValueError(f"{internal_name!r} is not a plugin internal name (non-empty, without spaces).")
    try:
        which = PluginGate(gate)
    except ValueError:
        raise ValueError(f"{gate!r} is not a plugin gate; use 'Invoke' or 'Cancel'.") from None
    return f"{internal_name}.{HOST_NAME}.{which}"


@dataclass(frozen=True, slots=True)
class GateSignature:
    """A gate's parameters (name and JSON type) and return type; ``NoneType`` for actions and messages."""

    names: tuple[str, ...]
    params: tuple[type[object], ...]
    returns: type[object]


_NONE: Final[type[object]] = type(None)


def _sig(returns: type[object], *names: str) -> GateSignature:
    return GateSignature(names=names, params=tuple(str for _ in names), returns=returns)


GATE_SIGNATURES: Final[Mapping[Gate, GateSignature]] = MappingProxyType(
    {
        Gate.API_VERSION: _sig(int),
        Gate.IS_READY: _sig(bool),
        Gate.LIST_CAPABILITIES: _sig(str),
        Gate.REGISTER_TOOL: _sig(str, "owner", "definitionJson"),
        Gate.UNREGISTER_TOOL: _sig(str, "owner", "name"),
        Gate.UNREGISTER_ALL: _sig(str, "owner"),
        Gate.GET_STATUS: _sig(str, "owner"),
        Gate.DECLARE_DEPENDENCIES: _sig(str, "owner", "json"),
        Gate.CHECK_PERMISSION: _sig(str, "owner", "capability"),
        Gate.REQUEST_APPROVAL: _sig(str, "callId", "requestJson"),
        Gate.GET_APPROVAL: _sig(str, "approvalId"),
        Gate.COMPLETE_CALL: _sig(str, "callId", "resultJson"),
        Gate.FAIL_CALL: _sig(str, "callId", "message"),
        Gate.REPORT_PROGRESS: _sig(str, "callId", "text"),
        Gate.START_JOB: _sig(str, "owner", "jobJson"),
        Gate.GET_JOB: _sig(str, "id"),
        Gate.LIST_JOBS: _sig(str, "owner"),
        Gate.PAUSE_JOB: _sig(str, "id"),
        Gate.RESUME_JOB: _sig(str, "id"),
        Gate.CANCEL_JOB: _sig(str, "id"),
    }
)
MESSAGE_SIGNATURES: Final[Mapping[Message, GateSignature]] = MappingProxyType(
    {Message.READY: _sig(_NONE), Message.DISPOSING: _sig(_NONE)}
)
PLUGIN_GATE_SIGNATURES: Final[Mapping[PluginGate, GateSignature]] = MappingProxyType(
    {
        PluginGate.INVOKE: _sig(str, "callId", "tool", "argsJson"),
        PluginGate.CANCEL: _sig(_NONE, "callId"),
    }
)

# --------------------------------------------------------------------------- codes


class PluginState(StrEnum):
    """Where a third-party plugin stands with the player."""

    UNDECIDED = "undecided"
    KEPT_DISABLED = "kept_disabled"
    ENABLED = "enabled"
    AWAITING_CONSENT = "awaiting_consent"
    SUSPENDED = "suspended"


class Mode(StrEnum):
    """The player's setting for a capability or a tool."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


_STRICTNESS: Final = {Mode.ALLOW: 0, Mode.ASK: 1, Mode.DENY: 2}


def strictest(modes: Iterable[Mode]) -> Mode:
    """The strictest of some modes (deny over ask over allow); allow if there are none."""
    return max(modes, key=_STRICTNESS.__getitem__, default=Mode.ALLOW)


class Risk(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class CapabilityId(StrEnum):
    """The capability ids of the catalog. Ids are API: never rename one, only add."""

    READ_GAME = "read_game"
    GAME_UI = "game_ui"
    MOVE_CHARACTER = "move_character"
    MOVE_ITEMS = "move_items"
    NETWORK = "network"
    COMBAT = "combat"
    SPEND_GIL = "spend_gil"
    SPEND_CURRENCY = "spend_currency"
    TRADE_ITEMS = "trade_items"
    CHAT_SEND = "chat_send"
    LOGIN = "login"
    EDIT_SETTINGS = "edit_settings"
    DISCARD_ITEMS = "discard_items"


class DependencyState(StrEnum):
    OK = "ok"
    NEEDS_PLUGIN = "needs_plugin"
    PLUGIN_MISSING = "plugin_missing"
    PLUGIN_NOT_LOADED = "plugin_not_loaded"
    PLUGIN_OUTDATED = "plugin_outdated"
    TOOL_MISSING = "tool_missing"
    NOT_ENABLED = "not_enabled"


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


class Answer(StrEnum):
    """The player's answer in an approval window."""

    APPROVE_ONCE = "approve_once"
    APPROVE_SESSION = "approve_session"
    ALWAYS_ALLOW = "always_allow"
    DECLINE = "decline"


class AuditKind(StrEnum):
    """What an audit line records."""

    CALL = "call"
    DECISION = "decision"
    APPROVAL = "approval"
    REGISTRATION = "registration"
    CONSENT = "consent"
    SUSPENSION = "suspension"
    SETTING = "setting"
    DEPENDENCIES = "dependencies"


# --------------------------------------------------------------------------- the capability catalog


@dataclass(frozen=True, slots=True)
class Capability:
    """One entry of the catalog: what a tool may do, how risky it is, and what the player reads."""

    id: CapabilityId
    risk: Risk
    title: str
    description: str

    @property
    def default(self) -> Mode:
        return default_mode(self.risk)

    def info(self) -> CapabilityInfo:
        return CapabilityInfo(
            id=self.id, risk=self.risk, title=self.title, description=self.description, default=self.default
        )


def default_mode(risk: Risk) -> Mode:
    """Before the player chooses, only reading (low risk) runs without asking."""
    return Mode.ALLOW if risk is Risk.LOW else Mode.ASK


def is_mode_allowed(risk: Risk, mode: Mode) -> bool:
    """A critical capability can be asked or denied, never always allowed."""
    return not (risk is Risk.CRITICAL and mode is Mode.ALLOW)


CAPABILITIES: Final[tuple[Capability, ...]] = (
    Capability(
        CapabilityId.READ_GAME,
        Risk.LOW,
        "Read game state",
        "Reads the character, inventory, zone and other game data; changes nothing. Added to every tool for you.",
    ),
    Capability(
        CapabilityId.GAME_UI,
        Risk.MEDIUM,
        "Use game windows",
        "Opens, closes and clicks game windows and menus, and talks to NPCs.",
    ),
    Capability(
        CapabilityId.MOVE_CHARACTER,
        Risk.MEDIUM,
        "Move the character",
        "Walks, mounts, teleports, or changes zone, instance or world.",
    ),
    Capability(
        CapabilityId.MOVE_ITEMS,
        Risk.MEDIUM,
        "Move items",
        "Moves items between bags, armoury, saddlebag, retainers or chests.",
    ),
    Capability(CapabilityId.NETWORK, Risk.MEDIUM, "Go online", "Sends requests to web services outside the game."),
    Capability(CapabilityId.COMBAT, Risk.HIGH, "Fight", "Enters duties or fights; the character can die."),
    Capability(CapabilityId.SPEND_GIL, Risk.HIGH, "Spend gil", "Pays gil, including teleports and repairs."),
    Capability(
        CapabilityId.SPEND_CURRENCY,
        Risk.HIGH,
        "Spend other currencies",
        "Pays tomestones, scrips, seals, MGP or items used as currency.",
    ),
    Capability(
        CapabilityId.TRADE_ITEMS,
        Risk.HIGH,
        "Sell or trade items",
        "Lists on the market board, sells to vendors or trades with players.",
    ),
    Capability(CapabilityId.CHAT_SEND, Risk.HIGH, "Send chat", "Sends chat or commands other players can see."),
    Capability(
        CapabilityId.LOGIN,
        Risk.HIGH,
        "Log out or switch characters",
        "Logs out, switches character or closes the game.",
    ),
    Capability(CapabilityId.EDIT_SETTINGS, Risk.HIGH, "Change settings", "Changes game, plugin or file settings."),
    Capability(
        CapabilityId.DISCARD_ITEMS,
        Risk.CRITICAL,
        "Destroy items",
        "Discards or desynthesises items, anything that can't be undone. Always asked.",
    ),
)
CAPABILITY_IDS: Final[tuple[str, ...]] = tuple(c.id.value for c in CAPABILITIES)
_BY_ID: Final[Mapping[str, Capability]] = MappingProxyType({c.id.value: c for c in CAPABILITIES})


def find_capability(capability_id: str) -> Capability | None:
    """The catalog entry for an id, or ``None`` for an id the host does not know."""
    return _BY_ID.get(capability_id)


# XIV MCP's own tool names (core tools, the integrations it maintains, and this project's
# simulated ones). A plugin can't register any of them, and DeclareDependencies names them alone.
CORE_TOOL_NAMES: Final[frozenset[str]] = frozenset(
    """
    get_game_status get_character get_class_jobs get_inventory search_inventory get_equipment
    list_gearsets get_currencies list_unlock_categories check_unlocks get_active_quests check_quests
    get_party get_targets get_nearby_objects get_fates get_aetherytes get_companions get_submersibles
    list_game_sheets search_game_data get_game_data_row inspect_window run_self_test
    get_collections get_armoire get_glamour_dresser get_job_actions get_hotbars get_macros set_macro
    clear_macro list_waymark_presets get_waymark_preset set_waymark_preset place_waymark_preset
    list_windows open_window close_window interact_with_object get_menu select_menu_option
    load_game_data navigate_to get_navigation_status stop_navigation get_automation_status
    get_position set_map_flag clear_map_flag wait_until_arrived start_route
    list_characters switch_character refresh_character_list visit_world switch_gearset
    sort_inventory move_items get_retainers get_retainer_inventories open_retainer close_retainer
    refresh_retainer_inventories transfer_retainer_items get_fc_chest fc_chest_transfer find_ventures
    assign_venture recall_venture turn_in_collectables
    get_item_sources find_vendors buy_item request_spending_approval list_approvals revoke_approval
    get_market_prices get_market_listings get_sales get_sale_history sell_item reprice_listings
    get_crafting_lists set_crafting_list delete_crafting_list craft_item crafting_control
    get_gather_lists set_gather_list delete_gather_list set_auto_gather plan_craft prepare_craft_plan
    gather_until run_crafting_list
    list_duties run_duty get_duty_status stop_duty leave_duty
    start_job list_jobs get_job update_job pause_job resume_job cancel_job wait
    list_plugins set_plugin_enabled reload_plugin list_plugin_config_files get_plugin_config
    set_plugin_config get_cache_status wait_for_cache_refresh
    get_plugin_status list_toolsets search_tools call_tool get_player teleport echo
    """.split()
)

# --------------------------------------------------------------------------- JSON documents


class _Wire(msgspec.Struct, rename="camel"):
    """Base of the wire documents: snake_case in Python, camelCase on the wire."""


class ToolDefinition(msgspec.Struct, rename="camel", frozen=True, kw_only=True, omit_defaults=True):
    """``RegisterTool``'s definitionJson. ``inputSchema`` may be left out by a tool without arguments."""

    name: str
    description: str
    input_schema: dict[str, Any] | None = None
    read_only: bool = False
    destructive: bool = False
    capabilities: list[str] = []


class CapabilityInfo(_Wire, kw_only=True):
    id: str
    risk: Risk
    title: str
    description: str
    default: Mode


class CapabilitiesReply(_Wire, kw_only=True):
    capabilities: list[CapabilityInfo]


class CapabilityMode(_Wire, kw_only=True):
    id: str
    mode: Mode


class RegisterReply(_Wire, kw_only=True):
    name: str
    enabled: bool
    awaiting_consent: bool
    state: PluginState
    capabilities: list[CapabilityMode]


class UnregisterReply(_Wire, kw_only=True):
    removed: bool


class UnregisterAllReply(_Wire, kw_only=True):
    removed: int


class ToolMode(_Wire, kw_only=True):
    """A tool as a whole in ``GetStatus``: its mode, and whether the player set it on its own."""

    name: str
    mode: Mode
    own: bool


class InstallEntry(_Wire, kw_only=True, omit_defaults=True):
    """A plugin to install, enable or update; ``without`` says what XIV MCP does without it."""

    plugin: str
    name: str
    repo: str
    needed: bool
    installed: bool
    outdated: bool
    reason: str
    without: str | None = None


class DependencyEntry(_Wire, kw_only=True):
    tool: str
    plugin: str | None
    state: DependencyState
    message: str
    install: list[InstallEntry]


class DeclaredTool(_Wire, kw_only=True, omit_defaults=True):
    """One tool of a ``DeclareDependencies`` document: a built-in alone, another plugin's with all four fields."""

    tool: str
    plugin: str | None = None
    name: str | None = None
    repo: str | None = None
    min_version: str | None = None


class DependencyDeclaration(_Wire, kw_only=True):
    tools: list[DeclaredTool]


class DependenciesReply(_Wire, kw_only=True):
    dependencies: list[DependencyEntry]


class StatusReply(_Wire, kw_only=True):
    state: PluginState
    can_run: bool
    suspend_reason: str | None
    tools: list[ToolMode]
    capabilities: list[CapabilityMode]
    dependencies: list[DependencyEntry]


class CheckPermissionReply(_Wire, kw_only=True):
    capability: str
    mode: Mode
    enabled: bool
    suspended: bool
    state: PluginState


class ApprovalRequest(_Wire, kw_only=True):
    """``RequestApproval``'s requestJson: ``{"capability": "spend_gil", "summary": "Repair for 3,200 gil"}``."""

    capability: str
    summary: str


class ApprovalReply(_Wire, kw_only=True):
    approval_id: str
    state: ApprovalState


class CallAccepted(_Wire, kw_only=True):
    """``CompleteCall`` / ``FailCall``: whether this ended the call (false if it had already ended)."""

    accepted: bool


class InvokeResult(_Wire, kw_only=True):
    result: Any = None


class InvokeError(_Wire, kw_only=True):
    error: str


class InvokePending(_Wire, kw_only=True):
    pending: bool = True


InvokeReply = InvokeResult | InvokeError | InvokePending


class JobStep(_Wire, kw_only=True, omit_defaults=True):
    id: str = ""
    tool: str
    args: dict[str, Any] = {}
    note: str | None = None


class Job(_Wire, kw_only=True):
    """``StartJob``'s jobJson."""

    name: str
    steps: list[JobStep]


class JobInfo(_Wire, kw_only=True):
    """A job as the host reports it (the job runtime adds fields, always with defaults)."""

    id: str
    name: str
    state: str
    owner: str | None = None
    steps: list[JobStep] = []


class JobReply(_Wire, kw_only=True):
    job: JobInfo


class JobsReply(_Wire, kw_only=True):
    jobs: list[JobInfo]


class ErrorReply(_Wire, kw_only=True):
    ok: bool = False
    error: str


def list_capabilities() -> CapabilitiesReply:
    """``ListCapabilities``'s document: the whole catalog with each entry's default mode."""
    return CapabilitiesReply(capabilities=[c.info() for c in CAPABILITIES])


# --------------------------------------------------------------------------- decoding

T = TypeVar("T")
P = ParamSpec("P")


class DocumentDecoder(Generic[T]):
    """A decoder built once for one input document, with errors that say what to send instead."""

    def __init__(self, type_: type[T], what: str, example: str) -> None:
        self._decoder = msgspec.json.Decoder(type_)
        self.what = what
        self.example = example

    def decode(self, text: str | bytes) -> T:
        if not text or not text.strip():
            raise InvalidDocumentError(f"The {self.what} is empty. Send {self.example}.")
        try:
            return self._decoder.decode(text)
        except msgspec.ValidationError as exc:
            raise InvalidDocumentError(f"The {self.what} is not valid: {exc}. Send {self.example}.") from exc
        except msgspec.DecodeError as exc:
            raise InvalidDocumentError(f"The {self.what} is not valid JSON ({exc}). Send {self.example}.") from exc


_TOOL_DEFINITION: Final = DocumentDecoder(
    ToolDefinition,
    "tool definition",
    'a JSON object like {"name": "myplugin_do_thing", "description": "What it does.", "capabilities": ["game_ui"]}',
)
_DEPENDENCY_DECLARATION: Final = DocumentDecoder(
    DependencyDeclaration,
    "dependency declaration",
    '{"tools": [{"tool": "navigate_to"}, {"tool": "otherplugin_announce", "plugin": "OtherPlugin", '
    '"name": "Other Plugin", "repo": "https://example.com/repo.json", "minVersion": "1.2.0"}]}',
)
_APPROVAL_REQUEST: Final = DocumentDecoder(
    ApprovalRequest, "approval request", '{"capability": "spend_gil", "summary": "Repair for 3,200 gil"}'
)
_JOB: Final = DocumentDecoder(
    Job,
    "job",
    '{"name": "Farm, then report", "steps": [{"id": "farm", "tool": "myplugin_farm", "args": {"minutes": 90}}]}',
)
_ANY: Final = msgspec.json.Decoder()
_ENCODER: Final = msgspec.json.Encoder()


def decode_tool_definition(text: str | bytes) -> ToolDefinition:
    return _TOOL_DEFINITION.decode(text)


def decode_dependency_declaration(text: str | bytes) -> DependencyDeclaration:
    return _DEPENDENCY_DECLARATION.decode(text)


def decode_approval_request(text: str | bytes) -> ApprovalRequest:
    return _APPROVAL_REQUEST.decode(text)


def decode_job(text: str | bytes) -> Job:
    return _JOB.decode(text)


def decode_invoke_reply(text: str | bytes | None, plugin: str) -> InvokeReply:
    """A plugin's ``Invoke`` reply. Blank is a null result; ``error`` wins over ``pending``, then ``result``."""
    expected = f'{plugin} returned an invalid reply: expected {{"result": …}}, {{"error": "…"}} or {{"pending": true}}.'
    if text is None or not text.strip():
        return InvokeResult(result=None)
    try:
        reply = _ANY.decode(text)
    except msgspec.DecodeError as exc:
        raise InvalidDocumentError(f"{plugin} returned invalid JSON ({exc}). {expected}") from exc
    if not isinstance(reply, dict):
        raise InvalidDocumentError(expected)
    if "error" in reply:
        error = reply["error"]
        if error is None:
            return InvokeError(error="Failed.")
        return InvokeError(error=error if isinstance(error, str) else encode_json(error))
    if reply.get("pending") is True:
        return InvokePending()
    if "result" in reply:
        return InvokeResult(result=reply["result"])
    raise InvalidDocumentError(expected)


def encode_json(value: object) -> str:
    """Any JSON-able value (Structs and StrEnums included) as a compact JSON string."""
    return _ENCODER.encode(value).decode()


# --------------------------------------------------------------------------- replies


def ok_reply(payload: msgspec.Struct | None = None) -> str:
    """``{"ok": true, ...payload}``: what every host gate answers on success."""
    if payload is None:
        return '{"ok":true}'
    body = _ENCODER.encode(payload)
    if not body.startswith(b"{"):
        raise TypeError(f"A reply payload must encode as a JSON object, not {body[:20]!r}.")
    if body == b"{}":
        return '{"ok":true}'
    return '{"ok":true,' + body[1:].decode()


MAX_ERROR_TEXT: Final = 8 * 1024
"""The longest ``error`` a host gate answers: a reply stays small whatever it was sent (G2)."""


def error_reply(message: str) -> str:
    """``{"ok": false, "error": message}``: what every host gate answers when it refuses."""
    if len(message) > MAX_ERROR_TEXT:
        message = message[: MAX_ERROR_TEXT - 40] + f"… ({len(message)} characters, cut)"
    return encode_json(ErrorReply(error=message))


def exception_reply(exc: BaseException) -> str:
    """A refusal as its own message; anything else as ``"TypeName: message"`` (it is also logged)."""
    if isinstance(exc, RefusedError):
        return error_reply(str(exc))
    _log.error("A host gate failed unexpectedly", exc_info=exc)
    return error_reply(f"{type(exc).__name__}: {exc}")


def guard_gate(fn: Callable[P, str]) -> Callable[P, str]:
    """Wraps a gate handler so it never raises into the caller (G2)."""

    @functools.wraps(fn)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            return exception_reply(exc)

    return guarded


def guard_gate_async(fn: Callable[P, Awaitable[str]]) -> Callable[P, Awaitable[str]]:
    """:func:`guard_gate` for a coroutine handler. Cancellation still propagates."""

    @functools.wraps(fn)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return await fn(*args, **kwargs)
        except Exception as exc:
            return exception_reply(exc)

    return guarded


_OK_ONLY: Final = msgspec.json.Decoder(dict[str, Any])


def decode_host_reply(text: str | bytes, type_: type[T]) -> T:
    """For a plugin: a host gate's reply as ``type_``, or :class:`HostReplyError` with the host's message."""
    try:
        raw = _OK_ONLY.decode(text)
    except msgspec.DecodeError as exc:
        raise InvalidDocumentError(f"XIV MCP's reply is not a JSON object ({exc}).") from exc
    if raw.get("ok") is not True:
        raise HostReplyError(str(raw.get("error") or "XIV MCP refused the request without a message."))
    try:
        return msgspec.convert(raw, type_)
    except msgspec.ValidationError as exc:
        raise InvalidDocumentError(f"XIV MCP's reply does not have the expected shape: {exc}.") from exc


# --------------------------------------------------------------------------- the player's side
#
# The game's /xivmcp window, as commands: `xivmcp enable`, `approve`, `call`, … send one of these
# to the host's `XivMcp.Player` gate with the player key from the data dir (plugins have no key).

PLAYER_GATE: Final = "XivMcp.Player"
PLAYER_KEY_FILE: Final = "player.key"


class _Command(_Wire, kw_only=True, tag_field="cmd", forbid_unknown_fields=True):
    pass


class ListPlugins(_Command, tag="plugins"):
    pass


class EnablePlugin(_Command, tag="enable"):
    plugin: str


class KeepDisabled(_Command, tag="keep_disabled"):
    plugin: str


class ConsentPlugin(_Command, tag="consent"):
    plugin: str


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


class AdvanceClock(_Command, tag="advance_clock"):
    seconds: float


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
    | AdvanceClock
)

_PLAYER_COMMAND: Final[DocumentDecoder[Any]] = DocumentDecoder(
    PlayerCommand,  # type: ignore[arg-type]  # a union, which msgspec decodes
    "player command",
    '{"cmd": "enable", "plugin": "MyPlugin"}',
)


def decode_player_command(text: str | bytes) -> PlayerCommand:
    result: PlayerCommand = _PLAYER_COMMAND.decode(text)
    return result
