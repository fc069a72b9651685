"""A plugin's background jobs (G10): start them, follow them, pause, resume or cancel them.

    job = await mcp.start_job("Farm, then report",
                              JobStep(id="farm", tool="myplugin_farm", args={"minutes": 30}),
                              JobStep(tool="echo", args={"text": "Farmed {{farm.kills}} kills"}))
    job = await mcp.get_job(job.id)            # its state, each step's result, the log's tail

A plugin sees and controls only the jobs it started; XIV MCP names each "{name} ({plugin})", as
the real host does with the plugin's display name. Its long-running tools' `call.progress` lines
go to the log of the job whose step they run in. XIV MCP starts a plugin's job only while the
player lets the plugin run (enabled, not suspended, not awaiting consent).
"""

from __future__ import annotations

from typing import Any, Protocol

from broker import PluginInterface
from gates.contract import Gate, Job, JobInfo, JobReply, JobsReply, JobStep, decode_host_reply, encode_json

__all__ = ["JobsMixin"]


class _Client(Protocol):
    internal_name: str

    @property
    def pi(self) -> PluginInterface: ...


class JobsMixin:
    """The job methods of `XivMcpClient`; each raises `HostReplyError` with XIV MCP's refusal."""

    async def start_job(self: _Client, name: str, *steps: JobStep) -> JobInfo:
        """Start a job of `steps`, run one after another by XIV MCP; the job as started."""
        document = encode_json(Job(name=name, steps=list(steps)))
        text = await self.pi.get_ipc_subscriber(Gate.START_JOB).invoke_func(self.internal_name, document)
        return decode_host_reply(text, JobReply).job

    async def get_job(self: _Client, job_id: str) -> JobInfo:
        """The job `job_id` as it stands now: its state, each step's result and the log's tail."""
        text = await self.pi.get_ipc_subscriber(Gate.GET_JOB).invoke_func(job_id)
        return decode_host_reply(text, JobReply).job

    async def list_jobs(self: _Client) -> list[JobInfo]:
        """The jobs this plugin started, newest first, at most 500 (finished ones too, for seven
        days), each without its steps and log: `get_job` has those."""
        text = await self.pi.get_ipc_subscriber(Gate.LIST_JOBS).invoke_func(self.internal_name)
        return decode_host_reply(text, JobsReply).jobs

    # XIV MCP answers the three control gates with {"ok": true} alone, as the real host does:
    # `get_job` tells how the job stands afterwards.

    async def pause_job(self: _Client, job_id: str) -> None:
        """Pause the job (its running step gets Cancel); its message becomes "Paused by a plugin."."""
        text = await self.pi.get_ipc_subscriber(Gate.PAUSE_JOB).invoke_func(job_id)
        decode_host_reply(text, dict[str, Any])

    async def resume_job(self: _Client, job_id: str) -> None:
        """Run the job again, from the step that was paused."""
        text = await self.pi.get_ipc_subscriber(Gate.RESUME_JOB).invoke_func(job_id)
        decode_host_reply(text, dict[str, Any])

    async def cancel_job(self: _Client, job_id: str) -> None:
        """Cancel the job (its running step gets Cancel)."""
        text = await self.pi.get_ipc_subscriber(Gate.CANCEL_JOB).invoke_func(job_id)
        decode_host_reply(text, dict[str, Any])
