"""The handlers of the assistant's job tools (J10); their definitions are `tools._job_definitions`.

The assistant sees and steers every job, the plugins' too; a plugin sees only its own (its gates,
`_gate_handlers.py`). Messages are written for the assistant and name the job tools.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from gates.contract import JobInfo, JobStep, RefusedError, StepState, refuse_control_characters
from gates.player import JobSummary

from ..tools._args import ToolArgs, ToolHandler
from ..tools._job_definitions import LOG_LINES_DEFAULT, LOG_LINES_MAX
from ._runner import LISTED, Jobs
from ._time import wait_seconds

__all__ = ["JobTools", "decode_steps", "job_summary", "job_view"]


def decode_steps(raw: Any) -> list[JobStep]:
    """Steps as sent (a list of objects); a refusal that says what a step looks like."""
    try:
        return msgspec.convert(raw, list[JobStep])
    except msgspec.ValidationError as exc:
        raise RefusedError(
            f"The steps are not valid: {exc}. Each is an object like "
            '{"id": "farm", "tool": "myplugin_farm", "args": {"minutes": 30}}.'
        ) from None


def job_view(job: JobInfo, log_lines: int = LOG_LINES_DEFAULT) -> JobInfo:
    """A job with its last `log_lines` log lines only."""
    return msgspec.structs.replace(job, log=job.log[-log_lines:] if log_lines else [])


def job_summary(job: JobInfo) -> JobSummary:
    """One line of `xivmcp jobs` and of `list_jobs`: the job, and the step it is at."""
    current = next((s for s in job.steps if s.state not in (StepState.DONE, StepState.SKIPPED)), None)
    return JobSummary(
        id=job.id,
        name=job.name,
        state=job.state,
        owner=job.owner,
        step=None if current is None else current.id,
        steps=len(job.steps),
        message=job.message,
    )


class JobTools:
    def __init__(self, jobs: Jobs) -> None:
        self._jobs = jobs

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "start_job": self._start,
            "list_jobs": self._list,
            "get_job": self._get,
            "update_job": self._update,
            "pause_job": self._pause,
            "resume_job": self._resume,
            "cancel_job": self._cancel,
            "wait": self._wait,
        }

    async def _start(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = args.text("name", required=True) or ""
        refuse_control_characters("start_job", "job's 'name'", name)  # S3: the player reads it on a line
        job = self._jobs.start(name, decode_steps(args.items("steps")), None)
        await self._jobs.durable()
        return {"started": {"id": job.id, "name": job.name, "state": job.state.value}, "poll": f"get_job id={job.id}"}

    async def _list(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        jobs = self._jobs.listing(finished=args.boolean("include_finished", True))
        shown = jobs[::-1][:LISTED]  # the newest first, and no more than a reply carries well
        return {"total": len(jobs), "showing": len(shown), "items": [job_summary(j) for j in shown]}

    async def _get(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        job = self._jobs.get(args.text("id", required=True) or "")
        return {"job": job_view(job, args.integer("log_lines", LOG_LINES_DEFAULT, 0, LOG_LINES_MAX))}

    async def _update(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        job = self._jobs.get(args.text("id", required=True) or "")
        action = args.text("action", required=True) or ""
        said = self._jobs.update(job, action, decode_steps(args.items("steps")), args.boolean("resume", False))
        return {"job": job_summary(job), "message": said}

    async def _pause(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        job = self._jobs.get(args.text("id", required=True) or "")
        return {"job": job_summary(job), "message": self._jobs.pause(job)}

    async def _resume(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        job = self._jobs.get(args.text("id", required=True) or "")
        return {"job": job_summary(job), "message": self._jobs.resume(job)}

    async def _cancel(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        job = self._jobs.get(args.text("id", required=True) or "")
        return {"job": job_summary(job), "message": self._jobs.cancel(job)}

    async def _wait(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        seconds = wait_seconds(args.values, datetime.now(UTC))
        await self._jobs.sleep(seconds)
        return {"waited": seconds}
