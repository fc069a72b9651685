"""Run a `gates.plugin.Plugin` object of an importable module as a plugin process (the pytest plugin's).

    python -m gates.testing._launch MODULE ATTRIBUTE --bus tcp://127.0.0.1:37520

It is `plugin.run(bus=...)`, which prints the lines a test can wait for instead of guessing: once
XIV MCP has been sent every tool, "NAME: registered N tools", and for each definition it refused,
"NAME: XIV MCP refused a tool: MESSAGE". Ctrl-C (SIGINT, the kit's stop) leaves the bus at once.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gates.plugin import Plugin

__all__ = ["main", "registered_line"]


def registered_line(internal_name: str) -> str:
    """The start of the line `plugin.run()` prints once XIV MCP has been sent every tool."""
    return f"{internal_name}: registered "


def _plugin_of(module_name: str, attribute: str) -> Plugin:
    found = getattr(importlib.import_module(module_name), attribute, None)
    if not isinstance(found, Plugin):
        raise SystemExit(f"{module_name}.{attribute} is {type(found).__name__}, not a gates.plugin.Plugin.")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gates.testing._launch", description=__doc__)
    parser.add_argument("module", help="the module that holds the Plugin, importable as it is named")
    parser.add_argument("attribute", help="the Plugin's name in that module")
    parser.add_argument("--bus", required=True, help="the bus endpoint of the test's system")
    args = parser.parse_args(argv)
    # No broker, or the name taken by a live process: "NAME: why" and status 2. Ctrl-C: 0.
    _plugin_of(args.module, args.attribute).run(bus=args.bus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
