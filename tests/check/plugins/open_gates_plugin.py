"""Open: a raw plugin that provides its Invoke and Cancel for every process, for `xivmcp check`.

    python tests/check/plugins/open_gates_plugin.py --bus tcp://127.0.0.1:PORT

One read-only tool, `open_echo`, and its gates provided without `callers=("XivMcp",)`: any
process on the bus can run its tool, which the check must warn about (S1).
"""

from __future__ import annotations

import json

import anyio

from broker import connect
from plugins_sample._run import parse_args, run, say

NAME = "Open"
ECHO = {"name": "open_echo", "description": "Echoes its arguments. Returns them as sent.", "readOnly": True}


def invoke(call_id: str, tool: str, args_json: str) -> str:
    if tool != "open_echo":
        return json.dumps({"error": f"Open has no tool named {tool!r}."})
    return json.dumps({"result": json.loads(args_json or "{}")})


def cancel(call_id: str) -> None:
    return None


def main() -> None:
    args = parse_args("open_gates_plugin")

    async def serve() -> None:
        async with connect(args.bus, NAME, curve=args.curve) as pi:
            pi.get_ipc_provider(f"{NAME}.XivMcp.Invoke", params=(str, str, str), returns=str).register_func(invoke)
            pi.get_ipc_provider(f"{NAME}.XivMcp.Cancel", params=(str,)).register_action(cancel)
            reply = await pi.get_ipc_subscriber("XivMcp.RegisterTool").invoke_func(NAME, json.dumps(ECHO))
            say(f"{NAME}: {reply}")
            await anyio.sleep_forever()

    run(serve)


if __name__ == "__main__":
    main()
