"""The host's `XivMcp.*` gates on the bus: each a thin handler, one method of `HostGates` (G1, G2, G3).

A handler checks who calls (the bus tells, G3), hands the arguments to the host's services and
answers `{"ok": true, …}` or `{"ok": false, "error": "…"}` (G2); it never raises into the caller.
All but StartJob, which waits for its job to be on disk, and the job control gates, which may
send a running step's plugin Cancel from a task, are synchronous.
String parameters are nullable, as C#'s `string` is, so a null reaches the handler and gets a
readable refusal instead of an IPC error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

import msgspec

from broker import IpcError, PluginInterface, current_caller
from gates.contract import (
    API_VERSION,
    GATE_SIGNATURES,
    MANIFEST_GATE,
    CallAccepted,
    Gate,
    JobInfo,
    JobReply,
    JobsReply,
    Message,
    RefusedError,
    UnregisterAllReply,
    UnregisterReply,
    guard_gate,
    guard_gate_async,
    list_capabilities,
    ok_reply,
    quote,
    refuse_control_characters,
)
from gates.player import PLAYER_GATE, PLAYER_HELLO_GATE

from ._desk import PlayerDesk
from ._host import Host
from ._plugin_documents import parse_plugin_job
from ._plugin_requests import check_owner
from .jobs._runner import LISTED, NAME_LIMIT

__all__ = ["HostGates", "announce", "provide_gates"]

log = logging.getLogger("gates.host")

PAUSED_BY_PLUGIN: Final = "Paused by a plugin."
"""A job's message once its plugin paused it (the real host's words)."""


class HostGates:
    """The host's gates, one method each, over its services; `handlers()` is the table the bus serves.

    A method that acts for an owner checks first that the caller is that owner (G3, `_owner`); a
    gate about a call, an approval or a job passes the caller on, and the service refuses what
    is not the caller's own. Every method may raise: `handlers()` wraps each in `guard_gate`, so
    the caller gets `{"ok": false, "error": …}` instead (G2)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.requests = host.plugin_requests
        self.jobs = host.jobs

    def handlers(self) -> dict[str, Callable[..., Any]]:
        """Every host gate's handler, by gate name."""
        guarded: dict[str, Callable[..., str]] = {
            Gate.REGISTER_TOOL: self.register_tool,
            Gate.UNREGISTER_TOOL: self.unregister_tool,
            Gate.UNREGISTER_ALL: self.unregister_all,
            Gate.GET_STATUS: self.get_status,
            Gate.DECLARE_DEPENDENCIES: self.declare_dependencies,
            Gate.CHECK_PERMISSION: self.check_permission,
            Gate.REQUEST_APPROVAL: self.request_approval,
            Gate.GET_APPROVAL: self.get_approval,
            Gate.COMPLETE_CALL: self.complete_call,
            Gate.FAIL_CALL: self.fail_call,
            Gate.REPORT_PROGRESS: self.report_progress,
            Gate.GET_JOB: self.get_job,
            Gate.LIST_JOBS: self.list_jobs,
        }
        return {
            # Plain values, not replies (ApiVersion answers 2, G1), from handlers that cannot fail.
            Gate.API_VERSION: lambda: API_VERSION,
            Gate.IS_READY: lambda: True,
            Gate.LIST_CAPABILITIES: lambda: ok_reply(list_capabilities()),
            **{gate: guard_gate(handler) for gate, handler in guarded.items()},
            Gate.START_JOB: guard_gate_async(self.start_job),
            # in a task: pausing or cancelling a running step sends its plugin Cancel from a task
            Gate.PAUSE_JOB: guard_gate_async(self.pause_job),
            Gate.RESUME_JOB: guard_gate_async(self.resume_job),
            Gate.CANCEL_JOB: guard_gate_async(self.cancel_job),
        }

    # --- tools, permissions and dependencies: the caller acts as the owner it names -------

    def register_tool(self, o: str | None, definition_json: str | None) -> str:
        return ok_reply(self.requests.register_tool(self._owner(o), definition_json))

    def unregister_tool(self, o: str | None, name: str | None) -> str:
        return ok_reply(UnregisterReply(removed=self.requests.unregister_tool(self._owner(o), name)))

    def unregister_all(self, o: str | None) -> str:
        return ok_reply(UnregisterAllReply(removed=self.requests.unregister_all(self._owner(o))))

    def get_status(self, o: str | None) -> str:
        return ok_reply(self.requests.status(self._owner(o)))

    def declare_dependencies(self, o: str | None, json_text: str | None) -> str:
        return ok_reply(self.requests.declare_dependencies(self._owner(o), json_text))

    def check_permission(self, o: str | None, capability: str | None) -> str:
        return ok_reply(self.requests.check_permission(self._owner(o), capability))

    def declare_manifest(self, o: str | None, manifest_json: str | None) -> str:
        """This simulator's own gate (the real host asks Dalamud): what the plugin is, F2."""
        return ok_reply(self.requests.declare_manifest(self._owner(o), manifest_json))

    # --- approvals and calls: the caller's own, by id ---------------------------------------

    def request_approval(self, call_id: str | None, request_json: str | None) -> str:
        return ok_reply(self.requests.request_approval(current_caller(), call_id, request_json))

    def get_approval(self, approval_id: str | None) -> str:
        return ok_reply(self.requests.get_approval(current_caller(), approval_id))

    def complete_call(self, call_id: str | None, result_json: str | None) -> str:
        # false when the call had already been completed or failed (G7)
        return ok_reply(CallAccepted(accepted=self.host.calls.complete(current_caller(), call_id or "", result_json)))

    def fail_call(self, call_id: str | None, message: str | None) -> str:
        return ok_reply(CallAccepted(accepted=self.host.calls.fail(current_caller(), call_id or "", message)))

    def report_progress(self, call_id: str | None, text: str | None) -> str:
        self.host.calls.progress(current_caller(), call_id or "", text)  # refuses control characters (S3)
        return ok_reply()

    # --- jobs: a plugin sees and controls only the jobs it started (G10) ---------------------
    # As in XivMcp/Api/PluginApi.cs: StartJob checks the owner, then that the player lets the
    # plugin run, then the document; the job is named "{name} ({DisplayName})"; the control gates
    # answer {"ok": true} alone; a plugin pauses a job "Paused by a plugin.".

    async def start_job(self, o: str | None, job_json: str | None) -> str:
        owner = self._owner(o)
        self.requests.check_can_start_jobs(owner)
        document = parse_plugin_job(job_json)
        refuse_control_characters(Gate.START_JOB, "job's 'name'", document.name)  # S3
        suffix = f" ({self.host.installed.display_name(owner)})"
        name = document.name[: max(0, NAME_LIMIT - len(suffix))] + suffix  # B7: the plugin's part is cut
        job = self.jobs.start(name, document.steps, owner)
        await self.jobs.durable()  # acknowledged means on disk (group commit: many starts, one fsync)
        return ok_reply(JobReply(job=job))

    def get_job(self, job_id: str | None) -> str:
        return ok_reply(JobReply(job=self._own_job(job_id)))

    def list_jobs(self, _: str | None) -> str:
        # The caller's own jobs, whatever it passes: the real host ignores the argument and asks
        # who calls. B7: each job without its steps' results and its log (GetJob has them), the
        # newest first, at most LISTED.
        mine = self.jobs.listing(current_caller(), mine_only=True, newest=LISTED)
        return ok_reply(JobsReply(jobs=[msgspec.structs.replace(j, steps=[], log=[]) for j in mine]))

    async def pause_job(self, job_id: str | None) -> str:
        self.jobs.pause(self._own_job(job_id), PAUSED_BY_PLUGIN)
        return ok_reply()

    async def resume_job(self, job_id: str | None) -> str:
        self.jobs.resume(self._own_job(job_id))
        return ok_reply()

    async def cancel_job(self, job_id: str | None) -> str:
        self.jobs.cancel(self._own_job(job_id))
        return ok_reply()

    def _own_job(self, job_id: str | None) -> JobInfo:
        """The caller's own job, by id or name; any other is refused as if there were none."""
        job = self.jobs.find(job_id or "", current_caller(), mine_only=True)  # B7: names resolve within the owner
        if job is None:
            raise RefusedError(f"No job {quote(job_id or '')} of yours.")
        return job

    def _owner(self, value: str | None) -> str:
        """G3: the `owner` a gate names, once it is known to be the caller's own InternalName."""
        return check_owner(value, current_caller(), self.host.installed.find)


def provide_gates(pi: PluginInterface, host: Host, desk: PlayerDesk) -> None:
    gates = HostGates(host)
    handlers = gates.handlers()
    for gate, signature in GATE_SIGNATURES.items():
        params = tuple(str | None for _ in signature.params)
        pi.get_ipc_provider(gate, params=params, returns=signature.returns).register_func(handlers[gate])
    manifest = pi.get_ipc_provider(MANIFEST_GATE, params=(str | None, str | None), returns=str)
    manifest.register_func(guard_gate(gates.declare_manifest))
    pi.get_ipc_provider(PLAYER_GATE, params=(str | None, str | None), returns=str).register_func(desk.handle)
    pi.get_ipc_provider(PLAYER_HELLO_GATE, params=(str | None,), returns=str).register_func(desk.hello)


def announce(pi: PluginInterface, message: Message) -> None:
    try:
        pi.get_ipc_provider(message).send_message()
    except IpcError as exc:
        log.warning("could not send %s: %s", message, exc)
