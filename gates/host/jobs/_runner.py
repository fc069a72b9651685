"""Background jobs: steps run one after another on their own, paused, resumed, cancelled, never lost.

    start ─► queued ─► running ─► (each step: placeholders, the player's settings, the call) ─► completed
                          │  a step fails ─► pending ─► update_job (retry, skip, append, replace_remaining)
                          │  pause ─► the running call gets Cancel ─► paused ─► resume: the step again
                          └─ cancel ─► the running call gets Cancel ─► cancelled

A step is a call like a direct one (`CallPath`: an "ask" step waits for the player, a denied one
fails); its outcome is durable (`JobStore.durable`) before the next step starts. One acting step
runs at a time across all jobs (J8); read-only tools and waiting steps neither block nor wait.
Pausing or cancelling fires the running call's Cancel and waits for it to end, up to the two
minutes after a Cancel (`PluginCalls`). After a restart every job that was running or queued is
back paused, with its log and results. Times are the host's clock, so tests move a manual clock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import anyio
import anyio.abc

from gates.contract import JobInfo, JobState, JobStep, RefusedError, StepInfo, StepState, quote

from ..base._call_outcome import CallOutcome
from ..base._clock import Clock
from ..base._ids import IdMaker
from ..calls._call_path import CallPath
from ..calls._plugin_calls import PluginCalls
from ._acting import ActingSlot
from ._checks import JobChecks
from ._placeholders import PlaceholderError, resolve
from ._room import JobRoom
from ._store import JobStore
from ._time import HostTimers, wait_seconds
from ._time import now_stamp as _now
from ._time import parse_stamp as _parse

__all__ = ["FINISHED", "KEEP_FINISHED", "LISTED", "LOG_KEPT", "NAME_LIMIT", "RELOADED", "Jobs"]

log = logging.getLogger("gates.jobs")

FINISHED: Final = frozenset({JobState.COMPLETED, JobState.FAILED, JobState.CANCELLED})
KEEP_FINISHED: Final = timedelta(days=7)
"""How long a finished job is kept, then dropped."""
LOG_KEPT: Final = 200
"""Log lines a job keeps (the newest)."""
LISTED: Final = 500
"""The most jobs a listing sent over the bus holds (the newest)."""
MAX_JOBS: Final = 10_000
"""Jobs kept at once (B7): past it, the oldest finished ones go first; then starting is refused.
Each owner has bounds of its own, of jobs and of stored bytes (`_room.py`)."""
RELOADED: Final = "Paused because the plugin was reloaded; resume_job to continue."
PROGRESS_LIMIT: Final = 300
NAME_LIMIT: Final = 200  # characters of a job's name that are kept (B7)


@dataclass(slots=True)
class _RunningStep:
    """What a running step can be stopped by."""

    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    call_id: str | None = None
    stop: JobState | None = None
    reason: str = ""
    """Why it is being stopped (PAUSED or CANCELLED), and the job's message then ("Paused by a plugin.")."""


class Jobs:
    """Every job, and the tasks that run them."""

    def __init__(
        self,
        *,
        store: JobStore,
        checks: JobChecks,
        call_path: CallPath,
        calls: PluginCalls,
        clock: Clock,
        tag: str,
        changed: Callable[[JobInfo], None] = lambda job: None,
    ) -> None:
        self._store = store
        self._checks = checks
        self._call_path = call_path
        self._calls = calls
        self._ids = IdMaker("j", tag)
        self._changed = changed
        self._jobs: dict[str, JobInfo] = {}
        self.room = JobRoom()
        self._runs: dict[str, _RunningStep] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self._acting = ActingSlot()
        self._timers = HostTimers(clock)
        call_path.acting_refusal = self._acting.refusal

    # --- life cycle ----------------------------------------------------------------------

    def load(self) -> None:
        """Take the stored jobs back: what was running or queued is paused (J11)."""
        for job in self._store.load():
            if job.state in (JobState.RUNNING, JobState.QUEUED):
                for step in job.steps:
                    if step.state is StepState.RUNNING:
                        step.state = StepState.INTERRUPTED
                job.state, job.message = JobState.PAUSED, RELOADED
                self._log(job, RELOADED)
            self._jobs[job.id] = job
            self.room.saved(job)
        self.forget_finished()

    def start_running(self, task_group: anyio.abc.TaskGroup) -> None:
        self._tg = task_group

    def tick(self) -> None:
        """Wake the `wait` steps whose time has come (the host calls this with its other deadlines)."""
        self._timers.tick()

    async def sleep(self, seconds: float) -> None:
        """Sleep on the host's clock (a manual clock in tests moves only when told)."""
        await self._timers.sleep(seconds)

    # --- what the assistant, plugins and the player ask ------------------------------------

    def start(self, name: str, steps: list[JobStep], owner: str | None) -> JobInfo:
        if not name.strip():
            raise RefusedError("A job needs a 'name' that says what it does, such as \"Farm, then report\".")
        self.forget_finished()  # finished jobs are kept seven days: each start looks for old ones
        self._make_room(owner)
        job = JobInfo(
            id=self._ids.next(),
            name=name.strip()[:NAME_LIMIT],
            state=JobState.QUEUED,
            owner=owner,
            steps=self._checks.steps(steps, by_plugin=owner is not None),
            created=_now(),
        )
        self._jobs[job.id] = job
        self._log(job, f"Started with {len(job.steps)} steps.")
        self._resume(job)
        return job

    async def durable(self) -> None:
        """Wait until every change to jobs so far is on disk."""
        await self._store.durable()

    def find(self, ref: str, owner: str | None = None, *, mine_only: bool = False) -> JobInfo | None:
        """A job by id or by name (the newest of that name), or None; with `mine_only`, among the
        jobs of `owner` only (a name another owner also used never hides a plugin's own job)."""
        if (job := self._jobs.get(ref)) is not None:
            return job if not mine_only or job.owner == owner else None
        named = (j for j in reversed(self._jobs.values()) if j.name == ref and (not mine_only or j.owner == owner))
        return next(named, None)

    def get(self, ref: str, owner: str | None = None, *, mine_only: bool = False) -> JobInfo:
        """A job by id or by name (the newest of that name); a plugin (`mine_only`) sees only its own."""
        job = self.find(ref, owner, mine_only=mine_only)
        if job is None:
            whose = f" of {owner}" if mine_only else ""
            raise RefusedError(f"No job {quote(ref)}{whose}; list_jobs shows the jobs (their ids and names).")
        return job

    def listing(
        self, owner: str | None = None, *, mine_only: bool = False, finished: bool = True, newest: int | None = None
    ) -> list[JobInfo]:
        """The jobs (a plugin's own, with `mine_only`), oldest first; with `newest`, only that many of
        the most recent, newest first (B7: a listing that crosses the bus stays far below its limit)."""
        jobs = [
            j
            for j in self._jobs.values()
            if (not mine_only or j.owner == owner) and (finished or j.state not in FINISHED)
        ]
        return jobs if newest is None else jobs[::-1][:newest]

    def pause(self, job: JobInfo, reason: str = "Paused.") -> str:
        """Pause the job; `reason` is its message then (a plugin's pause: "Paused by a plugin.")."""
        if job.state in FINISHED:
            raise RefusedError(f"Job {job.id} has finished ({job.state.value}); there is nothing to pause.")
        if job.state in (JobState.PAUSED, JobState.PENDING):
            return f"Job {job.id} is not running ({job.state.value}); nothing to do."
        return self._stop(job, JobState.PAUSED, reason)

    def cancel(self, job: JobInfo) -> str:
        if job.state in FINISHED:
            raise RefusedError(f"Job {job.id} has finished ({job.state.value}); there is nothing to cancel.")
        return self._stop(job, JobState.CANCELLED, "Cancelled.")

    def resume(self, job: JobInfo) -> str:
        if job.state in FINISHED:
            raise RefusedError(f"Job {job.id} has finished ({job.state.value}); start a new job instead.")
        if job.state is JobState.PENDING:
            raise RefusedError(
                "The current step failed; use update_job with action retry or skip (or change the steps) first."
            )
        if job.id in self._runs:
            return f"Job {job.id} is {job.state.value} already; nothing to do."
        self._log(job, "Resumed.")
        self._resume(job)
        step = self._current(job)
        return f"Job {job.id} runs again{f' from step {step.id}' if step else ''}."

    def update(self, job: JobInfo, action: str, steps: list[JobStep], resume: bool) -> str:
        if job.state in FINISHED:
            raise RefusedError(f"Job {job.id} has finished ({job.state.value}); start a new job instead.")
        if job.id in self._runs and job.state is JobState.RUNNING:
            raise RefusedError("A step of this job is running; pause_job first.")
        current = self._current(job)
        match action:
            case "retry" | "skip":
                if current is None or current.state is not StepState.FAILED:
                    raise RefusedError(f"No step of job {job.id} failed; retry and skip act on the failed step.")
                if action == "skip":
                    current.state = StepState.SKIPPED
                else:
                    current.state, current.error = StepState.QUEUED, None
                said = f"Step {current.id} {'skipped' if action == 'skip' else 'to run again'}."
            case "append":
                job.steps = [*job.steps, *self._checks.steps(steps, job.steps)]
                said = f"{len(steps)} steps appended."
            case "replace_remaining":
                kept = [s for s in job.steps if s.state in (StepState.DONE, StepState.SKIPPED)]
                job.steps = [*kept, *self._checks.steps(steps, kept)]
                said = f"The steps not yet run are replaced by {len(steps)} new ones."
            case _:
                raise RefusedError(f"{quote(action)} is not an action: use retry, skip, append or replace_remaining.")
        self._log(job, said)
        if resume:
            self._resume(job)
        else:
            job.state, job.message = JobState.PAUSED, f"{said} resume_job to continue."
            self._save(job)
        return said

    # --- running -------------------------------------------------------------------------

    def _resume(self, job: JobInfo) -> None:
        job.state, job.message = JobState.QUEUED, None
        self._save(job)
        if self._tg is not None and job.id not in self._runs:
            run = self._runs[job.id] = _RunningStep()
            self._tg.start_soon(self._run, job, run)

    def _stop(self, job: JobInfo, why: JobState, reason: str) -> str:
        run = self._runs.get(job.id)
        if run is None:
            self._end(job, why, reason)
            return f"Job {job.id} is {why.value}."
        run.stop, run.reason = why, reason
        if run.call_id is not None:
            self._calls.cancel(run.call_id)  # the plugin gets Cancel; the step ends with its answer
        else:
            run.scope.cancel()
        return f"Job {job.id}: its running step is being stopped; the job will be {why.value}."

    async def _run(self, job: JobInfo, run: _RunningStep) -> None:
        try:
            while (step := self._current(job)) is not None:
                if run.stop is not None:
                    break
                if not await self._run_step(job, step, run):
                    return
                await self._store.durable()  # the outcome is on disk before the next step starts
            if run.stop is not None:
                self._end(job, run.stop, run.reason)
            else:
                self._end(job, JobState.COMPLETED, f"Completed {len(job.steps)} steps.")
        except Exception:  # a bug must not take the host down; the job says so
            log.exception("job %s failed", job.id)
            self._end(job, JobState.PAUSED, "XIV MCP failed running this job (see its log); resume_job to try again.")
        finally:
            self._runs.pop(job.id, None)
            self._acting.free(job)
            await self._store.durable()

    async def _run_step(self, job: JobInfo, step: StepInfo, run: _RunningStep) -> bool:
        """Run one step; False if the job stops waiting (pending, paused, cancelled)."""
        acting = self._checks.is_acting(step.tool)
        run.scope = anyio.CancelScope()  # one scope a step: a scope is entered once
        outcome: CallOutcome | None = None
        began = False
        with run.scope:
            if acting:

                def waiting(message: str) -> None:
                    job.message = message
                    self._save(job)

                await self._acting.take(job, step, waiting)
            began = True
            job.state, job.message = JobState.RUNNING, None
            step.state, step.error, step.result = StepState.RUNNING, None, None
            step.attempts += 1
            step.started, step.finished = _now(), None
            self._log(job, f"{step.id} ({step.tool}) started.")
            outcome = await self._call(job, step, run)
        if run.scope.cancelled_caught or outcome is None:
            outcome = CallOutcome(error="Cancelled.")
        self._acting.free(job)
        if began:
            step.finished = _now()
        if run.stop is not None:
            if began:  # a step stopped before it began (waiting for its turn) stays as it was
                step.state = StepState.INTERRUPTED
                self._log(job, f"{step.id} ({step.tool}) interrupted: {outcome.error or 'it had finished'}.")
            self._end(job, run.stop, run.reason)
            return False
        if outcome.ok:
            step.state, step.result = StepState.DONE, outcome.result
            self._log(job, f"{step.id} ({step.tool}) done.")
            self._save(job)
            return True
        step.state, step.error = StepState.FAILED, outcome.error
        message = (
            f"Step {step.id} ({step.tool}) failed: {outcome.error} - waiting for retry, skip, new steps or cancel "
            "(update_job)."
        )
        self._log(job, message)
        self._end(job, JobState.PENDING, message)
        return False

    async def _call(self, job: JobInfo, step: StepInfo, run: _RunningStep) -> CallOutcome | None:
        results = {s.id: s.result for s in job.steps if s.state is StepState.DONE}
        earlier = [s.id for s in job.steps[: job.steps.index(step)]]
        try:
            args = resolve(step.args, results, earlier, [s.id for s in job.steps])
        except PlaceholderError as exc:
            return CallOutcome(error=str(exc))
        if step.tool == "wait":
            return await self._wait_step(JobChecks.decode_args(args))

        def started(call_id: str) -> None:
            run.call_id = call_id

        def progress(text: str) -> None:
            self._log(job, f"{step.id}: {text[:PROGRESS_LIMIT]}")

        try:
            decoded = JobChecks.decode_args(args)
            return await self._call_path.call_tool(  # a plugin's job is held to that plugin's permissions too
                step.tool, decoded, on_progress=progress, on_started=started, as_step=True, caller=job.owner
            )
        finally:
            run.call_id = None

    async def _wait_step(self, args: dict[str, Any]) -> CallOutcome:
        try:
            seconds = wait_seconds(args, datetime.now(UTC))
        except RefusedError as exc:
            return CallOutcome(error=str(exc))
        await self.sleep(seconds)
        return CallOutcome(result={"waited": seconds})

    # --- plumbing ------------------------------------------------------------------------

    @staticmethod
    def _current(job: JobInfo) -> StepInfo | None:
        return next((s for s in job.steps if s.state not in (StepState.DONE, StepState.SKIPPED)), None)

    def _end(self, job: JobInfo, state: JobState, message: str) -> None:
        job.state, job.message = state, message
        if state in FINISHED:
            job.finished = _now()
            for step in job.steps:
                if step.state is StepState.QUEUED and state is JobState.CANCELLED:
                    step.state = StepState.SKIPPED
        if state is not JobState.PENDING:
            self._log(job, message)
        self._save(job)

    def _log(self, job: JobInfo, line: str) -> None:
        job.log = [*job.log[-(LOG_KEPT - 1) :], f"{_now()} {line}"]
        self._save(job)

    def _save(self, job: JobInfo) -> None:
        self._store.save(job)
        self.room.saved(job)
        self._changed(job)

    def _make_room(self, owner: str | None) -> None:
        """Room for a job of `owner`: the oldest finished jobs go (its own first), or RefusedError (B7)."""
        self.drop(self.room.to_drop(self._jobs.values(), owner, FINISHED, MAX_JOBS))

    def forget_finished(self) -> None:
        """Drop finished jobs older than `KEEP_FINISHED`."""
        cutoff = datetime.now(UTC) - KEEP_FINISHED
        self.drop(
            [j.id for j in self._jobs.values() if j.state in FINISHED and j.finished and _parse(j.finished) < cutoff]
        )

    def drop(self, job_ids: list[str]) -> None:
        """Forget these finished jobs, in memory and in the job store (old ones, or a test reset's)."""
        for job_id in job_ids:
            del self._jobs[job_id]
            self.room.forgotten(job_id)
        self._store.drop(job_ids)
