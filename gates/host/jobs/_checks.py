"""What a job may hold, checked when it starts and when its steps change (G10, J10).

A step is refused at once, naming it: a tool XIV MCP does not know, one that can't run now (its
plugin is not enabled or is suspended, or the player set it to deny: such a tool may still be
listed to the assistant, F3, but the job would only fail at that step), a job-control tool (a
job cannot start, steer or wait on jobs), or a placeholder naming a step that does not come
earlier. A step without an id gets the next free one (`s1`, `s2`, …); ids are unique within a job.

Every built-in of the real host is accepted, as the real host accepts it (F1), whether or not the
simulated game performs it: a job is testable up to its first step that is not simulated here,
which is decided by its module as the real host decides it and then fails saying it is not
simulated (`calls.not_simulated`), leaving the job pending. A plugin's job may not
hold the built-ins the real host keeps from plugins ("These tools are not available to plugins").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from gates.contract import BUILTIN_TOOLS, HOST_NAME, NOT_FOR_PLUGINS, JobStep, Mode, RefusedError, StepInfo, quote

from ..policy._policy import Policies
from ..policy._registry import ToolRegistry
from ._placeholders import referenced_steps

__all__ = ["JOB_CONTROL_TOOLS", "MAX_STEPS", "WAITING_TOOLS", "JobChecks"]

JOB_CONTROL_TOOLS: Final = frozenset(
    {"start_job", "get_job", "list_jobs", "update_job", "pause_job", "resume_job", "cancel_job", "call_tool"}
)
"""Tools that cannot be steps: a job does not steer jobs (and call_tool: name the tool itself)."""
WAITING_TOOLS: Final = frozenset({"wait", "wait_until_arrived"})
"""Steps that only wait: they neither block an acting step nor wait for one (J8)."""
MAX_STEPS: Final = 500
"""Steps one job may hold (B7)."""
_STEP_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


class JobChecks:
    def __init__(self, registry: ToolRegistry, policies: Policies) -> None:
        self._registry = registry
        self._policies = policies

    def steps(
        self, given: Sequence[JobStep], before: Sequence[StepInfo] = (), *, by_plugin: bool = False
    ) -> list[StepInfo]:
        """Check `given` (to come after `before`) and return them as queued steps with their ids;
        `by_plugin` for a job a plugin starts (`XivMcp.StartJob`)."""
        if not given:
            raise RefusedError('A job needs at least one step, such as {"tool": "echo", "args": {"text": "hi"}}.')
        # in the order the job names them, each once, as the real host lists them
        if by_plugin and (kept := list(dict.fromkeys(s.tool for s in given if s.tool in NOT_FOR_PLUGINS))):
            raise RefusedError(f"These tools are not available to plugins: {', '.join(kept)}.")
        if len(before) + len(given) > MAX_STEPS:
            raise RefusedError(f"A job holds at most {MAX_STEPS} steps; split the work into several jobs.")
        ids = [s.id for s in before]
        taken = set(ids)
        steps: list[StepInfo] = []
        for step in given:
            step_id = step.id or self._next_id(taken)
            where = f"Step {quote(step_id)} ({step.tool})"
            if not _STEP_ID.fullmatch(step_id):
                raise RefusedError(f"{where}: a step id is 1-64 letters, digits, '_' or '-'; got {quote(step_id)}.")
            if step_id in taken:
                raise RefusedError(f"{where}: the id is already used by another step of this job; ids are unique.")
            self._check_tool(where, step.tool)
            for named in referenced_steps(step.args):
                if named not in ids:
                    raise RefusedError(
                        f"{where}: the placeholder names step {quote(named)}, which does not come earlier "
                        "in this job; a step can only use the results of the steps before it."
                    )
            taken.add(step_id)
            ids.append(step_id)
            steps.append(StepInfo(id=step_id, tool=step.tool, args=step.args, note=step.note))
        return steps

    def _check_tool(self, where: str, tool: str) -> None:
        if tool in JOB_CONTROL_TOOLS:
            raise RefusedError(f"{where}: {tool} cannot be a job step (jobs do not steer jobs); use the tool itself.")
        registered = self._registry.get(tool)
        if registered is None:
            if tool in BUILTIN_TOOLS:
                return  # the real host's own: accepted, and failed when it runs if not simulated here
            raise RefusedError(f"{where}: there is no tool named {quote(tool)}; find tools with search_tools.")
        if registered.owner == HOST_NAME:
            return
        owner, policies = registered.owner, self._policies
        if not policies.can_run(owner):
            state = policies.state(owner).value
            raise RefusedError(f"{where}: {tool} can't run now ({owner} is {state}); the player decides in /xivmcp.")
        if policies.check_tool(owner, registered.definition) is Mode.DENY:
            raise RefusedError(f"{where}: {tool} is set to deny by the player, so it can't run.")

    @staticmethod
    def _next_id(taken: set[str]) -> str:
        n = 1
        while f"s{n}" in taken:
            n += 1
        return f"s{n}"

    def is_acting(self, tool: str) -> bool:
        """Whether a step of `tool` takes the one acting slot (it changes something, and does not only
        wait); a changing built-in the game does not perform takes it too, as it would in the game (F1)."""
        if tool in WAITING_TOOLS:
            return False
        registered = self._registry.get(tool)
        if registered is None:
            builtin = BUILTIN_TOOLS.get(tool)
            return builtin is not None and not builtin.read_only
        return not registered.definition.read_only

    @staticmethod
    def decode_args(args: Any) -> dict[str, Any]:
        return args if isinstance(args, dict) else {}
