"""A batch of background jobs: started a few at a time, timed from its first start until the last
job is seen finished, and each job checked after the clock has stopped (completed, every step
done with the tool's result).

`run_batch` takes two functions from whoever starts the jobs: `start(index)`, the new job's id
once the host has acknowledged it (on disk), and `state(id)`, its state and `finished` stamp.
bench.jobs times a batch started through a plugin's gates (`plugin_batch`: `XivMcp.StartJob`,
`XivMcp.GetJob`) and one started as the assistant would (`assistant_batch`: the player's
`call start_job` and `job` commands).

Completion is seen by polling for the oldest job not yet seen finished (at once again when it
has, else after `poll` s); the host's `finished` stamps give the same span without that
granularity. Not `XivMcp.ListJobs`: it answers with every job's whole document (about 3.7 KB for a
job of 10 steps, with its log), which would load the host being measured if polled, and cannot be
sent at all past a few hundred jobs: over the bus's 1 MiB payload (~280 such jobs) the broker
refuses it, and over its 2 MiB frame (~570 jobs) the host's own bus connection is dropped.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

import anyio

if TYPE_CHECKING:
    import msgspec

    from gates.player import Command, PlayerClient
    from gates.plugin import XivMcpClient

R = TypeVar("R", bound="msgspec.Struct")

CALL_LIMIT: Final = 30.0
"""Seconds one direct call or gate call may take."""
BATCH_LIMIT: Final = 900.0
"""Seconds a batch of jobs may take, start to last completion."""
FINISHED: Final = frozenset({"completed", "failed", "cancelled", "pending", "paused"})
"""States a job of this benchmark does not leave by itself (all but completed are failures here)."""


class BenchError(RuntimeError):
    """Something answered, but not what a working system answers."""


@dataclass
class Batch:
    """One batch of jobs, as timed by whoever started them."""

    jobs: int
    steps: int
    seconds: float = 0.0
    """First start to the last job seen finished."""
    start_seconds: float = 0.0
    """First start to the last start acknowledged."""
    stamped_seconds: float | None = None
    """First start to the latest `finished` stamp of the batch's jobs (the host's, in ms): the
    same span without the polling's granularity."""
    polls: int = 0
    states: dict[str, int] = field(default_factory=dict)
    verified: int = 0
    """Jobs checked afterwards: completed, every step done with the tool's result."""
    problem: str | None = None

    @property
    def steps_per_s(self) -> float:
        return self.jobs * self.steps / self.seconds if self.seconds > 0 else 0.0


async def run_batch(
    start: Callable[[int], Awaitable[str]],
    state: Callable[[str], Awaitable[tuple[str, str | None]]],
    batch: Batch,
    *,
    in_flight: int,
    poll: float,
) -> list[str]:
    """Start `batch.jobs` jobs (`in_flight` at once) and wait until each is finished; their ids in order.

    `state(id)` is a job's state and its `finished` stamp. The watcher follows the oldest job not
    yet seen finished: one poll at a time, none while the next job's start is not acknowledged yet
    (an event, not a sleep)."""
    n = batch.jobs
    ids = [""] * n
    acknowledged = [anyio.Event() for _ in range(n)]
    next_index = 0
    done_starting = 0
    states: Counter[str] = Counter()
    last_finished: datetime | None = None
    began_at = datetime.now(UTC)
    began = time.perf_counter()

    async def starter() -> None:
        nonlocal next_index, done_starting
        while next_index < n:
            index = next_index
            next_index += 1
            ids[index] = await start(index)
            acknowledged[index].set()
            done_starting += 1
            if done_starting == n:
                batch.start_seconds = time.perf_counter() - began

    async def watcher() -> None:
        nonlocal last_finished
        for index in range(n):
            await acknowledged[index].wait()
            while True:
                batch.polls += 1
                now, finished = await state(ids[index])
                if now in FINISHED:
                    states[now] += 1
                    if finished:
                        moment = datetime.fromisoformat(finished.replace("Z", "+00:00"))
                        last_finished = moment if last_finished is None else max(moment, last_finished)
                    break
                await anyio.sleep(poll)
        batch.seconds = time.perf_counter() - began

    with anyio.fail_after(BATCH_LIMIT):
        async with anyio.create_task_group() as tg:
            for _ in range(min(in_flight, n)):
                tg.start_soon(starter)
            tg.start_soon(watcher)
    batch.states = dict(states)
    if last_finished is not None:
        batch.stamped_seconds = (last_finished - began_at).total_seconds()
    return ids


def checked(batch: Batch, what: str) -> Batch:
    """The batch, if every job of it was verified; BenchError naming its first problem otherwise."""
    if batch.problem is not None or batch.verified != batch.jobs:
        raise BenchError(f"{what}: {batch.verified} of {batch.jobs} jobs verified; {batch.problem}")
    return batch


async def plugin_batch(
    mcp: XivMcpClient, tool: str, result: Any, *, label: str, jobs: int, steps: int, in_flight: int, poll: float
) -> Batch:
    """`jobs` jobs of `steps` steps of `tool`, started with `XivMcp.StartJob` by the plugin `mcp` is,
    polled with `XivMcp.GetJob`; each checked afterwards (the caller raises on a problem)."""
    from gates.contract import JobStep

    job_steps = [JobStep(tool=tool) for _ in range(steps)]

    async def start(index: int) -> str:
        with anyio.fail_after(CALL_LIMIT):
            job = await mcp.start_job(f"bench {label} {index}", *job_steps)
        return job.id

    async def state(job_id: str) -> tuple[str, str | None]:
        with anyio.fail_after(CALL_LIMIT):
            job = await mcp.get_job(job_id)
        return job.state.value, job.finished

    batch = Batch(jobs=jobs, steps=steps)
    ids = await run_batch(start, state, batch, in_flight=in_flight, poll=poll)
    for job_id in ids:
        with anyio.fail_after(CALL_LIMIT):
            job = await mcp.get_job(job_id)
        if job.state.value != "completed":
            problem = f"{job_id} is {job.state.value}: {job.message}"
        elif len(job.steps) != steps or any(s.state.value != "done" or s.result != result for s in job.steps):
            problem = f"{job_id} completed, but not every step is done with {result}: {job.steps[:2]}"
        else:
            batch.verified += 1
            continue
        batch.problem = batch.problem or problem
    return batch


def job_document(tool: str, label: str, index: int, steps: int) -> dict[str, Any]:
    """`start_job`'s arguments: a job of `steps` steps of `tool`."""
    return {"name": f"bench {label} {index}", "steps": [{"tool": tool} for _ in range(steps)]}


async def assistant_batch(
    player: PlayerClient, tool: str, result: Any, *, jobs: int, steps: int, in_flight: int, poll: float
) -> Batch:
    """`jobs` jobs started with the player's `call start_job`, polled with its `job` command, each
    checked afterwards (BenchError on a problem)."""

    from gates.host._challenges import MAX_OPEN_CHALLENGES
    from gates.player import CallTool, PlayerError, ShowJob

    # The host keeps a caller's 16 newest nonces (B7): the starts in flight and the polls between
    # them share this process's, so no more than that many commands may wait for an answer at once.
    waiting = anyio.Semaphore(MAX_OPEN_CHALLENGES)

    async def send(command: Command[R]) -> R:
        try:
            async with waiting:
                with anyio.fail_after(CALL_LIMIT):
                    return await player.send(command)
        except PlayerError as exc:
            raise BenchError(f"{exc.command}: {exc.message[:300]}") from None

    async def start(index: int) -> str:
        reply = await send(CallTool(tool="start_job", arguments=job_document(tool, "assistant", index, steps)))
        if reply.is_error:
            raise BenchError(f"call start_job: {str(reply.error)[:300]}")
        return str(reply.result["started"]["id"])

    async def state(job_id: str) -> tuple[str, str | None]:
        job = (await send(ShowJob(id=job_id, log_lines=0))).job
        return job.state.value, job.finished

    batch = Batch(jobs=jobs, steps=steps)
    ids = await run_batch(start, state, batch, in_flight=in_flight, poll=poll)
    for job_id in ids:  # after the clock: every job completed, every step done with the tool's result
        job = (await send(ShowJob(id=job_id, log_lines=0))).job
        job_steps = job.steps
        if job.state != "completed" or len(job_steps) != steps:
            batch.problem = batch.problem or f"{job_id} is {job.state}: {job.message}"
        elif any(s.state != "done" or s.result != result for s in job_steps):
            batch.problem = batch.problem or f"{job_id} completed, but: {job_steps[:2]}"
        else:
            batch.verified += 1
    return checked(batch, "assistant batch")
