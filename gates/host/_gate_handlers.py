"""The host's `XivMcp.*` gates on the bus: each a thin, synchronous handler (G1, G2, G3).

A handler checks who calls (the bus tells, G3), hands the arguments to the host's services and
answers `{"ok": true, …}` or `{"ok": false, "error": "…"}` (G2); it never raises into the caller.
String parameters are nullable, as C#'s `string` is, so a null reaches the handler and gets a
readable refusal instead of an IPC error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import msgspec

from broker import IpcError, PluginInterface, current_caller
from gates.contract import (
    API_VERSION,
    GATE_SIGNATURES,
    CallAccepted,
    Gate,
    JobInfo,
    JobReply,
    JobsReply,
    Message,
    RefusedError,
    UnregisterAllReply,
    UnregisterReply,
    decode_job,
    guard_gate,
    guard_gate_async,
    list_capabilities,
    ok_reply,
)
from gates.player import PLAYER_GATE, PLAYER_HELLO_GATE

from ._desk import PlayerDesk
from ._host import Host
from ._plugin_requests import check_owner
from .jobs._runner import LISTED

__all__ = ["announce", "build_handlers", "provide_gates"]

log = logging.getLogger("gates.host")


def build_handlers(host: Host) -> dict[str, Callable[..., Any]]:
    """Every host gate's handler, by gate name."""

    requests = host.plugin_requests

    def owner(value: str | None) -> str:
        return check_owner(value, current_caller())

    def register_tool(o: str | None, definition_json: str | None) -> str:
        return ok_reply(requests.register_tool(owner(o), definition_json))

    def unregister_tool(o: str | None, name: str | None) -> str:
        return ok_reply(UnregisterReply(removed=requests.unregister_tool(owner(o), name)))

    def unregister_all(o: str | None) -> str:
        return ok_reply(UnregisterAllReply(removed=requests.unregister_all(owner(o))))

    def get_status(o: str | None) -> str:
        return ok_reply(requests.status(owner(o)))

    def declare_dependencies(o: str | None, json_text: str | None) -> str:
        return ok_reply(requests.declare_dependencies(owner(o), json_text))

    def check_permission(o: str | None, capability: str | None) -> str:
        return ok_reply(requests.check_permission(owner(o), capability))

    def request_approval(call_id: str | None, request_json: str | None) -> str:
        return ok_reply(requests.request_approval(current_caller(), call_id, request_json))

    def get_approval(approval_id: str | None) -> str:
        return ok_reply(requests.get_approval(current_caller(), approval_id))

    def complete_call(call_id: str | None, result_json: str | None) -> str:
        host.calls.complete(current_caller(), call_id or "", result_json)
        return ok_reply(CallAccepted(accepted=True))

    def fail_call(call_id: str | None, message: str | None) -> str:
        host.calls.fail(current_caller(), call_id or "", message)
        return ok_reply(CallAccepted(accepted=True))

    def report_progress(call_id: str | None, text: str | None) -> str:
        host.calls.progress(current_caller(), call_id or "", text)
        return ok_reply()

    jobs = host.jobs

    async def start_job(o: str | None, job_json: str | None) -> str:
        document = decode_job(job_json or "")
        job = jobs.start(document.name, document.steps, owner(o))
        await jobs.durable()  # acknowledged means on disk (group commit: many starts, one fsync)
        return ok_reply(JobReply(job=job))

    def own_job(job_id: str | None) -> JobInfo:
        """G10: a plugin sees and controls only the jobs it started."""
        if not job_id:
            raise RefusedError("'id' is required: the job id StartJob returned (or ListJobs lists).")
        return jobs.get(job_id, current_caller(), mine_only=True)

    def get_job(job_id: str | None) -> str:
        return ok_reply(JobReply(job=own_job(job_id)))

    def list_jobs(o: str | None) -> str:
        # B7: each job without its steps' results and its log (GetJob has them), the newest first
        mine = jobs.listing(owner(o), mine_only=True, newest=LISTED)
        return ok_reply(JobsReply(jobs=[msgspec.structs.replace(j, steps=[], log=[]) for j in mine]))

    def control(act: Callable[[JobInfo], str]) -> Callable[[str | None], str]:
        def handler(job_id: str | None) -> str:
            job = own_job(job_id)
            act(job)
            return ok_reply(JobReply(job=job))

        return handler

    handlers: dict[str, Callable[..., Any]] = {
        Gate.API_VERSION: lambda: API_VERSION,
        Gate.IS_READY: lambda: True,
        Gate.LIST_CAPABILITIES: lambda: ok_reply(list_capabilities()),
        Gate.REGISTER_TOOL: guard_gate(register_tool),
        Gate.UNREGISTER_TOOL: guard_gate(unregister_tool),
        Gate.UNREGISTER_ALL: guard_gate(unregister_all),
        Gate.GET_STATUS: guard_gate(get_status),
        Gate.DECLARE_DEPENDENCIES: guard_gate(declare_dependencies),
        Gate.CHECK_PERMISSION: guard_gate(check_permission),
        Gate.REQUEST_APPROVAL: guard_gate(request_approval),
        Gate.GET_APPROVAL: guard_gate(get_approval),
        Gate.COMPLETE_CALL: guard_gate(complete_call),
        Gate.FAIL_CALL: guard_gate(fail_call),
        Gate.REPORT_PROGRESS: guard_gate(report_progress),
    }
    handlers[Gate.START_JOB] = guard_gate_async(start_job)
    handlers[Gate.GET_JOB] = guard_gate(get_job)
    handlers[Gate.LIST_JOBS] = guard_gate(list_jobs)
    handlers[Gate.PAUSE_JOB] = guard_gate(control(jobs.pause))
    handlers[Gate.RESUME_JOB] = guard_gate(control(jobs.resume))
    handlers[Gate.CANCEL_JOB] = guard_gate(control(jobs.cancel))
    return handlers


def provide_gates(pi: PluginInterface, host: Host, desk: PlayerDesk) -> None:
    handlers = build_handlers(host)
    for gate, signature in GATE_SIGNATURES.items():
        params = tuple(str | None for _ in signature.params)
        pi.get_ipc_provider(gate, params=params, returns=signature.returns).register_func(handlers[gate])
    pi.get_ipc_provider(PLAYER_GATE, params=(str | None, str | None), returns=str).register_func(desk.handle)
    pi.get_ipc_provider(PLAYER_HELLO_GATE, params=(str | None,), returns=str).register_func(desk.hello)


def announce(pi: PluginInterface, message: Message) -> None:
    try:
        pi.get_ipc_provider(message).send_message()
    except IpcError as exc:
        log.warning("could not send %s: %s", message, exc)
