"""RawPlugin: a plugin written on the raw gates only, without the client.

    python -m plugins_sample.raw_gates --bus tcp://127.0.0.1:37520

It provides `RawPlugin.XivMcp.Invoke` and `RawPlugin.XivMcp.Cancel` itself, for XIV MCP alone
(`callers=("XivMcp",)`: the framework refuses every other process), and registers on
`XivMcp.Ready` (and at start if XIV MCP is already up) by calling `XivMcp.RegisterTool`:

* `rawplugin_echo` (read-only): replies `{"result": …}` at once with the arguments it got;
* `rawplugin_slow`: replies `{"pending": true}` and finishes later with `XivMcp.CompleteCall`
  (or `XivMcp.FailCall` with "Cancelled." when XIV MCP sends Cancel);
* `rawplugin_inline`: calls `XivMcp.CompleteCall` from inside Invoke, before its reply.

It prints a line on stdout when it has registered, and when a `rawplugin_slow` call starts, is
cancelled and is finished (with XIV MCP's answer), for people and for tests that wait on them.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.abc

from broker import IpcError, PluginInterface, connect

from ._run import parse_args, run, say

NAME = "RawPlugin"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "rawplugin_echo",
        "description": "Echoes its arguments back. Read-only.",
        "readOnly": True,
    },
    {
        "name": "rawplugin_slow",
        "description": "Waits 'seconds' (default 0.2), then answers. Finished with CompleteCall.",
        "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
        "capabilities": ["game_ui"],
    },
    {
        "name": "rawplugin_inline",
        "description": "Completes its call from inside Invoke, before replying.",
        "capabilities": ["game_ui"],
    },
]


class RawPlugin:
    def __init__(self, pi: PluginInterface, tg: anyio.abc.TaskGroup) -> None:
        self.pi = pi
        self.tg = tg
        self.cancelled: dict[str, anyio.Event] = {}

    async def host(self, gate: str, *args: str) -> dict[str, Any]:
        reply: dict[str, Any] = json.loads(await self.pi.get_ipc_subscriber(f"XivMcp.{gate}").invoke_func(*args))
        return reply

    async def register(self, *_: object) -> None:
        for tool in TOOLS:
            try:
                reply = await self.host("RegisterTool", NAME, json.dumps(tool))
            except IpcError as exc:
                say(f"{NAME}: XIV MCP is not reachable: {exc}")
                return
            if not reply.get("ok"):
                say(f"{NAME}: XIV MCP rejected {tool['name']}: {reply.get('error')}")
        say(f"{NAME}: registered {len(TOOLS)} tools")

    async def invoke(self, call_id: str, tool: str, args_json: str) -> str:
        args = json.loads(args_json or "{}")
        if tool == "rawplugin_echo":
            return json.dumps({"result": {"echo": args}})
        if tool == "rawplugin_slow":
            seconds = float(args.get("seconds", 0.2))  # not a number: ValueError, as the assistant sees it
            self.cancelled[call_id] = anyio.Event()
            self.tg.start_soon(self.finish_slow, call_id, seconds)
            say(f"{NAME}: rawplugin_slow started ({call_id})")
            return json.dumps({"pending": True})
        if tool == "rawplugin_inline":
            await self.host("CompleteCall", call_id, json.dumps({"done": "inside Invoke"}))
            return json.dumps({"pending": True})
        return json.dumps({"error": f"RawPlugin has no tool named {tool!r}."})

    async def finish_slow(self, call_id: str, seconds: float) -> None:
        cancelled = self.cancelled[call_id]
        with anyio.move_on_after(seconds):
            await cancelled.wait()
        del self.cancelled[call_id]
        try:
            if cancelled.is_set():
                say(f"{NAME}: cancelled ({call_id})")
                reply = await self.host("FailCall", call_id, "Cancelled.")
            else:
                reply = await self.host("CompleteCall", call_id, json.dumps({"waited": seconds}))
        except IpcError as exc:  # XIV MCP went away meanwhile: nobody waits for this call any more
            say(f"{NAME}: could not finish {call_id}: {exc}")
            return
        if not reply.get("ok"):
            said = reply.get("error")
        else:  # {"accepted": false}: the call had already been completed or failed
            said = "accepted" if reply.get("accepted") else "not accepted (the call had already ended)"
        say(f"{NAME}: finished {call_id}: {said}")

    def cancel(self, call_id: str) -> None:
        event = self.cancelled.get(call_id)
        if event is not None:
            event.set()

    def disposing(self, *_: object) -> None:
        for event in self.cancelled.values():
            event.set()


def main() -> None:
    args = parse_args("raw_gates")

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi, anyio.create_task_group() as tg:
            plugin = RawPlugin(pi, tg)
            # callers: only XIV MCP may invoke or cancel; any other process is refused, nothing runs.
            pi.get_ipc_provider(f"{NAME}.XivMcp.Invoke", params=(str, str, str), returns=str).register_func(
                plugin.invoke, callers=("XivMcp",)
            )
            pi.get_ipc_provider(f"{NAME}.XivMcp.Cancel", params=(str,)).register_action(
                plugin.cancel, callers=("XivMcp",)
            )
            pi.get_ipc_subscriber("XivMcp.Ready").subscribe(plugin.register)
            pi.get_ipc_subscriber("XivMcp.Disposing").subscribe(plugin.disposing)
            if pi.get_ipc_subscriber("XivMcp.IsReady").has_function():
                tg.start_soon(plugin.register)
            say(f"{NAME}: connected to {pi.endpoint}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
