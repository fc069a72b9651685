"""One acting step at a time (J8): the slot a job's changing step holds while it runs.

A job whose next step changes something waits its turn (and says which job and step it waits
for); a direct changing call is refused while the slot is held. Read-only tools and the waiting
steps (`wait`, `wait_until_arrived`) never take the slot nor wait for it.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from gates.contract import JobInfo, StepInfo

from ._checks import WAITING_TOOLS

__all__ = ["ActingSlot"]


class ActingSlot:
    def __init__(self) -> None:
        self.holder: tuple[JobInfo, StepInfo] | None = None
        self._freed = anyio.Event()

    async def take(self, job: JobInfo, step: StepInfo, waiting: Callable[[str], None]) -> None:
        """Wait until the slot is free, then hold it; `waiting(message)` says for whom it waits."""
        while self.holder is not None:
            other, other_step = self.holder
            waiting(
                f"Waits for job '{other.name}' ({other.id}), step {other_step.id} ({other_step.tool}): "
                "one acting step at a time."
            )
            await self._freed.wait()
        self.holder = (job, step)

    def free(self, job: JobInfo) -> None:
        """Free the slot if `job` holds it."""
        if self.holder is not None and self.holder[0] is job:
            self.holder = None
            freed, self._freed = self._freed, anyio.Event()
            freed.set()

    def refusal(self, tool: str) -> str | None:
        """Why a direct call of this changing tool must not run now, or None."""
        if self.holder is None or tool in WAITING_TOOLS:
            return None
        job, _ = self.holder
        # the real host's words (McpServer.cs, tools/call)
        return f"The background job '{job.name}' is running a step; pause_job it first (reading tools still work)."
