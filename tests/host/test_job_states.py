"""The job state machine, driven by hypothesis (J4, J6, J7, J10, J11): no sequence of start, pause,
resume, cancel, update_job, step success, step failure and host restart reaches an invalid state
or loses a step's result.

The runner is the real one (`Jobs`, with its store on disk); only the calls are a fake the test
answers (each step's call waits until an operation ends it), so thousands of interleavings run
in memory, fast, without a bus.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import anyio
from anyio import wait_all_tasks_blocked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gates.contract import JobState, JobStep, RefusedError, StepState
from gates.host.base._call_outcome import CallOutcome
from gates.host.base._clock import ManualClock
from gates.host.jobs._checks import JobChecks
from gates.host.jobs._runner import FINISHED, Jobs
from gates.host.jobs._store import JOBS_DB, JobStore
from gates.host.policy._policy import Policies
from gates.host.policy._registry import ToolRegistry
from gates.host.tools._core_definitions import CORE_DEFINITIONS


class FakeCalls:
    """Stands for the call path and the plugins: each call waits until the test ends it."""

    def __init__(self) -> None:
        self.waiting: dict[str, tuple[anyio.Event, list[CallOutcome]]] = {}
        self._ids = itertools.count(1)
        self.acting_refusal: Any = None

    async def call_tool(self, name: str, arguments: Any, *, on_started: Any = None, **_: Any) -> CallOutcome:
        call_id = f"c{next(self._ids)}"
        done, box = anyio.Event(), []
        self.waiting[call_id] = (done, box)
        if on_started is not None:
            on_started(call_id)
        try:
            await done.wait()
        finally:
            self.waiting.pop(call_id, None)
        return box[0]

    def end(self, outcome: CallOutcome) -> bool:
        for done, box in list(self.waiting.values()):
            if not box:
                box.append(outcome)
                done.set()
                return True
        return False

    def cancel(self, call_id: str) -> bool:  # a plugin that stops at once
        entry = self.waiting.get(call_id)
        if entry is not None and not entry[1]:
            entry[1].append(CallOutcome(error="Cancelled."))
            entry[0].set()
        return True


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("start"), st.integers(1, 4)),
        st.tuples(st.sampled_from(["succeed", "fail"]), st.just(0)),
        st.tuples(st.sampled_from(["pause", "resume", "cancel", "retry", "skip", "append"]), st.integers(0, 3)),
        st.tuples(st.just("restart"), st.just(0)),
    ),
    max_size=20,
)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(operations=OPERATIONS)
def test_j10_no_sequence_of_operations_reaches_an_invalid_state_or_loses_a_result(
    tmp_path_factory: Any, operations: list[tuple[str, int]]
) -> None:
    root: Path = tmp_path_factory.mktemp("jobs")
    anyio.run(_drive, root, operations)


async def _drive(root: Path, operations: list[tuple[str, int]]) -> None:
    registry = ToolRegistry(core=CORE_DEFINITIONS)
    checks = JobChecks(registry, Policies())
    results: dict[tuple[str, str], Any] = {}
    finished: dict[str, JobState] = {}
    counter = itertools.count()
    ids: list[str] = []
    todo = list(operations)
    while True:  # one host process after another; "restart" kills one (its tasks die with it)
        store = JobStore(root / JOBS_DB, fsync=False)  # the OS's cache is durable enough for a model
        fake = FakeCalls()
        tag = f"t{next(counter)}"  # a host process of its own, as in production (ids never repeat)
        jobs = Jobs(store=store, checks=checks, call_path=fake, calls=fake, clock=ManualClock(), tag=tag)  # type: ignore[arg-type]
        jobs.load()
        _check(jobs, results, finished)
        restart = False
        async with anyio.create_task_group() as tg:
            tg.start_soon(store.run)
            jobs.start_running(tg)
            while todo:
                op, n = todo.pop(0)
                if op == "restart":
                    restart = True
                    break
                _apply(jobs, fake, ids, op, n, counter)
                await wait_all_tasks_blocked()
                _check(jobs, results, finished)
            tg.cancel_scope.cancel()
        store.close()
        if not restart:
            return


def _apply(jobs: Jobs, fake: FakeCalls, ids: list[str], op: str, n: int, counter: Any) -> None:
    try:
        if op == "start":
            steps = [JobStep(tool="echo", args={"text": str(i)}) for i in range(n)]
            ids.append(jobs.start(f"job{len(ids)}", steps, None).id)
        elif op == "succeed":
            fake.end(CallOutcome(result={"n": next(counter)}))
        elif op == "fail":
            fake.end(CallOutcome(error="It failed."))
        elif ids:
            job = jobs.get(ids[n % len(ids)])
            if op == "pause":
                jobs.pause(job)
            elif op == "resume":
                jobs.resume(job)
            elif op == "cancel":
                jobs.cancel(job)
            elif op in ("retry", "skip"):
                jobs.update(job, op, [], resume=True)
            else:
                jobs.update(job, "append", [JobStep(tool="echo", args={"text": "more"})], resume=False)
    except RefusedError:
        pass  # a refusal is an allowed answer; the checks say nothing broke


def _check(jobs: Jobs, results: dict[tuple[str, str], Any], finished: dict[str, JobState]) -> None:
    for job in jobs.listing():
        assert isinstance(job.state, JobState)
        running = [s for s in job.steps if s.state is StepState.RUNNING]
        assert len(running) <= 1, job
        if running:
            assert job.state is JobState.RUNNING, job
        if job.state is JobState.COMPLETED:
            assert all(s.state in (StepState.DONE, StepState.SKIPPED) for s in job.steps), job
        if job.state is JobState.PENDING:
            assert any(s.state is StepState.FAILED for s in job.steps), job
        if job.id in finished:
            assert job.state is finished[job.id], "a finished job never runs again"
        if job.state in FINISHED:
            finished[job.id] = job.state
        for step in job.steps:
            key = (job.id, step.id)
            if key in results:
                assert step.state is StepState.DONE and step.result == results[key], "a result was lost"
            elif step.state is StepState.DONE:
                results[key] = step.result
