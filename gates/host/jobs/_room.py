"""What each owner's jobs take (B7): how many are kept, and how many bytes their documents hold.

One plugin's jobs must not crowd out another's (or the assistant's): next to the host-wide
bound (`MAX_JOBS`) each owner (a plugin's InternalName; None for the assistant's jobs) may keep
at most `MAX_JOBS_PER_OWNER` jobs whose stored documents take at most `MAX_BYTES_PER_OWNER`.
At a bound, that owner's oldest finished jobs go first; with none finished, starting is refused
with a message that says what to do. A document's size is its JSON as the job store writes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from typing import Final

import msgspec

from gates.contract import JobInfo, JobState, RefusedError

__all__ = ["MAX_BYTES_PER_OWNER", "MAX_JOBS_PER_OWNER", "JobRoom", "full_message"]

MAX_JOBS_PER_OWNER: Final = 1_000
"""Jobs one plugin (or the assistant) keeps at once."""
MAX_BYTES_PER_OWNER: Final = 16 * 1024 * 1024
"""Bytes the stored documents of one owner's jobs take at most (16 MiB)."""

_encode: Final = msgspec.json.Encoder().encode


class JobRoom:
    """Each owner's count of jobs and of stored bytes, kept as jobs are saved and forgotten."""

    def __init__(self, max_jobs: int = MAX_JOBS_PER_OWNER, max_bytes: int = MAX_BYTES_PER_OWNER) -> None:
        self.max_jobs = max_jobs
        self.max_bytes = max_bytes
        self._size: dict[str, tuple[str | None, int]] = {}
        self._count: Counter[str | None] = Counter()
        self._bytes: Counter[str | None] = Counter()

    def saved(self, job: JobInfo) -> None:
        """The job's document as it is now (called at each save)."""
        size = len(_encode(job))
        previous = self._size.get(job.id)
        if previous is None:
            self._count[job.owner] += 1
        else:
            self._bytes[previous[0]] -= previous[1]
        self._size[job.id] = (job.owner, size)
        self._bytes[job.owner] += size

    def forgotten(self, job_id: str) -> None:
        previous = self._size.pop(job_id, None)
        if previous is not None:
            owner, size = previous
            self._count[owner] -= 1
            self._bytes[owner] -= size

    def full(self, owner: str | None) -> bool:
        """Whether `owner` is at a bound (a new job would pass it)."""
        return self._count[owner] >= self.max_jobs or self._bytes[owner] >= self.max_bytes

    def to_drop(
        self, jobs: Collection[JobInfo], owner: str | None, finished: Iterable[JobState], max_jobs: int
    ) -> list[str]:
        """The finished jobs to forget before `owner` starts one: its own oldest while it is at a bound,
        then the oldest of all while the host keeps `max_jobs`; RefusedError when that is not enough."""
        done = frozenset(finished)
        ended = sorted((j for j in jobs if j.state in done), key=lambda j: j.finished or "")
        own = [j for j in ended if j.owner == owner]
        count, size = self.usage(owner)
        drop: list[str] = []
        while count >= self.max_jobs or size >= self.max_bytes:
            if len(drop) == len(own):
                raise RefusedError(full_message(self, owner))
            count, size = count - 1, size - self._size[own[len(drop)].id][1]
            drop.append(own[len(drop)].id)
        excess = len(jobs) - len(drop) - max_jobs + 1
        if excess > 0:
            dropped = set(drop)
            others = [j.id for j in ended if j.id not in dropped][:excess]
            if len(others) < excess:
                raise RefusedError(f"XIV MCP keeps at most {max_jobs} jobs and none has finished; cancel some first.")
            drop += others
        return drop

    def usage(self, owner: str | None) -> tuple[int, int]:
        """(jobs kept, bytes stored) of `owner`."""
        return self._count[owner], self._bytes[owner]


def full_message(room: JobRoom, owner: str | None) -> str:
    """Why `owner` may start no job, in the words of whoever reads it (the assistant or a plugin)."""
    count, size = room.usage(owner)
    if count >= room.max_jobs:
        held = f"{count:,} jobs (at most {room.max_jobs:,} each)"
    else:
        held = f"jobs whose documents take {size / 2**20:.1f} MiB (at most {room.max_bytes / 2**20:.0f} MiB each)"
    who = "The assistant keeps" if owner is None else f"{owner} keeps"
    how = "cancel_job" if owner is None else "CancelJob"
    return f"{who} {held} and none of them has finished; cancel some first ({how}), or wait for them to finish."
