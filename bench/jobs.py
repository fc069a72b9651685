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
  beside it; why not `XivMcp.ListJobs`: `bench/_job_batch.py`). After the clock stops, a `GetJob` of
  each job checks that it completed with every step done and its result {"ok": true}.
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
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.to_thread

from ._cli import fill_defaults, refuse
from ._job_batch import BATCH_LIMIT, CALL_LIMIT, Batch, BenchError, assistant_batch, checked, plugin_batch
from ._proc import memory_mb, write_pid_files
from ._report import environment, environment_line, rounded, say

MODULE: Final = "bench.jobs"
PLUGIN: Final = "BenchJobs"
TOOL: Final = "benchjobs_ping"
PING_RESULT: Final = {"ok": True}

RATIO_TARGET: Final = 0.8
"""steps/s over direct calls/s, at least."""
RSS_TARGET: Final = 1.5
"""Peak RSS after the timed batch over peak RSS after the first 100 jobs, at most."""
FIRST_JOBS: Final = 100

REGISTER_LIMIT: Final = 30.0


# --------------------------------------------------------------------------- the plugin process


async def plugin_main(args: argparse.Namespace) -> None:
    from gates.plugin import ToolDefinition, XivMcpClient

    def ping(_: dict[str, Any]) -> dict[str, Any]:
        return PING_RESULT

    async with XivMcpClient(PLUGIN, bus=args.bus) as mcp:
        mcp.add_tool(ToolDefinition(name=TOOL, description='Answers {"ok": true} at once.', read_only=True), ping)
        with anyio.fail_after(REGISTER_LIMIT):
            await mcp.wait_registered()
        print(f"{PLUGIN}: registered", flush=True)
        if args.start_jobs:
            batch = await plugin_batch(
                mcp, TOOL, PING_RESULT, label=args.label, jobs=args.start_jobs, steps=args.steps,
                in_flight=args.in_flight, poll=args.poll,
            )  # fmt: skip
            print("result", json.dumps(asdict(batch)), flush=True)
        await anyio.sleep_forever()


# --------------------------------------------------------------------------- the driver


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


async def drive(root: Path, args: argparse.Namespace, report: Report) -> None:
    import broker
    from gates.player import PLAYER_HELLO_GATE, CallTool, PlayerClient, PlayerError
    from gates.testing import Process, XivMcpSystem

    with XivMcpSystem(root, "--auto-enable", "--test-clock", "--no-mcp") as system:
        system.start()
        assert system.host is not None and system.broker is not None
        host_pid = system.host.pid
        if args.pid_dir:
            write_pid_files(args.pid_dir, {"host": system.host.pid, "broker": system.broker.pid})

        def plugin(*extra: str) -> Process:
            return system.start_plugin(MODULE, "--role", "plugin", *extra, name=PLUGIN)

        async def batch_child(label: str, jobs: int) -> tuple[Process, Batch]:
            proc = plugin(
                "--start-jobs", str(jobs), "--steps", str(args.steps), "--label", label,
                "--in-flight", str(args.in_flight), "--poll", str(args.poll),
            )  # fmt: skip
            await proc.expect(f"{PLUGIN}: registered", REGISTER_LIMIT)
            line = await proc.expect("result ", BATCH_LIMIT)
            return proc, checked(Batch(**json.loads(line.partition(" ")[2])), f"batch {label}")

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

            say(f"direct calls: {args.warmup} warm-up, {args.calls} timed …")
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
            say(f"jobs: {FIRST_JOBS} x {args.steps} steps via XivMcp.StartJob …")
            proc, first = await batch_child("first", FIRST_JOBS)
            report.batches["first"] = asdict(first)
            report.steps_per_s_100 = first.steps_per_s
            report.rss_100_jobs_mb, report.rss_now_100_jobs_mb = memory_mb(host_pid)
            report.finished_jobs_at_rss.append(FIRST_JOBS)
            await anyio.to_thread.run_sync(proc.stop)

            # 3. the timed batch, then the host's memory again
            say(f"jobs: {args.jobs:,} x {args.steps} steps via XivMcp.StartJob …")
            proc, timed = await batch_child("timed", args.jobs)
            report.batches["timed"] = asdict(timed)
            report.steps_per_s = timed.steps_per_s
            report.rss_1000_jobs_mb, report.rss_now_1000_jobs_mb = memory_mb(host_pid)
            report.finished_jobs_at_rss.append(FIRST_JOBS + args.jobs)

            # 4. the same batch started by the assistant (the player's `call start_job`); proc serves
            if args.assistant:
                say(f"jobs: {args.jobs:,} x {args.steps} steps via the player's call start_job …")
                assistant = await assistant_batch(
                    player, TOOL, PING_RESULT, jobs=args.jobs, steps=args.steps, in_flight=args.in_flight,
                    poll=args.poll,
                )  # fmt: skip
                report.batches["assistant"] = asdict(assistant)
                report.steps_per_s_assistant = assistant.steps_per_s

    report.ratio = report.steps_per_s / report.direct_calls_per_s
    report.ratio_ok = report.ratio >= RATIO_TARGET
    if report.rss_100_jobs_mb and report.rss_1000_jobs_mb is not None:
        report.rss_ratio = report.rss_1000_jobs_mb / report.rss_100_jobs_mb
        report.rss_ok = report.rss_ratio <= RSS_TARGET


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
        environment_line(cfg),
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
    fill_defaults(args, calls=(200, 1000), warmup=(50, 100), jobs=(100, 1000))
    if min(args.calls, args.jobs, args.steps, args.in_flight) < 1 or args.warmup < 0 or not args.poll > 0:
        return refuse("--calls, --jobs, --steps and --in-flight must be >= 1, --warmup >= 0, --poll > 0")
    report = Report(calls=args.calls, jobs=args.jobs, steps=args.steps, in_flight=args.in_flight)
    report.config = {"warmup": args.warmup, "poll_s": args.poll, **environment()}
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
    print(json.dumps(rounded(asdict(report))) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
