"""`run_check`: a plugin run against a private system, each of its tools put through the checks.

    report = run_check(CheckTarget.module("plugins_sample.careless"), CheckOptions())
    print(to_text(report)); sys.exit(report.exit_code)

The system is the shipped harness's (`gates.testing.XivMcpSystem`): a broker, the simulated game
and the host, both on their test clocks, in a temporary folder of their own, every process
stopped by pid at the end. The plugin is enabled and everything it declares allowed, so that
what the check reports is what the tools do, not what the player would refuse. Then, tool by
tool: its definition, calls with valid and invalid arguments, and Cancel for a long-running
one. After each call the plugin is put back as it was (a suspension lifted, a grown registration
consented to) so the next call is judged on its own.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.to_thread

import broker
from gates.contract import ENV_BUS, ENV_DATA_DIR, PluginState
from gates.player import Awaits
from gates.testing import Process, XivMcpSystem

from ._arguments import invalid_arguments, valid_arguments
from ._definitions import OfferedDefinition, judge_definition, judge_output_schemas, judge_refusals
from ._private_gates import probe_private_gates
from ._report import Check, CheckReport, Finding, Rule, Severity, ToolChecked
from ._session import CheckSession, read_records
from ._verdicts import judge_call

__all__ = ["CheckOptions", "CheckTarget", "TargetKind", "run_check"]

RECORDER: Final = Path(__file__).with_name("_record_registrations.py")
NO_ARGUMENTS: Final[dict[str, Any]] = {"type": "object", "properties": {}}


class TargetKind(StrEnum):
    MODULE = "module"
    SCRIPT = "script"
    COMMAND = "command"


@dataclass(frozen=True, slots=True)
class CheckTarget:
    """The plugin to check: a module (``-m pkg.mod``), a script, or a whole command line."""

    kind: TargetKind
    argv: tuple[str, ...]

    @classmethod
    def module(cls, name: str) -> CheckTarget:
        return cls(TargetKind.MODULE, (name,))

    @classmethod
    def script(cls, path: str) -> CheckTarget:
        return cls(TargetKind.SCRIPT, (path,))

    @classmethod
    def command(cls, *argv: str) -> CheckTarget:
        return cls(TargetKind.COMMAND, tuple(argv))

    @property
    def label(self) -> str:
        """The plugin as the command line named it."""
        return " ".join(self.argv) if self.kind is TargetKind.COMMAND else self.argv[0]


@dataclass(frozen=True, slots=True)
class CheckOptions:
    examples: int = 5
    """Calls with valid arguments per tool (the invalid ones come on top: one per fault the schema allows)."""
    quick_limit: float = 1.0
    """Wall seconds a call may take before the check takes it for long-running and cancels it."""
    stop_wait: float = 3.0
    """Wall seconds a cancelled call gets to stop before the check moves XIV MCP's clock past the two minutes."""
    world: Path | None = None
    """A world file for the simulated game (default: its built-in world)."""
    plugin_args: tuple[str, ...] = field(default=())
    """Arguments for a module or a script, after ``--bus ENDPOINT``."""


def run_check(target: CheckTarget, options: CheckOptions | None = None) -> CheckReport:
    """Start a private system and the plugin, check every tool, stop them all; the report.

    Raises `PluginStartError` when the plugin ends or registers nothing before the check can begin."""
    options = options or CheckOptions()
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="xivmcp-check-") as folder,
        XivMcpSystem(Path(folder), "--test-clock", "--no-mcp", curve=True) as system,  # as `xivmcp up` (S4)
    ):
        system.start()
        system.start_game("--test-clock", *(("--world", str(options.world)) if options.world else ()))
        record = None if target.kind is TargetKind.COMMAND else Path(folder) / "registrations.jsonl"
        process = _start_plugin(system, target, record, options)
        loop = broker.loop_options()  # a selector loop on Windows, which the bus needs
        try:
            report = anyio.run(
                _check, system, process, record, target, options, backend="asyncio", backend_options=loop
            )
        except BaseExceptionGroup as group:  # the task groups wrap what went wrong: raise it as it was
            sole = _sole_exception(group)
            if sole is None:
                raise
            raise sole from None
    report.seconds = round(time.monotonic() - started, 2)
    return report


def _sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    """The one exception inside nested groups, or None when there are several."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        current = pending.pop()
        if isinstance(current, BaseExceptionGroup):
            pending += current.exceptions
        else:
            leaves.append(current)
    return leaves[0] if len(leaves) == 1 else None


def _start_plugin(system: XivMcpSystem, target: CheckTarget, record: Path | None, options: CheckOptions) -> Process:
    # B8: the plugin under test gets a data dir of its own, empty, never the host's: that one holds
    # the player key (the game's admin gates and the player's gate would answer whoever has it) and
    # the MCP token. $XIVMCP_BUS tells it the bus, as the real host's plugins are told theirs.
    own = system.plugin_data_dir("plugin")  # on the CURVE bus, with a key of its own (S4)
    env = {**os.environ, ENV_BUS: system.endpoint, ENV_DATA_DIR: str(own)}
    if record is None:
        argv = list(target.argv)
    else:
        where = ["-m", target.argv[0]] if target.kind is TargetKind.MODULE else [target.argv[0]]
        argv = [sys.executable, str(RECORDER), str(record), *where, "--bus", system.endpoint, *options.plugin_args]
    return system.spawn(argv, "plugin", env=env)  # stopped by pid with the rest of the system


async def _check(
    system: XivMcpSystem, process: Process, record: Path | None, target: CheckTarget, options: CheckOptions
) -> CheckReport:
    async with CheckSession.open(system, quick_limit=options.quick_limit, stop_wait=options.stop_wait) as session:
        plugin = await session.wait_registered(process, record, target.label)
        run = _CheckRun(session, plugin, options, CheckReport(target=target.label, plugin=plugin))
        if record is None:
            run.report.notes.append(
                "Definitions XIV MCP refused are told to the plugin alone; run it as -m MODULE or SCRIPT.py "
                "for the check to see them."
            )
            run.report.notes.append(
                "XIV MCP 2 drops an outputSchema when a tool registers, so only what the plugin sends shows one; "
                "run it as -m MODULE or SCRIPT.py for the check to warn about it."
            )
        if await session.card(plugin) is not None:
            await session.enable(plugin)
        run.add_findings(judge_refusals(read_records(record)))
        run.add_findings(await probe_private_gates(session.pi, plugin))
        queue = await session.offered(plugin)
        while queue:
            await run.check_tool(queue.pop(0))
            queue += await run.grown_tools()
        run.add_findings(judge_output_schemas(read_records(record), [tool.name for tool in run.report.tools]))
        return run.report


class _CheckRun:
    """One check's progress: the report so far, and the findings already made (each once a tool)."""

    def __init__(self, session: CheckSession, plugin: str, options: CheckOptions, report: CheckReport) -> None:
        self.session = session
        self.plugin = plugin
        self.options = options
        self.report = report
        self._made: set[tuple[str, Rule, Check]] = set()
        self._known: set[str] = set()
        self._grown: list[str] = []

    def add_findings(self, findings: list[Finding]) -> None:
        for finding in findings:
            key = (finding.tool, finding.rule, finding.check)
            if key not in self._made:
                self._made.add(key)
                self.report.findings.append(finding)

    async def check_tool(self, tool: OfferedDefinition) -> None:
        self._known.add(tool.name)
        checked = ToolChecked(name=tool.name, checks=[Check.DEFINITION, Check.REGISTRATION])
        self.report.tools.append(checked)
        self.add_findings(judge_definition(tool))
        schema = tool.input_schema or NO_ARGUMENTS
        valid = await anyio.to_thread.run_sync(valid_arguments, schema, self.options.examples)
        calls: list[tuple[dict[str, Any], str | None]] = [(arguments, None) for arguments in valid]
        calls += [(bad.arguments, bad.why) for bad in invalid_arguments(schema, valid[0] if valid else {})]
        ignored_cancel = False
        for arguments, why_invalid in calls:
            if ignored_cancel and why_invalid is None:
                continue  # each would cost the wait again, and show the same
            seen = await self.session.call(self.plugin, tool.name, arguments, long_running=checked.long_running)
            checked.calls += 1
            checked.long_running |= seen.long_running
            ran = Check.VALID_ARGUMENTS if why_invalid is None else Check.INVALID_ARGUMENTS
            for check in (ran, Check.CANCEL) if seen.cancelled and seen.long_running else (ran,):
                if check not in checked.checks:
                    checked.checks.append(check)
            ignored_cancel |= seen.ignored_cancel
            self.add_findings(
                judge_call(self.plugin, seen, why_invalid=why_invalid, quick_limit=self.options.quick_limit)
            )
            await self._put_back()

    async def _put_back(self) -> None:
        """Put the plugin back as the check left it, so that the next call is judged on its own: a
        suspension the call caused is lifted, and a registration that grew (T7) is an error for
        each new tool, then consented to (the new tools are checked after the current one)."""
        card = await self.session.card(self.plugin)
        if card is None:
            return
        if card.state is PluginState.SUSPENDED:
            await self.session.lift(self.plugin)
        elif card.state is PluginState.AWAITING_CONSENT:
            awaits = card.awaits or Awaits(new_tools=[], new_capabilities=[])
            self._grown += awaits.new_tools
            self.add_findings([self._registered_late(name, awaits) for name in awaits.new_tools or ["?"]])
            await self.session.enable(self.plugin, again=True)

    def _registered_late(self, name: str, awaits: Awaits) -> Finding:
        new_capabilities = ", ".join(awaits.new_capabilities) or "none"
        return Finding(
            severity=Severity.ERROR,
            tool=name,
            rule=Rule.REGISTERED_AFTER_START,
            check=Check.REGISTRATION,
            spec="T7, A6",
            message=f"{self.plugin} registered {name} after it was enabled, so XIV MCP paused every tool of "
            f"{self.plugin} until the player consents again (new capabilities: {new_capabilities}): the player "
            "would be asked again. Register every tool at start; a tool tied to an optional feature refuses "
            "while the feature is off.",
        )

    async def grown_tools(self) -> list[OfferedDefinition]:
        """The tools registered since the plugin was enabled and not checked yet."""
        await self._put_back()  # a registration may have grown after the last call
        if not self._grown:
            return []
        self._grown.clear()
        return [tool for tool in await self.session.offered(self.plugin) if tool.name not in self._known]
