"""The host's `XivMcp.*` gates on the bus, and its life cycle (`run_host`).

Each gate is a thin, synchronous handler: check who calls (the bus tells, G3), hand the
arguments to `Host`, and answer `{"ok": true, …}` or `{"ok": false, "error": "…"}` (G2). They
never raise into the caller. String parameters are nullable, as C#'s `string` is, so a null
reaches the handler and gets a readable refusal instead of an IPC error.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from broker import IpcError, PluginInterface, connect, current_caller

from ._contract import (
    API_VERSION,
    GATE_SIGNATURES,
    HOST_NAME,
    PLAYER_GATE,
    CallAccepted,
    Gate,
    Message,
    UnregisterAllReply,
    UnregisterReply,
    error_reply,
    guard_gate,
    list_capabilities,
    ok_reply,
)
from ._host import Host, HostConfig
from ._player import PlayerDesk

log = logging.getLogger("gates.host")


def _caller() -> str:
    return current_caller()


def build_handlers(host: Host) -> dict[str, Callable[..., Any]]:
    """Every host gate's handler, by gate name."""

    def owner(value: str | None) -> str:
        return host.check_owner(value, _caller())

    def register_tool(o: str | None, definition_json: str | None) -> str:
        return ok_reply(host.register_tool(owner(o), definition_json))

    def unregister_tool(o: str | None, name: str | None) -> str:
        return ok_reply(UnregisterReply(removed=host.unregister_tool(owner(o), name)))

    def unregister_all(o: str | None) -> str:
        return ok_reply(UnregisterAllReply(removed=host.unregister_all(owner(o))))

    def get_status(o: str | None) -> str:
        return ok_reply(host.status(owner(o)))

    def declare_dependencies(o: str | None, json_text: str | None) -> str:
        return ok_reply(host.declare_dependencies(owner(o), json_text))

    def check_permission(o: str | None, capability: str | None) -> str:
        return ok_reply(host.check_permission(owner(o), capability))

    def request_approval(call_id: str | None, request_json: str | None) -> str:
        return ok_reply(host.request_approval(_caller(), call_id, request_json))

    def get_approval(approval_id: str | None) -> str:
        return ok_reply(host.get_approval(approval_id))

    def complete_call(call_id: str | None, result_json: str | None) -> str:
        host.calls.complete(_caller(), call_id or "", result_json)
        return ok_reply(CallAccepted(accepted=True))

    def fail_call(call_id: str | None, message: str | None) -> str:
        host.calls.fail(_caller(), call_id or "", message)
        return ok_reply(CallAccepted(accepted=True))

    def report_progress(call_id: str | None, text: str | None) -> str:
        host.calls.progress(_caller(), call_id or "", text)
        return ok_reply()

    def jobs_not_yet(*_: str | None) -> str:
        return error_reply(
            "Background jobs are not available in this version of the simulated host yet; "
            "call the tools one by one meanwhile."
        )

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
    for gate in (Gate.START_JOB, Gate.GET_JOB, Gate.LIST_JOBS, Gate.PAUSE_JOB, Gate.RESUME_JOB, Gate.CANCEL_JOB):
        handlers[gate] = guard_gate(jobs_not_yet)
    return handlers


def provide_gates(pi: PluginInterface, host: Host, desk: PlayerDesk) -> None:
    handlers = build_handlers(host)
    for gate, signature in GATE_SIGNATURES.items():
        params = tuple(str | None for _ in signature.params)
        pi.get_ipc_provider(gate, params=params, returns=signature.returns).register_func(handlers[gate])
    pi.get_ipc_provider(PLAYER_GATE, params=(str | None, str | None), returns=str).register_func(desk.handle)


def announce(pi: PluginInterface, message: Message) -> None:
    try:
        pi.get_ipc_provider(message).send_message()
    except IpcError as exc:
        log.warning("could not send %s: %s", message, exc)


@asynccontextmanager
async def host_running(config: HostConfig) -> AsyncIterator[Host]:
    """The host on the bus for the length of the block: its gates provided and `Ready` said on
    entry; `Disposing` said, running calls stopped and the store closed on the way out."""
    async with connect(config.bus, HOST_NAME) as pi, anyio.create_task_group() as tg:
        host = Host(config, pi, tg)
        desk = PlayerDesk(host, tg)
        try:
            provide_gates(pi, host, desk)

            def on_peer(name: str, joined: bool, reason: str) -> None:
                if not joined:
                    desk.caller_left(name)
                    host.plugin_left(name)

            def on_connection(connected: bool) -> None:
                if connected:
                    host.forget_disconnected()
                    announce(pi, Message.READY)

            pi.on_peer_change(on_peer)
            pi.on_connection_change(on_connection)
            announce(pi, Message.READY)
            tg.start_soon(_expire_due, host, config.tick)
            yield host
        finally:
            announce(pi, Message.DISPOSING)
            with anyio.move_on_after(1, shield=True):
                await pi.flush()  # Disposing reaches the broker before this process goes
            host.close()
            tg.cancel_scope.cancel()


async def _expire_due(host: Host, tick: float) -> None:
    """Check deadlines (approval windows, cancelled calls) every `tick` real seconds."""
    while True:
        await anyio.sleep(tick)
        host.expire_due()


async def run_host(
    config: HostConfig,
    on_ready: Callable[[], None] | None = None,
    on_endpoint: Callable[[str], None] | None = None,
) -> None:
    """Run the host until cancelled: provide the gates, say Ready, and Disposing on the way out.

    With `config.mcp_enabled` it also serves AI apps over MCP Streamable HTTP (`on_endpoint` gets
    the URL once it listens), from before `on_ready` until before the host closes."""
    async with host_running(config) as host, anyio.create_task_group() as tg:
        endpoint = None
        if config.mcp_enabled:
            from ._mcp_http import McpEndpoint  # the MCP front is loaded only by a host that serves it

            endpoint = await McpEndpoint.start(host, tg)
            if endpoint is not None and on_endpoint is not None:
                on_endpoint(endpoint.url)
        try:
            if on_ready is not None:
                on_ready()
            await anyio.sleep_forever()
        finally:
            if endpoint is not None:
                with anyio.CancelScope(shield=True):
                    await endpoint.aclose()
