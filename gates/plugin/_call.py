"""One call of a plugin's tool, as its handler sees it, and the errors a handler raises.

McpToolError("Not at a summoning bell. Use navigate_to …")   the assistant reads it as it is
CallCancelledError                                             the call was cancelled: "Cancelled."
McpCall                                                        args, progress, sleep, approvals
"""

from __future__ import annotations

from typing import Any, Final, Protocol

import anyio

from gates.contract import DeclaredTool, Gate, encode_json

__all__ = [
    "CallCancelledError",
    "McpCall",
    "McpToolError",
    "builtin_dependency",
    "error_text",
    "plugin_dependency",
]

APPROVAL_POLL_SECONDS: Final = 0.25


class _CallHost(Protocol):
    """What a call needs of its client: a way to the host's gates, and the progress queue."""

    def queue_progress(self, call_id: str, text: str) -> None: ...

    async def host_call(self, gate: str, *args: str) -> dict[str, Any]: ...


class McpToolError(Exception):
    """An error the assistant reads as it is: say what was wrong and what to do instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CallCancelledError(Exception):
    """Raised inside a long-running tool when its call is cancelled (the client reports "Cancelled.")."""


class McpCall:
    """One call of a long-running tool: its arguments, and the way to XIV MCP while it runs.

    A long-running tool gets it as its first parameter. It reports progress to the job log, waits
    without missing a cancellation, and asks the player to approve an action the tool declared:

        async def myplugin_restock(call: McpCall, count: int = 10) -> Restocked:
            call.progress("walking to the vendor")
            await call.sleep(2)  # raises CallCancelledError if the call is cancelled meanwhile
            if not await call.request_approval("spend_gil", f"Buy {count} Hi-Potion for {count * 600:,} gil"):
                raise McpToolError("The player declined the purchase; nothing was bought.")
    """

    def __init__(self, client: _CallHost, call_id: str, tool: str, args: dict[str, Any]) -> None:
        self._client = client
        self.id = call_id
        """XIV MCP's id of the call (what `.Cancel` names)."""
        self.tool = tool
        """The tool's name."""
        self.args = args
        """The arguments as XIV MCP sent them (JSON values, before binding to the parameters)."""
        self.cancelled = anyio.Event()
        """Set when the job is paused or cancelled, the app gives up, or XIV MCP is disposing."""

    def progress(self, text: str) -> None:
        """Add a line to the job log (cut at 300 characters by XIV MCP; dropped for direct calls)."""
        self._client.queue_progress(self.id, text)

    def raise_if_cancelled(self) -> None:
        """Raise `CallCancelledError` if the call was cancelled: check it between steps of long work."""
        if self.cancelled.is_set():
            raise CallCancelledError("Cancelled.")

    async def sleep(self, seconds: float) -> None:
        """Sleep, or raise `CallCancelledError` as soon as the call is cancelled."""
        with anyio.move_on_after(seconds):
            await self.cancelled.wait()
        self.raise_if_cancelled()

    async def request_approval(self, capability: str, summary: str) -> bool:
        """Ask the player now, with the numbers; True if approved.

        True right away if the player allows the capability, False if it is denied, the
        capability was not declared on this tool, the call is cancelled, or nobody answers
        within two minutes.
        """
        reply = await self._client.host_call(
            Gate.REQUEST_APPROVAL, self.id, encode_json({"capability": capability, "summary": summary})
        )
        state = reply.get("state")
        approval_id = str(reply.get("approvalId", ""))
        while state == "pending" and not self.cancelled.is_set():
            with anyio.move_on_after(APPROVAL_POLL_SECONDS):
                await self.cancelled.wait()
            state = (await self._client.host_call(Gate.GET_APPROVAL, approval_id)).get("state")
        return state == "approved"


def builtin_dependency(tool: str) -> DeclaredTool:
    """A built-in XIV MCP tool your jobs use, such as "navigate_to"."""
    return DeclaredTool(tool=tool)


def plugin_dependency(tool: str, *, plugin: str, name: str, repo: str, min_version: str) -> DeclaredTool:
    """Another plugin's tool your jobs use; `repo` is its repo.json URL or "official"."""
    return DeclaredTool(tool=tool, plugin=plugin, name=name, repo=repo, min_version=min_version)


def error_text(exc: Exception) -> str:
    if isinstance(exc, McpToolError):
        return exc.message
    detail = str(exc)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
