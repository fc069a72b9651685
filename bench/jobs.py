"""Background jobs: the runner's steps/s against direct calls of the same tool, and the host's memory.

    python -m bench.jobs            # 1,000 direct calls; 100 jobs, then 1,000 (twice) x 10 steps (~10 s)
    python -m bench.jobs --quick    # 200 direct calls; 100 jobs, then 100 (twice) x 10 steps (~3 s)
    python -m bench.jobs --json     # the same figures as one JSON object on stdout (diagnostics on stderr)

One real system, `gates.testing.XivMcpSystem(root, "--auto-enable", "--test-clock", "--no-mcp")` (a
broker and the host as processes), and a plugin written here, `BenchJobs` (`python -m bench.jobs
--role plugin`, `gates.plugin.XivMcpClient`) with one quick read-only tool, `benchjobs_ping`, that
returns {"ok": true}. The baseline (direct calls) and the jobs are measured in the same run, on the
same system, one after the other. What each figure includes:

* `direct_calls_per_s`: `--calls` sequential calls (after `--warmup`) by the driver, a bus peer of its
  own, through the player's gate: `PlayerClient.send(CallTool(tool="benchjobs_ping"))`, the path of
  `xivmcp call` and the closest one to a step from outside the host. Each call is two round trips
  driver <-> host (`XivMcp.PlayerHello` for the challenge's nonce, then `XivMcp.Player` with its HMAC,
  which runs `CallPath.call_tool`: the player's settings, then the plugin's Invoke, a round trip
  host <-> plugin). No disk write. Every reply is checked ({"ok": true} as the result).
* `player_hello_per_s`: the challenge alone (`XivMcp.PlayerHello`, sequential, same count), which the
  direct figure pays on every call and a step never does; `direct_no_challenge_per_s` =
  1 / (1/direct - 1/hello) estimates the direct call without it.
* `steps_per_s`: `--jobs` jobs x `--steps` steps of the same tool, started by the plugin child itself
  (its own bus connection; a second peer named BenchJobs cannot exist) through its gate
  `XivMcp.StartJob` (`XivMcpClient.start_job`, owner = BenchJobs; `--in-flight` starts at once, each
  acknowledged by the host once on disk). The child times from its first StartJob to the last job
  seen completed; steps/s = jobs x steps / that time. Each step is `CallPath.call_tool(as_step=True)`
  (the same settings and Invoke, no challenge) followed by `JobStore.durable()` (the job's whole
  document to jobs.db; one fsync for every job that stepped meanwhile: group commit) before that
  job's next step; steps of different jobs (read-only tools) run concurrently. Completion is seen by
  polling `XivMcp.GetJob` for the oldest job not yet seen finished (at once again when it has, else
  after `--poll` s; the host's `finished` stamps give the same span without that granularity, shown
  beside it). After the clock stops, a `GetJob` of each job checks that it completed with every
  step done and its result {"ok": true}. Not `XivMcp.ListJobs`: it answers with every job's whole
  document (about 3.7 KB for a job of 10 steps, with its log), which would load the host being
  measured if polled, and cannot be sent at all past a few hundred jobs: over the bus's 1 MiB
  payload (~280 such jobs) the broker refuses it, and over its 2 MiB frame (~570 jobs) the host's
  own bus connection is dropped.
* `steps_per_s_100`: the first batch, 100 jobs x `--steps`, the same way (it also warms the runner).
* `steps_per_s_assistant`: `--jobs` jobs started as the assistant would, with the player's
  `call start_job` (`--in-flight` at once, each with its challenge), polled with the player's `job`
  command, each checked afterwards with `job`; timed in the driver the same way (skip with
  `--no-assistant`).
* the ratio steps_per_s / direct_calls_per_s, target >= 0.8.
* the host's peak resident set (VmHWM in /proc/PID/status of `system.host.pid`; n/a off Linux) once
  the first 100 jobs have finished (after the direct calls), and once the timed batch has too (then
  the host keeps 100 + `--jobs` finished jobs: 1,100 in a full run; the table says how many), target
  within 1.5x. The current VmRSS is in the JSON too.

The ratio compares two different things on purpose, as the target does: one caller making one call
at a time (latency-bound: four processes on the critical path, two of its three round trips the
player's) against the runner's throughput with many jobs stepping at once (bound by the host's CPU
and by how fast StartJob is acknowledged: each start waits for its group commit). The challenge-free
estimate is the fairer per-call baseline; the table shows both. Not run in CI; no figure is asserted.

Each batch is a fresh plugin child (`--start-jobs N --steps M`): it registers, starts its jobs, prints
`result {json}` and keeps serving the tool (the assistant's batch uses the last one) until stopped.
`--pid-dir DIR` writes DIR/host.pid (and broker.pid) for py-spy:

    python -m bench.jobs --pid-dir /tmp/pids &
    py-spy record --pid $(cat /tmp/pids/host.pid) --duration 10 -o host.svg   # once the jobs run
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.to_thread

if TYPE_CHECKING:
    from gates.player import PlayerClient

MODULE: Final = "bench.jobs"
PLUGIN: Final = "BenchJobs"
TOOL: Final = "benchjobs_ping"
PING_RESULT: Final = {"ok": True}

RATIO_TARGET: Final = 0.8
"""steps/s over direct calls/s, at least."""
RSS_TARGET: Final = 1.5
"""Peak RSS after the timed batch over peak RSS after the first 100 jobs, at most."""
FIRST_JOBS: Final = 100

CALL_LIMIT: Final = 30.0
"""Seconds one direct call or gate call may take."""
BATCH_LIMIT: Final = 900.0
"""Seconds a batch of jobs may take, start to last completion."""
REGISTER_LIMIT: Final = 30.0
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


def job_document(label: str, index: int, steps: int) -> dict[str, Any]:
    return {"name": f"bench {label} {index}", "steps": [{"tool": TOOL} for _ in range(steps)]}


# --------------------------------------------------------------------------- the plugin process


async def plugin_main(args: argparse.Namespace) -> None:
    from gates.contract import JobStep
    from gates.plugin import ToolDefinition, XivMcpClient

    def ping(_: dict[str, Any]) -> dict[str, Any]:
        return PING_RESULT

    async with XivMcpClient(PLUGIN, bus=args.bus) as mcp:
        mcp.add_tool(ToolDefinition(name=TOOL, description='Answers {"ok": true} at once.', read_only=True), ping)
        with anyio.fail_after(REGISTER_LIMIT):
            await mcp.wait_registered()
        print(f"{PLUGIN}: registered", flush=True)
        if args.start_jobs:
            steps = [JobStep(tool=TOOL) for _ in range(args.steps)]

            async def start(index: int) -> str:
                with anyio.fail_after(CALL_LIMIT):
                    job = await mcp.start_job(f"bench {args.label} {index}", *steps)
                return job.id

            async def state(job_id: str) -> tuple[str, str | None]:
                with anyio.fail_after(CALL_LIMIT):
                    job = await mcp.get_job(job_id)
                return job.state.value, job.finished

            batch = Batch(jobs=args.start_jobs, steps=args.steps)
            ids = await run_batch(start, state, batch, in_flight=args.in_flight, poll=args.poll)
            for job_id in ids:
                with anyio.fail_after(CALL_LIMIT):
                    job = await mcp.get_job(job_id)
                if job.state.value != "completed":
                    problem = f"{job_id} is {job.state.value}: {job.message}"
                elif len(job.steps) != args.steps or any(
                    s.state.value != "done" or s.result != PING_RESULT for s in job.steps
                ):
                    problem = f"{job_id} completed, but not every step is done with {PING_RESULT}: {job.steps[:2]}"
                else:
                    batch.verified += 1
                    continue
                batch.problem = batch.problem or problem
            print("result", json.dumps(asdict(batch)), flush=True)
        await anyio.sleep_forever()


# --------------------------------------------------------------------------- the driver


def host_memory_mb(pid: int) -> tuple[float | None, float | None]:
    """(VmHWM, VmRSS) of a process in MB, from /proc (None, None off Linux)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return None, None
    values: dict[str, float] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            values[key] = int(rest.split()[0]) / 1024  # kB
    return values.get("VmHWM"), values.get("VmRSS")


@dataclass
class Report:
    calls: int
    jobs: int
    steps: int
    in_flight: int
    direct_calls_per_s: float = 0.0
    direct_median_us: float = 0.0
    player_hello_per_s: float = 0.0
    direct_no_challenge_per_s: float | None = None
    steps_per_s: float = 0.0
    steps_per_s_100: float = 0.0
    steps_per_s_assistant: float | None = None
    ratio: float = 0.0
    ratio_ok: bool = False
    rss_100_jobs_mb: float | None = None
    rss_1000_jobs_mb: float | None = None
    rss_now_100_jobs_mb: float | None = None
    rss_now_1000_jobs_mb: float | None = None
    finished_jobs_at_rss: list[int] = field(default_factory=list)
    rss_ratio: float | None = None
    rss_ok: bool | None = None
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def _write_pids(folder: str, pids: dict[str, int]) -> None:
    os.makedirs(folder, exist_ok=True)
    for name, pid in pids.items():
        Path(folder, f"{name}.pid").write_text(f"{pid}\n", encoding="ascii")


def _say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def _checked(batch: Batch, what: str) -> Batch:
    if batch.problem is not None or batch.verified != batch.jobs:
        raise BenchError(f"{what}: {batch.verified} of {batch.jobs} jobs verified; {batch.problem}")
    return batch


async def drive(root: Path, args: argparse.Namespace, report: Report) -> None:
    import broker
    from gates.player import PLAYER_HELLO_GATE, CallTool, PlayerClient, PlayerError
    from gates.testing import Process, XivMcpSystem

    with XivMcpSystem(root, "--auto-enable", "--test-clock", "--no-mcp") as system:
        system.start()
        assert system.host is not None and system.broker is not None
        host_pid = system.host.pid
        if args.pid_dir:
            _write_pids(args.pid_dir, {"host": system.host.pid, "broker": system.broker.pid})

        def plugin(*extra: str) -> Process:
            return system.start_plugin(MODULE, "--role", "plugin", *extra, name=PLUGIN)

        async def batch_child(label: str, jobs: int) -> tuple[Process, Batch]:
            proc = plugin(
                "--start-jobs", str(jobs), "--steps", str(args.steps), "--label", label,
                "--in-flight", str(args.in_flight), "--poll", str(args.poll),
            )  # fmt: skip
            await proc.expect(f"{PLUGIN}: registered", REGISTER_LIMIT)
            line = await proc.expect("result ", BATCH_LIMIT)
            return proc, _checked(Batch(**json.loads(line.partition(" ")[2])), f"batch {label}")

        async with broker.connect(system.endpoint, "BenchJobsDriver") as pi:
            player = PlayerClient.for_data_dir(pi, system.data_dir)

            # 1. direct calls: the baseline
            proc = plugin()
            await proc.expect(f"{PLUGIN}: registered", REGISTER_LIMIT)

            async def call() -> None:
                try:
                    with anyio.fail_after(CALL_LIMIT):
                        reply = await player.send(CallTool(tool=TOOL))
                except PlayerError as exc:
                    raise BenchError(f"call {TOOL}: {exc.message[:300]}") from None
                if reply.is_error or reply.result != PING_RESULT:
                    raise BenchError(f"call {TOOL}: {(reply.error or repr(reply.result))[:300]}")

            _say(f"direct calls: {args.warmup} warm-up, {args.calls} timed …")
            for _ in range(args.warmup):
                await call()
            times: list[float] = []
            began = time.perf_counter()
            for _ in range(args.calls):
                t = time.perf_counter()
                await call()
                times.append(time.perf_counter() - t)
            direct_s = time.perf_counter() - began
            report.direct_calls_per_s = args.calls / direct_s
            report.direct_median_us = statistics.median(times) * 1e6

            hello = pi.get_ipc_subscriber(PLAYER_HELLO_GATE)
            began = time.perf_counter()
            for _ in range(args.calls):
                with anyio.fail_after(CALL_LIMIT):
                    text = await hello.invoke_func(secrets.token_hex(16))
                if not json.loads(text).get("ok"):
                    raise BenchError(f"PlayerHello: {text[:300]}")
            hello_s = time.perf_counter() - began
            report.player_hello_per_s = args.calls / hello_s
            if direct_s > hello_s:
                report.direct_no_challenge_per_s = args.calls / (direct_s - hello_s)
            await anyio.to_thread.run_sync(proc.stop)

            # 2. the first 100 jobs (warm-up of the runner), then the host's memory
            _say(f"jobs: {FIRST_JOBS} x {args.steps} steps via XivMcp.StartJob …")
            proc, first = await batch_child("first", FIRST_JOBS)
            report.batches["first"] = asdict(first)
            report.steps_per_s_100 = first.steps_per_s
            report.rss_100_jobs_mb, report.rss_now_100_jobs_mb = host_memory_mb(host_pid)
            report.finished_jobs_at_rss.append(FIRST_JOBS)
            await anyio.to_thread.run_sync(proc.stop)

            # 3. the timed batch, then the host's memory again
            _say(f"jobs: {args.jobs:,} x {args.steps} steps via XivMcp.StartJob …")
            proc, timed = await batch_child("timed", args.jobs)
            report.batches["timed"] = asdict(timed)
            report.steps_per_s = timed.steps_per_s
            report.rss_1000_jobs_mb, report.rss_now_1000_jobs_mb = host_memory_mb(host_pid)
            report.finished_jobs_at_rss.append(FIRST_JOBS + args.jobs)

            # 4. the same batch started by the assistant (the player's `call start_job`); proc serves
            if args.assistant:
                _say(f"jobs: {args.jobs:,} x {args.steps} steps via the player's call start_job …")
                report.batches["assistant"] = asdict(await assistant_batch(player, args))
                report.steps_per_s_assistant = Batch(**report.batches["assistant"]).steps_per_s

    report.ratio = report.steps_per_s / report.direct_calls_per_s
    report.ratio_ok = report.ratio >= RATIO_TARGET
    if report.rss_100_jobs_mb and report.rss_1000_jobs_mb is not None:
        report.rss_ratio = report.rss_1000_jobs_mb / report.rss_100_jobs_mb
        report.rss_ok = report.rss_ratio <= RSS_TARGET


async def assistant_batch(player: PlayerClient, args: argparse.Namespace) -> Batch:
    """`--jobs` jobs started with the player's `call start_job`, polled with its `job` command."""

    from gates.contract import JobInfo
    from gates.player import CallTool, PlayerError, ShowJob

    async def call(arguments: dict[str, Any]) -> Any:
        try:
            with anyio.fail_after(CALL_LIMIT):
                reply = await player.send(CallTool(tool="start_job", arguments=arguments))
        except PlayerError as exc:
            raise BenchError(f"call start_job: {exc.message[:300]}") from None
        if reply.is_error:
            raise BenchError(f"call start_job {json.dumps(arguments)[:100]}: {str(reply.error)[:300]}")
        return reply.result

    async def job_of(job_id: str) -> JobInfo:
        try:
            with anyio.fail_after(CALL_LIMIT):
                return (await player.send(ShowJob(id=job_id, log_lines=0))).job
        except PlayerError as exc:
            raise BenchError(f"job {job_id}: {exc.message[:300]}") from None

    async def start(index: int) -> str:
        result = await call(job_document("assistant", index, args.steps))
        return str(result["started"]["id"])

    async def state(job_id: str) -> tuple[str, str | None]:
        job = await job_of(job_id)
        return job.state.value, job.finished

    batch = Batch(jobs=args.jobs, steps=args.steps)
    ids = await run_batch(start, state, batch, in_flight=args.in_flight, poll=args.poll)
    for job_id in ids:  # after the clock: every job completed, every step done with the tool's result
        job = await job_of(job_id)
        steps = job.steps
        if job.state != "completed" or len(steps) != args.steps:
            batch.problem = batch.problem or f"{job_id} is {job.state}: {job.message}"
        elif any(s.state != "done" or s.result != PING_RESULT for s in steps):
            batch.problem = batch.problem or f"{job_id} completed, but: {steps[:2]}"
        else:
            batch.verified += 1
    return _checked(batch, "assistant batch")


# --------------------------------------------------------------------------- output


def _batch_note(batch: dict[str, Any]) -> str:
    stamped = batch["stamped_seconds"]
    by_stamps = "" if stamped is None else f" ({stamped:.2f} s by the host's stamps)"
    return f"{batch['seconds']:.2f} s{by_stamps}; all started in {batch['start_seconds']:.2f} s"


def _mb(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} MB"


def render(r: Report) -> str:
    def verdict(ok: bool | None) -> str:
        return "" if ok is None else ("  ok" if ok else "  MISSED")

    timed, first = r.batches["timed"], r.batches["first"]
    rows: list[tuple[str, str, str]] = [
        (
            f"direct calls/s ({r.calls:,} sequential player `call`s)",
            f"{r.direct_calls_per_s:,.0f}",
            f"median {r.direct_median_us:,.0f} us a call",
        ),
        ("  the challenge alone/s (XivMcp.PlayerHello)", f"{r.player_hello_per_s:,.0f}", "paid by every direct call"),
        (
            "  direct call without the challenge/s (estimate)",
            "n/a" if r.direct_no_challenge_per_s is None else f"{r.direct_no_challenge_per_s:,.0f}",
            "1 / (1/direct - 1/challenge)",
        ),
        (
            f"steps/s ({r.jobs:,} jobs x {r.steps} via XivMcp.StartJob)",
            f"{r.steps_per_s:,.0f}",
            _batch_note(timed),
        ),
        (
            f"  first batch ({FIRST_JOBS} jobs x {r.steps})",
            f"{r.steps_per_s_100:,.0f}",
            _batch_note(first),
        ),
    ]
    if r.steps_per_s_assistant is not None:
        assistant = r.batches["assistant"]
        rows.append(
            (
                f"  started by the assistant ({r.jobs:,} x {r.steps}, player `call start_job`)",
                f"{r.steps_per_s_assistant:,.0f}",
                _batch_note(assistant),
            )
        )
    width = max(len(label) for label, _, _ in rows)
    cfg = r.config
    lines = [
        f"jobs benchmark: a quick read-only tool ({TOOL}); broker, host and plugin as processes; "
        f"{r.in_flight} job starts in flight",
        f"python {cfg['python']}, {cfg['cpus']} CPUs, {cfg['platform']}",
        "",
        *(f"{label:<{width}}  {value:>8}   {note}" for label, value, note in rows),
        "",
        f"steps/s / direct calls/s = {r.ratio:.2f}   (target >= {RATIO_TARGET})" + verdict(r.ratio_ok),
        *(
            f"host peak RSS after {f'{count:,}':>{len(f'{r.finished_jobs_at_rss[-1]:,}')}} finished jobs = "
            f"{_mb(peak)}   (VmRSS now {_mb(now)})"
            for count, peak, now in zip(
                r.finished_jobs_at_rss,
                (r.rss_100_jobs_mb, r.rss_1000_jobs_mb),
                (r.rss_now_100_jobs_mb, r.rss_now_1000_jobs_mb),
                strict=True,
            )
        ),
        "peak RSS ratio = "
        + ("n/a" if r.rss_ratio is None else f"{r.rss_ratio:.2f}")
        + f"   (target <= {RSS_TARGET})"
        + verdict(r.rss_ok),
        f"(run took {r.seconds:.1f} s)",
    ]
    return "\n".join(lines)


def _rounded(value: Any) -> Any:
    """Floats to 3 decimals, all the way down."""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or `exc` itself."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.jobs", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a short run: 200 calls, 100 jobs")
    p.add_argument("--calls", type=int, default=None, help="sequential direct calls (default 1000; --quick 200)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up direct calls (default 100; --quick 50)")
    p.add_argument("--jobs", type=int, default=None, help="jobs in the timed batch (default 1000; --quick 100)")
    p.add_argument("--steps", type=int, default=10, help="steps a job (default 10)")
    p.add_argument("--in-flight", type=int, default=16, help="job starts in flight at once (default 16)")
    p.add_argument("--poll", type=float, default=0.02, help="seconds between polls of an unfinished job (0.02)")
    p.add_argument("--no-assistant", dest="assistant", action="store_false", help="skip the assistant's batch")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--pid-dir", metavar="DIR", default=None, help="write DIR/host.pid and DIR/broker.pid (py-spy)")
    # The plugin child's side.
    p.add_argument("--role", choices=["driver", "plugin"], default="driver", help=argparse.SUPPRESS)
    p.add_argument("--bus", default=None, help=argparse.SUPPRESS)
    p.add_argument("--start-jobs", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--label", default="jobs", help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.role == "plugin":
        try:
            anyio.run(plugin_main, args)
        except KeyboardInterrupt:  # the driver's stop: leave the bus at once
            pass
        return 0
    quick = args.quick
    args.calls = args.calls if args.calls is not None else (200 if quick else 1000)
    args.warmup = args.warmup if args.warmup is not None else (50 if quick else 100)
    args.jobs = args.jobs if args.jobs is not None else (100 if quick else 1000)
    if min(args.calls, args.jobs, args.steps, args.in_flight) < 1 or args.warmup < 0 or not args.poll > 0:
        print(
            "bench: --calls, --jobs, --steps and --in-flight must be >= 1, --warmup >= 0, --poll > 0", file=sys.stderr
        )
        return 2
    report = Report(calls=args.calls, jobs=args.jobs, steps=args.steps, in_flight=args.in_flight)
    report.config = {
        "warmup": args.warmup,
        "poll_s": args.poll,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="xivmcp-bench-jobs-") as root:
        try:
            anyio.run(drive, Path(root), args, report)
        except Exception as exc:  # a failed run says why, with the host's last words
            for leaf in _leaves(exc):
                print(f"bench: {type(leaf).__name__}: {leaf}", file=sys.stderr)
            log = Path(root, "logs", "host.log")
            if log.exists():
                print(f"bench: the host's stderr ends:\n{log.read_text(errors='replace')[-2000:]}", file=sys.stderr)
            return 1
    report.seconds = time.perf_counter() - began
    print(json.dumps(_rounded(asdict(report))) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
