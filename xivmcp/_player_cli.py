"""The player's commands (the game's /xivmcp window) and `xivmcp call` (as the assistant would).

Each command connects to the bus, sends one command to the host's `XivMcp.Player` gate (proving
the player key of the data dir, see `gates.player.PlayerClient`), prints what it did (a sentence, a
table; `--json`: the host's whole answer) and exits 1 with the host's message on a refusal, 2
when there is no host to ask. `xivmcp call` says on stderr what the call waits for (the approval
to answer, with the command that answers it) and its progress lines, unless `--quiet`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import msgspec

from broker import PluginInterface, connect
from game import GameClient, GameError
from gates.host import PluginsReport
from gates.player import PLAYER_HELLO_GATE, PLAYER_KEY_FILE, NotYourHostError, PlayerClient

from ._common import cli_peer_name, print_err, run_async


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    out = argparse.ArgumentParser(add_help=False)
    out.add_argument("--json", action="store_true", help="print the host's JSON answer")

    def command(name: str, help_text: str, build: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common, out], help=help_text)
        p.set_defaults(func=lambda args: _send(args, build(args)), finds_system=True)
        return p

    command("plugins", "each plugin: state, tools, capability modes, what it awaits", lambda a: {"cmd": "plugins"})
    for name, cmd, text in (
        ("enable", "enable", "enable a plugin (its tools may run)"),
        ("consent", "consent", "accept a plugin's grown registration"),
    ):
        p = command(name, text, lambda a, cmd=cmd: {"cmd": cmd, "plugin": a.plugin, "digest": a.digest})
        p.add_argument("plugin", help="the plugin's InternalName")
        p.add_argument(
            "--digest",
            default=None,
            help="the registration digest `xivmcp plugins` showed you (default: the registration shown now)",
        )
    for name, cmd, text in (
        ("keep-disabled", "keep_disabled", "keep a plugin disabled (not asked again until it grows)"),
        ("lift", "lift", "lift a plugin's suspension"),
    ):
        p = command(name, text, lambda a, cmd=cmd: {"cmd": cmd, "plugin": a.plugin})
        p.add_argument("plugin", help="the plugin's InternalName")
    p = command(
        "mode",
        "set a capability or a tool of a plugin to allow, ask, deny (or default)",
        lambda a: {"cmd": "mode", "plugin": a.plugin, "target": a.target, "mode": a.mode},
    )
    p.add_argument("plugin")
    p.add_argument("target", help="a capability id (spend_gil, …) or one of the plugin's tool names")
    p.add_argument("mode", choices=["allow", "ask", "deny", "default"])
    p = command("approvals", "the approvals waiting for the player", lambda a: {"cmd": "approvals", "wait": a.wait})
    p.add_argument(
        "--wait", type=float, default=0, metavar="SECONDS", help="if none waits yet, wait up to SECONDS for one"
    )
    p = command(
        "approve",
        "approve a waiting approval (once, for this session, or always)",
        lambda a: {
            "cmd": "answer",
            "approvalId": a.approval_id,
            "answer": "approve_session" if a.session else "always_allow" if a.always else "approve_once",
        },
    )
    p.add_argument("approval_id")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--session", action="store_true", help="approve for this session")
    scope.add_argument("--always", action="store_true", help="always allow this tool")
    p = command(
        "decline",
        "decline a waiting approval",
        lambda a: {"cmd": "answer", "approvalId": a.approval_id, "answer": "decline"},
    )
    p.add_argument("approval_id")
    p = command(
        "audit", "the audit log's last entries", lambda a: {"cmd": "audit", "plugin": a.plugin, "limit": a.limit}
    )
    p.add_argument("--plugin", default=None)
    p.add_argument("-n", "--limit", type=int, default=50)
    p = command(
        "call",
        "call a tool as the assistant would (through the permission gate)",
        lambda a: {"cmd": "call", "tool": a.tool, "arguments": _arguments(a.arguments)},
    )
    p.add_argument("tool")
    p.add_argument("arguments", nargs="?", default="{}", help="the arguments as a JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="do not say what the call waits for, nor its progress")
    p = command("jobs", "the background jobs: id, name, state, step, why they wait", lambda a: {"cmd": "jobs"})
    p = command(
        "job",
        "one job (its steps, results and log), or pause / resume / cancel it",
        lambda a: {},  # `_job_command` builds the command (the action comes first, if any)
    )
    p.add_argument("first", metavar="[pause|resume|cancel] ID", help="the job's id or name, after an action if any")
    p.add_argument("id", nargs="?", help=argparse.SUPPRESS)
    p.add_argument("-n", "--log-lines", type=int, default=30, help="log lines to show (default 30, max 200)")
    p.set_defaults(func=_job_command)
    command(
        "modules",
        "XIV MCP's own tools by module: reading and changes modes, each tool's setting",
        lambda a: {"cmd": "modules"},
    )
    p = command(
        "module",
        "set a module's reading or changes mode (allow, ask, deny, default), or turn it on or off",
        lambda a: {"cmd": "module", "module": a.module, "what": a.what, "mode": a.mode},
    )
    p.add_argument("module", help="the module's id, as `xivmcp modules` shows it (game_data, game_navigation, ...)")
    p.add_argument("what", choices=["reading", "changes", "on", "off"])
    p.add_argument("mode", nargs="?", choices=["allow", "ask", "deny", "default"], help="for reading or changes")
    p = command(
        "tool",
        "set one of XIV MCP's own tools on its own (allow, ask, deny) or back to its module (group)",
        lambda a: {"cmd": "tool", "tool": a.tool, "setting": a.setting},
    )
    p.add_argument("tool", help="the tool's name, such as set_map_flag")
    p.add_argument("setting", choices=["group", "allow", "ask", "deny"])
    p = command(
        "advance-clock",
        "move a --test-clock host's clock forward, and a --test-clock game's with it (tests)",
        lambda a: {"cmd": "advance_clock", "seconds": a.seconds},
    )
    p.add_argument("seconds", type=float)


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise SystemExit(f"ARGS_JSON is not JSON ({exc}); pass an object such as '{{\"x\": 21.4}}'.") from None
    if not isinstance(value, dict):
        raise SystemExit("ARGS_JSON must be a JSON object, such as '{\"x\": 21.4}'.")
    return value


def _send(args: argparse.Namespace, command: dict[str, Any]) -> int:
    data_dir = Path(args.data_dir)
    if not (data_dir / PLAYER_KEY_FILE).exists():
        print_err(
            f"No player key at {data_dir / PLAYER_KEY_FILE}: no XIV MCP host has run with this data dir. "
            f"Start one with `xivmcp up --data-dir {data_dir}` (or pass the --data-dir it uses)."
        )
        return 2

    async def run() -> int:
        async with connect(args.bus, cli_peer_name()) as pi:
            if not pi.get_ipc_subscriber(PLAYER_HELLO_GATE).has_function():
                print_err(
                    f"XIV MCP is not running on the bus {args.bus}: start it with `xivmcp up` "
                    "(or `xivmcp host` next to a running `xivmcp broker`); `xivmcp status` shows what runs."
                )
                return 2
            player = PlayerClient.for_data_dir(pi, data_dir)
            fields = {k: v for k, v in command.items() if k != "cmd"}
            if command["cmd"] == "call" and not getattr(args, "quiet", False):
                fields["notify"] = _tell_the_player(pi)
            try:
                if command["cmd"] in ("enable", "consent"):
                    reply = await player.enable(fields["plugin"], fields["digest"], cmd=command["cmd"])
                else:
                    reply = await player.command(command["cmd"], **fields)
                if command["cmd"] == "advance_clock" and reply.get("ok"):
                    reply["game"] = await _advance_game_clock(pi, data_dir, fields["seconds"])
            except NotYourHostError as exc:
                print_err(str(exc))
                return 2
        if not reply.get("ok") or reply.get("isError"):
            print_err(str(reply.get("error")))
            return 1
        if args.json:
            print(json.dumps(reply, indent=2, ensure_ascii=False))
        else:
            _print(command["cmd"], reply)
        return 0

    return run_async(run, verbose=args.verbose)


def _job_command(args: argparse.Namespace) -> int:
    """`xivmcp job ID` shows a job; `xivmcp job pause|resume|cancel ID` steers it."""
    if args.id is None:
        return _send(args, {"cmd": "job", "id": args.first, "logLines": args.log_lines})
    if args.first not in ("pause", "resume", "cancel"):
        print_err(f"{args.first!r} is not a job action: `xivmcp job pause|resume|cancel ID`, or `xivmcp job ID`.")
        return 2
    return _send(args, {"cmd": "job_control", "id": args.id, "action": args.first})


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
        event = json.loads(text)
        if event.get("kind") == "approval":
            approval = event["approvalId"]
            print_err(
                f"waiting for the player: {event['summary']}. Answer with `xivmcp approve {approval}` "
                f"(or --session, --always), or `xivmcp decline {approval}`."
            )
        elif event.get("kind") == "progress":
            print_err(f"progress: {event['text']}")

    pi.get_ipc_provider(gate, params=(str,)).register_action(on_event)
    return gate


def _print(cmd: str, reply: dict[str, Any]) -> None:
    if cmd == "plugins":
        _print_plugins(msgspec.convert(reply, PluginsReport))
    elif cmd == "approvals":
        if not reply["approvals"]:
            print("no approvals waiting")
        for a in reply["approvals"]:
            print(
                f"{a['approvalId']}: {a['plugin']} {a['tool']} [{', '.join(a['capabilities'])}] {a['summary']}"
                f" ({a['secondsLeft']} s left)"
            )
    elif cmd == "jobs":
        if not reply["jobs"]:
            print("no jobs")
        for j in reply["jobs"]:
            at = f" at {j['step']}" if j["step"] else ""
            why = f": {j['message']}" if j["message"] else ""
            print(f"{j['id']}: {j['name']} [{j['state']}{at}] {j['steps']} steps{why}")
    elif cmd == "job":
        _print_job(reply["job"])
    elif cmd == "audit":
        _print_audit(reply["entries"])
    elif cmd == "modules":
        _print_modules(reply["modules"])
    elif cmd == "call":
        result = reply.get("result")
        print(result if isinstance(result, str) else json.dumps(result))
    elif cmd == "advance_clock":
        print(f"host clock at {reply['now']:g} s; {reply['game']}")
    elif "message" in reply:
        print(reply["message"])
    else:
        print(json.dumps({k: v for k, v in reply.items() if k != "ok"}, ensure_ascii=False))


def _print_plugins(report: PluginsReport) -> None:
    if not report.plugins:
        print("no third-party plugins yet")
    for card in report.plugins:
        connected = "connected" if card.connected else "not connected"
        print(f"{card.name}: {card.state} ({connected}; registration {card.digest})")
        if card.suspend_reason:
            print(f"  suspended: {card.suspend_reason}")
        if card.awaits is not None:
            aw = card.awaits
            print(
                f"  awaits the player: new tools {', '.join(aw.new_tools) or 'none'}; "
                f"new capabilities {', '.join(aw.new_capabilities) or 'none'} (`xivmcp enable {card.name}`)"
            )
        for capability in card.capabilities:
            print(f"  capability {capability.id}: {capability.mode}")
        for tool in card.tools:
            kind = "read-only" if tool.read_only else ", ".join(tool.capabilities)
            print(f"  tool {tool.name}: {tool.mode} ({kind})")


def _print_modules(modules: list[dict[str, Any]]) -> None:
    for m in modules:
        modes = ", ".join(f"{access} {m[access]}" for access in ("reading", "changes") if m[access] is not None)
        state = modes if m["on"] else "OFF (its tools are not offered)"
        driven = f"; offered while {m['plugin']} is loaded" if m["plugin"] else ""
        print(f"{m['id']} ({m['title']}): {state}{driven}")
        for t in m["tools"]:
            own = f" (set on its own: {t['setting']})" if t["setting"] != "group" else ""
            mode = t["mode"] if t["available"] else "not available now"
            print(f"  {t['name']}: {mode}{own}")


def _print_audit(entries: list[dict[str, Any]]) -> None:
    if not entries:
        print("the audit log is empty")
    for e in entries:
        details = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in (e.get("details") or {}).items())
        flag = " FLAGGED" if e.get("flagged") else ""
        where = " ".join(x for x in (e.get("plugin"), e.get("tool")) if x)
        print(f"{e['time']}  {e['kind']:<12} {where}{flag}  {details}".rstrip())


def _print_job(job: dict[str, Any]) -> None:
    owner = f", started by {job['owner']}" if job["owner"] else ""
    print(f"{job['id']}: {job['name']} [{job['state']}]{owner}")
    if job["message"]:
        print(f"  {job['message']}")
    for s in job["steps"]:
        outcome = f" -> {json.dumps(s['result'], ensure_ascii=False)}" if s["state"] == "done" else ""
        error = f" ({s['error']})" if s["error"] else ""
        print(f"  {s['id']}: {s['tool']} {json.dumps(s['args'], ensure_ascii=False)} [{s['state']}]{outcome}{error}")
    for line in job["log"]:
        print(f"  | {line}")
