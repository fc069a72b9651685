"""How the player's commands print a reply as text (without `--json`): a sentence, or a table.

Each reply type of `gates.player` has its lines here; `xivmcp plugins`, `approvals`, `jobs`,
`job`, `audit` and `modules` print tables, `call` the tool's result, the others the host's sentence.

Every line goes out through `_say`, which shows control characters escaped (S3): a summary, a job's
log, a result or a plugin's name is chosen by a plugin or the game, and the terminal must not obey it.
"""

from __future__ import annotations

import json

import msgspec

from gates.contract import BUILTIN_TOOLS, JobInfo, JobReply, escaped, escaped_json
from gates.player import (
    ApprovalAnswer,
    ApprovalsReport,
    AuditLine,
    AuditReport,
    CallReply,
    HostClock,
    HostReset,
    InstalledReport,
    JobControlled,
    JobsReport,
    ModuleCard,
    ModulesReport,
    ModuleTool,
    PluginDecision,
    PluginsReport,
    SettingChanged,
)


def print_reply(reply: msgspec.Struct, extra: dict[str, str]) -> None:
    """`reply` as the player reads it; `extra` holds what the command line added (`game`: the game's clock)."""
    match reply:
        case PluginsReport():
            _print_plugins(reply)
        case ApprovalsReport(approvals=approvals):
            if not approvals:
                _say("no approvals waiting")
            for a in approvals:
                _say(
                    f"{a.approval_id}: {a.plugin} {a.tool} [{', '.join(a.capabilities)}] {a.summary}"
                    f" ({a.seconds_left} s left)"
                )
        case JobsReport(jobs=jobs):
            if not jobs:
                _say("no jobs")
            for j in jobs:
                at = f" at {j.step}" if j.step else ""
                why = f": {j.message}" if j.message else ""
                _say(f"{j.id}: {j.name} [{j.state}{at}] {j.steps} steps{why}")
        case JobReply(job=job):
            _print_job(job)
        case AuditReport(entries=entries):
            _print_audit(entries)
        case ModulesReport(modules=modules):
            _print_modules(modules)
        case InstalledReport(plugins=plugins, message=message):
            if message:
                _say(message)
            if not plugins:
                _say("no plugins installed")
            for plugin in plugins:
                version = plugin.version or "version unknown"
                loaded = "loaded" if plugin.loaded else "not loaded"
                _say(f"{plugin.internal_name}: {plugin.name} {version} [{loaded}] {plugin.repo or ''}".rstrip())
        case CallReply(result=result, images=images):
            text = result if isinstance(result, str) else json.dumps(result)
            for line in text.split("\n"):  # the result is all the output: its own lines stay lines
                _say(line)
            for index, image in enumerate(images):  # bytes, not text: said, not printed
                where = extra.get(f"image{index}")
                told = f"saved to {where}" if where else "not shown here (--save FILE writes it)"
                caption = f"{image.caption} " if image.caption else ""
                _say(f"{caption}[{image.mime_type}, {len(image.data):,} bytes] {told}")
        case HostClock(now=now):
            _say(f"host clock at {now:g} s; {extra['game']}")
        case PluginDecision() | ApprovalAnswer() | JobControlled() | SettingChanged() | HostReset():
            for line in reply.message.split("\n"):  # the host's sentence, on its own lines
                _say(line)
        case _:
            print(escaped_json(json.dumps(msgspec.to_builtins(reply), ensure_ascii=False)))


def print_json(document: dict[str, object]) -> None:
    """A reply as `--json` prints it: the whole document, indented, its control characters escaped (S3)."""
    print(escaped_json(json.dumps(document, indent=2, ensure_ascii=False)))


def _say(line: str) -> None:
    """One line of the reply, its control characters escaped (a line of its own stays one line)."""
    print(escaped(line))


def _print_plugins(report: PluginsReport) -> None:
    if not report.plugins:
        _say("no third-party plugins yet")
    for card in report.plugins:
        connected = "connected" if card.connected else "not connected"
        _say(f"{card.name}: {card.state} ({connected}; registration {card.digest})")
        if card.suspend_reason:
            _say(f"  suspended: {card.suspend_reason} (`xivmcp lift {card.name}`)")
        if card.awaits is not None:
            aw = card.awaits
            command = "consent" if card.state == "awaiting_consent" else "enable"  # a grown registration
            _say(
                f"  awaits the player: new tools {', '.join(aw.new_tools) or 'none'}; "
                f"new capabilities {', '.join(aw.new_capabilities) or 'none'} (`xivmcp {command} {card.name}`)"
            )
        for capability in card.capabilities:
            _say(f"  capability {capability.id}: {capability.mode}")
        for tool in card.tools:
            kind = "read-only" if tool.read_only else ", ".join(tool.capabilities)
            _say(f"  tool {tool.name}: {tool.mode} ({kind})")


def _print_modules(modules: list[ModuleCard]) -> None:
    for m in modules:
        shown = (("reading", m.reading), ("changes", m.changes))
        modes = ", ".join(f"{access} {mode}" for access, mode in shown if mode is not None)
        state = modes if m.on else "OFF (its tools are not offered)"
        driven = f"; offered while {m.plugin} is loaded" if m.plugin else ""
        _say(f"{m.id} ({m.title}): {state}{driven}")
        for t in m.tools:
            own = f" (set on its own: {t.setting})" if t.setting != "group" else ""
            mode = t.mode if t.available else "not available now"
            note = "" if t.simulated else f" ({not_simulated(t)})"
            _say(f"  {t.name}: {mode}{own}{note}")


def not_simulated(tool: ModuleTool) -> str:
    """What the player reads about one of XIV MCP's tools the simulated game does not perform."""
    builtin = BUILTIN_TOOLS.get(tool.name)
    return "not simulated; dev builds only" if builtin is not None and builtin.dev_only else "not simulated"


def _print_audit(entries: list[AuditLine]) -> None:
    if not entries:
        _say("the audit log is empty")
    for e in entries:
        details = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in e.details.items())
        flag = " FLAGGED" if e.flagged else ""
        where = " ".join(x for x in (e.plugin, e.tool) if x)
        _say(f"{e.time}  {e.kind:<12} {where}{flag}  {details}".rstrip())


def _print_job(job: JobInfo) -> None:
    owner = f", started by {job.owner}" if job.owner else ""
    _say(f"{job.id}: {job.name} [{job.state}]{owner}")
    if job.message:
        _say(f"  {job.message}")
    for s in job.steps:
        outcome = f" -> {json.dumps(s.result, ensure_ascii=False)}" if s.state == "done" else ""
        error = f" ({s.error})" if s.error else ""
        _say(f"  {s.id}: {s.tool} {json.dumps(s.args, ensure_ascii=False)} [{s.state}]{outcome}{error}")
    for line in job.log:
        _say(f"  | {line}")
