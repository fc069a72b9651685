"""The bus: the plugin framework's IPC call gates, carried between processes over ZeroMQ.

This package moves named gates and opaque JSON payloads. It knows no tool, capability or
MCP word: those live in `gates`, which uses only the API exported here.
"""

from ._config import DEFAULT_ENDPOINT, ENV_BUS, BrokerConfig, check_bind_endpoint
from ._errors import (
    IpcDisconnectedError,
    IpcError,
    IpcHandlerError,
    IpcLengthMismatchError,
    IpcNotReadyError,
    IpcPeerLeftError,
    IpcRefusedError,
    IpcTypeMismatchError,
    IpcValueNullError,
)
from ._gate import CallGateProvider, CallGateSubscriber
from ._keys import CurveClient, CurveServer, add_client, note_bus, noted_bus_key
from ._peer import (
    PluginInterface,
    connect,
    resolve_endpoint,
)
from ._peer_link import current_caller
from ._run import loop_options, run_main
from ._server import Broker
from ._wire import BrokerStats, GateInfo, SlotInfo

__all__ = [
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
