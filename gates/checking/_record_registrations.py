"""Runs a plugin in this process with each of its `XivMcp.RegisterTool` calls written down, for `xivmcp check`.

    python .../gates/checking/_record_registrations.py RECORD.jsonl -m pkg.mod ARGS...
    python .../gates/checking/_record_registrations.py RECORD.jsonl SCRIPT.py ARGS...

The host answers a refused definition to the plugin alone (``{"ok": false, "error": …}``) and
keeps no trace of it, so what the real host would refuse can only be seen from inside the
plugin's process. Every call a plugin makes goes through `broker.CallGateSubscriber.invoke_func`
(the kit's client and raw-gate plugins alike), so that one method is wrapped: each RegisterTool
call appends ``{"owner": …, "definition": …, "reply": …}`` to RECORD as one JSON line. Nothing else changes:
the plugin runs as ``python -m pkg.mod`` or ``python SCRIPT.py`` runs it (``__main__``, argv,
the import path). This file is run as a script so that the plugin's process does not import the
checker (hypothesis, the host) along with it.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import broker
from gates.contract import Gate

__all__ = ["main", "record_registrations"]

InvokeFunc = Callable[..., Coroutine[Any, Any, Any]]


def record_registrations(record: Path) -> None:
    """From now on, append each RegisterTool call of this process and its reply to `record`."""
    original: InvokeFunc = broker.CallGateSubscriber.invoke_func

    async def invoke_func(self: broker.CallGateSubscriber, *args: object) -> Any:
        reply = await original(self, *args)
        if self.name == Gate.REGISTER_TOOL and len(args) == 2 and isinstance(reply, str):
            line = json.dumps({"owner": str(args[0]), "definition": str(args[1]), "reply": reply})
            with record.open("a", encoding="utf-8") as out:
                out.write(line + "\n")
        return reply

    # setattr, since mypy refuses an assignment to a method (and this one is meant).
    setattr(broker.CallGateSubscriber, "invoke_func", invoke_func)  # noqa: B010


def main(argv: list[str]) -> None:
    if len(argv) < 3 or (argv[1] == "-m" and len(argv) < 4):
        sys.exit("usage: _record_registrations.py RECORD.jsonl (-m MODULE | SCRIPT.py) [ARGS...]")
    record_registrations(Path(argv[0]))
    if argv[1] == "-m":
        module, sys.argv = argv[2], [argv[2], *argv[3:]]
        sys.path[0] = os.getcwd()  # as `python -m` has it, in place of this file's folder
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        script = argv[1]
        sys.argv = [script, *argv[2:]]
        sys.path[0] = str(Path(script).resolve().parent)  # as `python SCRIPT.py` has it
        runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
