"""The figures the benches compute: nearest-rank percentiles, each bench's figures of one setup
(bench.bus: `WindowFigures`; bench.mcp: `CallerFigures`), and rounds.

A bench measures every setup once a round, the setups interleaved, so a slow spell of the machine
hits every setup alike; one setup's figures over the rounds are the median of each figure.
Latencies come in as nanoseconds (`time.perf_counter_ns()` differences) and go out in
microseconds.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict, TypeVar

from ._report import say

F = TypeVar("F")


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * fraction // 1))  # ceil without float surprises
    return sorted_values[int(rank) - 1]


def sorted_us(latencies_ns: Iterable[int]) -> list[float]:
    """Nanoseconds to microseconds, sorted for `percentile`."""
    return sorted(ns / 1000 for ns in latencies_ns)


class WindowFigures(TypedDict):
    """One setup of bench.bus: sequential round trips, then `throughput_n` calls with `inflight`
    outstanding."""

    median_us: float
    p99_us: float
    rps: float
    latency_n: int
    throughput_n: int
    inflight: int


def window_figures(latencies_ns: list[int], calls: int, elapsed_s: float, inflight: int) -> WindowFigures:
    us = sorted_us(latencies_ns)
    return WindowFigures(
        median_us=statistics.median(us) if us else float("nan"),
        p99_us=percentile(us, 0.99),
        rps=calls / elapsed_s if elapsed_s > 0 else float("nan"),
        latency_n=len(us),
        throughput_n=calls,
        inflight=inflight,
    )


def combine_windows(rounds: list[WindowFigures]) -> WindowFigures:
    """One setup's figures over several rounds: the median of each."""
    return WindowFigures(
        median_us=statistics.median(f["median_us"] for f in rounds),
        p99_us=statistics.median(f["p99_us"] for f in rounds),
        rps=statistics.median(f["rps"] for f in rounds),
        latency_n=rounds[0]["latency_n"],
        throughput_n=rounds[0]["throughput_n"],
        inflight=rounds[0]["inflight"],
    )


class CallerFigures(TypedDict):
    """One target of bench.mcp: one caller's sequential calls (latency, calls/s), then `callers`
    concurrent callers (the `_16` figures, whatever `callers` is: the documented keys)."""

    median_us: float
    p99_us: float
    rps_1: float
    median_us_16: float
    p99_us_16: float
    rps_16: float
    latency_n: int
    throughput_n: int
    callers: int


def caller_figures(
    one_ns: list[int], one_elapsed_s: float, many_ns: list[int], many_elapsed_s: float, callers: int
) -> CallerFigures:
    """From the latencies and elapsed time of the 1-caller phase and of the `callers` phase."""
    us_1, us_n = sorted_us(one_ns), sorted_us(many_ns)
    return CallerFigures(
        median_us=statistics.median(us_1),
        p99_us=percentile(us_1, 0.99),
        rps_1=len(us_1) / one_elapsed_s,
        median_us_16=statistics.median(us_n),
        p99_us_16=percentile(us_n, 0.99),
        rps_16=len(us_n) / many_elapsed_s,
        latency_n=len(us_1),
        throughput_n=len(us_n),
        callers=callers,
    )


def sequential_figures(latencies_ns: list[int]) -> CallerFigures:
    """Sequential round trips only, timed one by one: calls/s from their sum, no concurrent phase."""
    us = sorted_us(latencies_ns)
    return CallerFigures(
        median_us=statistics.median(us),
        p99_us=percentile(us, 0.99),
        rps_1=len(us) / (sum(us) / 1e6),
        median_us_16=0.0,
        p99_us_16=0.0,
        rps_16=0.0,
        latency_n=len(us),
        throughput_n=0,
        callers=1,
    )


def combine_callers(rounds: list[CallerFigures]) -> CallerFigures:
    """One target's figures over several rounds: the median of each; the fewest calls made (a
    phase stops early on a slow target, and the table says so)."""
    return CallerFigures(
        median_us=statistics.median(f["median_us"] for f in rounds),
        p99_us=statistics.median(f["p99_us"] for f in rounds),
        rps_1=statistics.median(f["rps_1"] for f in rounds),
        median_us_16=statistics.median(f["median_us_16"] for f in rounds),
        p99_us_16=statistics.median(f["p99_us_16"] for f in rounds),
        rps_16=statistics.median(f["rps_16"] for f in rounds),
        latency_n=min(f["latency_n"] for f in rounds),
        throughput_n=min(f["throughput_n"] for f in rounds),
        callers=rounds[0]["callers"],
    )


def ratios_by_round(
    tops: Sequence[Mapping[str, Any]], bottoms: Sequence[Mapping[str, Any]], figure: str
) -> list[float]:
    """top / bottom of one figure in each round, to 3 decimals: how steady a ratio of medians is."""
    ratios: list[float] = [round(t[figure] / b[figure], 3) for t, b in zip(tops, bottoms, strict=True)]
    return ratios


def interleaved_rounds(
    count: int, groups: Sequence[Sequence[str]], run: Callable[[Sequence[str]], Mapping[str, F]]
) -> dict[str, list[F]]:
    """`run(group)` for every group, round after round; each setup's figures, one per round.

    A group is the setups one start measures (bench.mcp measures core, plugin and sdk_bus on one
    host); `run` may return figures of setups beyond its group (bench.mcp's bare bus round trip)."""
    rounds: dict[str, list[F]] = {name: [] for group in groups for name in group}
    for r in range(count):
        for group in groups:
            say(f"round {r + 1}/{count}: {', '.join(group)} …")
            for name, figures in run(group).items():
                rounds.setdefault(name, []).append(figures)
    return rounds
