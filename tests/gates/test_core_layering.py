"""The host core is pure: none of its modules imports the bus, ZeroMQ or a networking module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GATES = Path(__file__).resolve().parents[2] / "gates"
CORE = [
    "_approvals.py",
    "_audit.py",
    "_clock.py",
    "_contract.py",
    "_decision.py",
    "_definition.py",
    "_dependencies.py",
    "_errors.py",
    "_policy.py",
    "_registry.py",
    "_requirements.py",
    "_store.py",
]
FORBIDDEN = {"zmq", "broker", "socket", "asyncio", "http", "urllib.request", "mcp"}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_no_bus_and_no_networking(module: str) -> None:
    imported = imported_modules(GATES / module)
    bad = {name for name in imported if name in FORBIDDEN or name.split(".")[0] in {"zmq", "broker", "mcp"}}
    assert bad == set(), f"{module} imports {sorted(bad)}"
