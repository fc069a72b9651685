"""The `broker` package's boundaries: what it exports, and what it does not know."""

from __future__ import annotations

import ast
import subprocess
import sys
import types
from pathlib import Path

import pytest

import broker

BROKER_DIR = Path(broker.__file__).parent


def test_importing_broker_pulls_in_neither_gates_nor_mcp() -> None:
    code = (
        "import sys, broker\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('gates', 'mcp', 'xivmcp')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True)
    assert done.stdout == "[]\n"


def test_all_is_exactly_what_broker_exports() -> None:
    assert len(broker.__all__) == len(set(broker.__all__))
    public = {
        name
        for name, value in vars(broker).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert set(broker.__all__) == public
    for name in broker.__all__:
        value = getattr(broker, name)
        module = getattr(value, "__module__", "broker")
        assert module.startswith("broker"), f"{name} comes from {module}"


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from broker import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(broker.__all__)


def test_only_the_transport_module_imports_zmq() -> None:
    importers = []
    for path in sorted(BROKER_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(n == "zmq" or n.startswith("zmq.") for n in names):
                importers.append(path.name)
    assert sorted(set(importers)) == ["_transport.py"]


def test_all_lists_the_public_api_by_name() -> None:
    assert sorted(broker.__all__) == sorted(
        [
            "DEFAULT_ENDPOINT",
            "ENV_BUS",
            "Broker",
            "BrokerConfig",
            "BrokerStats",
            "CallGateProvider",
            "CallGateSubscriber",
            "CurveClient",
            "CurveServer",
            "GateInfo",
            "IpcDisconnectedError",
            "IpcError",
            "IpcHandlerError",
            "IpcLengthMismatchError",
            "IpcNotReadyError",
            "IpcPeerLeftError",
            "IpcRefusedError",
            "IpcTypeMismatchError",
            "IpcValueNullError",
            "PluginInterface",
            "SlotInfo",
            "add_client",
            "check_bind_endpoint",
            "connect",
            "current_caller",
            "loop_options",
            "note_bus",
            "noted_bus_key",
            "resolve_endpoint",
            "run_main",
        ]
    )


def test_loop_options_ask_for_a_selector_loop_on_windows_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    monkeypatch.setattr(sys, "platform", "win32")
    assert broker.loop_options() == {"loop_factory": asyncio.SelectorEventLoop}
    monkeypatch.setattr(sys, "platform", "linux")
    assert broker.loop_options() == {}


def test_errors_form_one_tree_under_ipc_error() -> None:
    errors = [getattr(broker, n) for n in broker.__all__ if n.startswith("Ipc")]
    assert len(errors) == 9
    assert all(issubclass(e, broker.IpcError) for e in errors)
