"""Whether the plugin keeps its private gates for XIV MCP (S1): a probe from the check's own peer.

In the game only XIV MCP calls a plugin's `Invoke` and `Cancel`; on the bus any process can,
unless the plugin provides them with `callers=("XivMcp",)` (the kit does). The check calls each
gate the plugin provides, as a process that is not XIV MCP, with a tool and a call id that do not
exist: the framework's refusal is what a careful plugin answers, and anything else (a reply, or
the handler's own error) means the gate ran for a stranger, past the player's modes, approvals
and audit log.
"""

from __future__ import annotations

from typing import Final

import anyio

import broker
from gates.contract import HOST_NAME, PluginGate, plugin_gate

from ._report import Check, Finding, Rule, Severity

__all__ = ["PROBE_CALL_ID", "PROBE_TOOL", "probe_private_gates"]

PROBE_CALL_ID: Final = "xivmcp-check-probe"
PROBE_TOOL: Final = "xivmcp_check_no_such_tool"
PROBE_SECONDS: Final = 10.0


async def probe_private_gates(pi: broker.PluginInterface, plugin: str) -> list[Finding]:
    """A warning for each of the plugin's Invoke and Cancel that answered the check's peer."""
    findings: list[Finding] = []
    for which, kind, args in (
        (PluginGate.INVOKE, "func", (PROBE_CALL_ID, PROBE_TOOL, "{}")),
        (PluginGate.CANCEL, "action", (PROBE_CALL_ID,)),
    ):
        gate = pi.get_ipc_subscriber(plugin_gate(plugin, which))
        if not (gate.has_function() if kind == "func" else gate.has_action()):
            continue  # Cancel is optional (G8); an Invoke that is missing shows in every call
        try:
            with anyio.fail_after(PROBE_SECONDS):
                await (gate.invoke_func(*args) if kind == "func" else gate.invoke_action(*args))
        except broker.IpcRefusedError:
            continue  # kept for XIV MCP, as it should be
        except (broker.IpcError, TimeoutError):
            pass  # it ran: its own error, or it took its time
        findings.append(_open(plugin, gate.name, kind))
    return findings


def _open(plugin: str, gate: str, kind: str) -> Finding:
    register = "register_func" if kind == "func" else "register_action"
    return Finding(
        severity=Severity.WARNING,
        tool=gate,
        rule=Rule.OPEN_PRIVATE_GATE,
        check=Check.REGISTRATION,
        spec="S1",
        message=f"{gate} answered the check's own process, which is not XIV MCP: any process on the bus "
        f"can run {plugin}'s tools through it, past the player's modes, approvals and audit log"
        f"{'' if kind == 'func' else ', or cancel its calls'}. Provide it with "
        f"{register}(handler, callers=({HOST_NAME!r},)) (gates.plugin does it for you).",
    )
