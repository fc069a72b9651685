"""The player's commands (the game's /xivmcp window) and `xivmcp call` (as the assistant would).

Each command connects to the bus, sends one command to the host's `XivMcp.Player` gate (proving
the player key of the data dir, see `gates.player.PlayerClient`), prints what it did (a sentence, a
table; `--json`: the host's whole answer) and exits 1 with the host's message on a refusal, 2
when there is no host to ask. `xivmcp call` says on stderr what the call waits for (the approval
to answer, with the command that answers it) and its progress lines, unless `--quiet`.

The commands are a table (`_PLAYER_COMMANDS`): each row names a command, its help, its arguments
and how they become the player's typed command (`gates.player`); the reply is typed too.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

import msgspec

from broker import PluginInterface, connect
from game import GameClient, GameError
from gates.contract import HOST_NAME, Answer, escaped
from gates.player import (
    JOB_ACTIONS,
    PLAYER_HELLO_GATE,
    PLAYER_KEY_FILE,
    AdvanceClock,
    AnswerApproval,
    ApprovalEvent,
    CallReply,
    CallTool,
    ClearSession,
    Command,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    Install,
    KeepDisabled,
    LiftSuspension,
    ListApprovals,
    ListInstalled,
    ListJobs,
    ListModules,
    ListPlugins,
    NotYourHostError,
    PlayerClient,
    PlayerError,
    ProgressEvent,
    ReadAudit,
    SetMode,
    SetModule,
    SetToolSetting,
    ShowJob,
    Uninstall,
    decode_call_event,
)

from ._common import bus_curve, cli_peer_name, print_err, run_async
from ._player_text import print_json, print_reply


@dataclass(frozen=True, slots=True)
class _Arg:
    """One `add_argument` of a command: its names and options, as argparse takes them."""

    names: tuple[str, ...]
    options: dict[str, Any]

    def add_to(self, parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup) -> None:
        parser.add_argument(*self.names, **self.options)


def _arg(*names: str, **options: Any) -> _Arg:
    return _Arg(names, options)


@dataclass(frozen=True, slots=True)
class _OneOf:
    """Options of which a command takes one at most."""

    arguments: tuple[_Arg, ...]

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_mutually_exclusive_group()
        for argument in self.arguments:
            argument.add_to(group)


@dataclass(frozen=True, slots=True)
class _PlayerCommand:
    """A row of the table: `xivmcp NAME ARGUMENTS` sends `build(args)`."""

    name: str
    help: str
    build: Callable[[argparse.Namespace], Command[Any]]
    """The command to send; raises `_UsageError` for arguments argparse cannot refuse by itself."""
    arguments: tuple[_Arg | _OneOf, ...] = ()


class _UsageError(Exception):
    """Arguments that do not make a command (exit 2, before anything is asked)."""


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise SystemExit(f"ARGS_JSON is not JSON ({exc}); pass an object such as '{{\"x\": 21.4}}'.") from None
    if not isinstance(value, dict):
        raise SystemExit("ARGS_JSON must be a JSON object, such as '{\"x\": 21.4}'.")
    return value


def _answer(args: argparse.Namespace) -> Answer:
    return Answer.APPROVE_SESSION if args.session else Answer.ALWAYS_ALLOW if args.always else Answer.APPROVE_ONCE


def _job(args: argparse.Namespace) -> ShowJob | ControlJob:
    """`xivmcp job ID` shows a job; `xivmcp job pause|resume|cancel ID` steers it."""
    if args.id is None:
        return ShowJob(id=args.first, log_lines=args.log_lines)
    if args.first not in JOB_ACTIONS:
        raise _UsageError(
            f"{args.first!r} is not a job action: `xivmcp job pause|resume|cancel ID`, or `xivmcp job ID`."
        )
    return ControlJob(id=args.id, action=args.first)


_PLUGIN: Final = _arg("plugin", help="the plugin's InternalName")
_DIGEST: Final = _arg(
    "--digest",
    default=None,
    help="the registration digest `xivmcp plugins` showed you (default: the registration shown now)",
)
"""Left out, `enable` and `consent` ask for the digest shown now (`send_command` fills it in)."""
_MODES: Final = ["allow", "ask", "deny", "default"]

_PLAYER_COMMANDS: Final = (
    _PlayerCommand("plugins", "each plugin: state, tools, capability modes, what it awaits", lambda a: ListPlugins()),
    _PlayerCommand(
        "enable",
        "enable a plugin (its tools may run)",
        lambda a: EnablePlugin(plugin=a.plugin, digest=a.digest or ""),
        (_PLUGIN, _DIGEST),
    ),
    _PlayerCommand(
        "consent",
        "accept a plugin's grown registration",
        lambda a: ConsentPlugin(plugin=a.plugin, digest=a.digest or ""),
        (_PLUGIN, _DIGEST),
    ),
    _PlayerCommand(
        "keep-disabled",
        "keep a plugin disabled (not asked again until it grows)",
        lambda a: KeepDisabled(plugin=a.plugin),
        (_PLUGIN,),
    ),
    _PlayerCommand("lift", "lift a plugin's suspension", lambda a: LiftSuspension(plugin=a.plugin), (_PLUGIN,)),
    _PlayerCommand(
        "clear-session",
        "forget a plugin's \"for this session\" approvals (the window's Clear)",
        lambda a: ClearSession(plugin=a.plugin),
        (_PLUGIN,),
    ),
    _PlayerCommand(
        "mode",
        "set a capability or a tool of a plugin to allow, ask, deny (or default)",
        lambda a: SetMode(plugin=a.plugin, target=a.target, mode=a.mode),
        (
            _arg("plugin"),
            _arg("target", help="a capability id (spend_gil, …) or one of the plugin's tool names"),
            _arg("mode", choices=_MODES),
        ),
    ),
    _PlayerCommand(
        "approvals",
        "the approvals waiting for the player",
        lambda a: ListApprovals(wait=a.wait),
        (
            _arg(
                "--wait", type=float, default=0, metavar="SECONDS", help="if none waits yet, wait up to SECONDS for one"
            ),
        ),
    ),
    _PlayerCommand(
        "approve",
        "approve a waiting approval (once, for this session, or always)",
        lambda a: AnswerApproval(approval_id=a.approval_id, answer=_answer(a)),
        (
            _arg("approval_id"),
            _OneOf(
                (
                    _arg("--session", action="store_true", help="approve for this session"),
                    _arg("--always", action="store_true", help="always allow this tool"),
                )
            ),
        ),
    ),
    _PlayerCommand(
        "decline",
        "decline a waiting approval",
        lambda a: AnswerApproval(approval_id=a.approval_id, answer=Answer.DECLINE),
        (_arg("approval_id"),),
    ),
    _PlayerCommand(
        "audit",
        "the audit log's last entries",
        lambda a: ReadAudit(plugin=a.plugin, limit=a.limit),
        (_arg("--plugin", default=None), _arg("-n", "--limit", type=int, default=50)),
    ),
    _PlayerCommand(
        "call",
        "call a tool as the assistant would (through the permission gate)",
        lambda a: CallTool(tool=a.tool, arguments=_arguments(a.arguments)),
        (
            _arg("tool"),
            _arg("arguments", nargs="?", default="{}", help="the arguments as a JSON object"),
            _arg("-q", "--quiet", action="store_true", help="do not say what the call waits for, nor its progress"),
            _arg(
                "--save",
                metavar="FILE",
                default=None,
                help="write the image the tool returns (take_screenshot's PNG) to FILE, a second one to FILE-2.png, "
                "...; without it an image is described (type, bytes), not printed",
            ),
        ),
    ),
    _PlayerCommand("jobs", "the background jobs: id, name, state, step, why they wait", lambda a: ListJobs()),
    _PlayerCommand(
        "job",
        "one job (its steps, results and log), or pause / resume / cancel it",
        _job,
        (
            _arg("first", metavar="[pause|resume|cancel] ID", help="the job's id or name, after an action if any"),
            _arg("id", nargs="?", help=argparse.SUPPRESS),
            _arg("-n", "--log-lines", type=int, default=30, help="log lines to show (default 30, max 200)"),
        ),
    ),
    _PlayerCommand(
        "modules",
        "XIV MCP's own tools by module: reading and changes modes, each tool's setting",
        lambda a: ListModules(),
    ),
    _PlayerCommand(
        "module",
        "set a module's reading or changes mode (allow, ask, deny, default), or turn it on or off",
        lambda a: SetModule(module=a.module, what=a.what, mode=a.mode),
        (
            _arg("module", help="the module's id, as `xivmcp modules` shows it (game_data, game_navigation, ...)"),
            _arg("what", choices=["reading", "changes", "on", "off"]),
            _arg("mode", nargs="?", choices=_MODES, help="for reading or changes"),
        ),
    ),
    _PlayerCommand(
        "tool",
        "set one of XIV MCP's own tools on its own (allow, ask, deny) or back to its module (group)",
        lambda a: SetToolSetting(tool=a.tool, setting=a.setting),
        (
            _arg("tool", help="the tool's name, such as set_map_flag"),
            _arg("setting", choices=["group", "allow", "ask", "deny"]),
        ),
    ),
    _PlayerCommand(
        "installed",
        "the plugins installed, as Dalamud would list them: on the bus (loaded) or known to the host",
        lambda a: ListInstalled(),
    ),
    _PlayerCommand(
        "install",
        "put a plugin on the installed list (not running), or change its display name, version or repo",
        lambda a: Install(plugin=a.plugin, name=a.name, version=a.version, repo=a.repo),
        (
            _arg("plugin", help="its InternalName"),
            _arg("--name", help="its display name, as players see it"),
            _arg("--version", help='its version, like "1.2.0" (dependencies check minVersion against it)'),
            _arg("--repo", help='the https URL of its repo.json, or "official"'),
        ),
    ),
    _PlayerCommand(
        "uninstall",
        "take a plugin off the installed list",
        lambda a: Uninstall(plugin=a.plugin),
        (_arg("plugin", help="its InternalName"),),
    ),
    _PlayerCommand(
        "advance-clock",
        "move a --test-clock host's clock forward, and a --test-clock game's with it (tests)",
        lambda a: AdvanceClock(seconds=a.seconds),
        (_arg("seconds", type=float),),
    ),
)
"""Every player command of `xivmcp`, in the order `xivmcp --help` lists them."""


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    out = argparse.ArgumentParser(add_help=False)
    out.add_argument("--json", action="store_true", help="print the host's JSON answer")
    for command in _PLAYER_COMMANDS:
        parser = sub.add_parser(command.name, parents=[common, out], help=command.help)
        for argument in command.arguments:
            argument.add_to(parser)
        parser.set_defaults(func=partial(send_command, build=command.build), finds_system=True)


def send_command(
    args: argparse.Namespace,
    *,
    build: Callable[[argparse.Namespace], Command[Any]],
    show: Callable[[msgspec.Struct, dict[str, str], bool], None] | None = None,
) -> int:
    """Send the command `build(args)` makes and print its reply: `show(reply, extra, as_json)`,
    else the player's text (`--json`: the host's whole answer). 0 done, 1 refused, 2 no host."""
    try:
        command = build(args)  # first: a usage error is said before anything is asked
    except _UsageError as exc:
        print_err(str(exc))
        return 2
    data_dir = Path(args.data_dir)
    if not (data_dir / PLAYER_KEY_FILE).exists():
        print_err(
            f"No player key at {data_dir / PLAYER_KEY_FILE}: no XIV MCP host has run with this data dir. "
            f"Start one with `xivmcp up --data-dir {data_dir}` (or pass the --data-dir it uses)."
        )
        return 2

    async def run() -> int:
        nonlocal command
        extra: dict[str, str] = {}
        async with connect(args.bus, cli_peer_name(), curve=bus_curve(args)) as pi:
            if not pi.get_ipc_subscriber(PLAYER_HELLO_GATE).has_function():
                print_err(
                    f"XIV MCP is not running on the bus {args.bus}: start it with `xivmcp up` "
                    "(or `xivmcp host` next to a running `xivmcp broker`); `xivmcp status` shows what runs."
                )
                return 2
            player = PlayerClient.for_data_dir(pi, data_dir)
            try:
                if isinstance(command, EnablePlugin | ConsentPlugin) and args.digest is None:
                    command = msgspec.structs.replace(command, digest=await player.digest(command.plugin))
                if isinstance(command, CallTool) and not args.quiet:
                    command = msgspec.structs.replace(command, notify=_tell_the_player(pi))
                reply = await player.send(command)
                if isinstance(command, AdvanceClock):
                    extra["game"] = await _advance_game_clock(pi, data_dir, command.seconds)
            except NotYourHostError as exc:
                print_err(str(exc))
                return 2
            except PlayerError as exc:
                print_err(exc.message)
                return 1
        if isinstance(reply, CallReply) and reply.suspended_plugin is not None:
            plugin = reply.suspended_plugin
            print_err(
                escaped(
                    f"XIV MCP suspended {plugin} after this call: {reply.suspend_reason}. Its tools are refused "
                    f"until you lift it (`xivmcp lift {plugin}`)."
                )
            )
        if isinstance(reply, CallReply) and reply.is_error:
            print_err(escaped(str(reply.error)))  # the plugin's text: one line, whatever it holds (S3)
            return 1
        if isinstance(reply, CallReply) and reply.images and getattr(args, "save", None):
            try:
                extra.update(_save_images(reply, Path(args.save)))
            except OSError as exc:
                print_err(f"Could not write the image to {args.save}: {exc.strerror or exc}.")
                return 1
        (show or _show)(reply, extra, args.json)
        return 0

    return run_async(run, verbose=args.verbose)


def _save_images(reply: CallReply, path: Path) -> dict[str, str]:
    """Write a call's images, the first to `path`, the next to `path`-2 and on; `extra`'s entries
    that say where each went (`image0`, `image1`, ...)."""
    saved: dict[str, str] = {}
    for index, image in enumerate(reply.images):
        target = path if index == 0 else path.with_name(f"{path.stem}-{index + 1}{path.suffix}")
        target.write_bytes(image.data)
        saved[f"image{index}"] = str(target)
    return saved


def _show(reply: msgspec.Struct, extra: dict[str, str], as_json: bool) -> None:
    if as_json:
        print_json({"ok": True, **msgspec.to_builtins(reply), **extra})
    else:
        print_reply(reply, extra)


async def _advance_game_clock(pi: PluginInterface, data_dir: Path, seconds: float) -> str:
    """One clock for the whole system under test: the game's test clock moves with the host's."""
    game = GameClient.as_player(pi, data_dir)  # Game.AdvanceClock answers only the player key (F4)
    if not game.available:
        return "no game on the bus"
    try:
        now = (await game.advance_clock(seconds)).time
    except GameError as exc:  # a game on the real clock: its time is its own
        return str(exc)
    return f"game clock at {now:g} s"


def _tell_the_player(pi: PluginInterface) -> str:
    """Provide an action gate of this process that prints a call's events on stderr; its name."""
    gate = f"{pi.name}.CallEvents"

    def on_event(text: str) -> None:
        match decode_call_event(text):
            case ApprovalEvent(approval_id=approval, summary=summary):
                print_err(
                    f"waiting for the player: {summary}. Answer with `xivmcp approve {approval}` "
                    f"(or --session, --always), or `xivmcp decline {approval}`."
                )
            case ProgressEvent(text=line):
                print_err(f"progress: {line}")

    # The host's alone (S1): a plugin that calls it is refused, and prints nothing here.
    pi.get_ipc_provider(gate, params=(str,)).register_action(on_event, callers=(HOST_NAME,))
    return gate
