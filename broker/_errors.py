"""The broker's exceptions, named after the plugin framework's own IPC errors.

    IpcError                      anything that went wrong with a gate
    ├── IpcNotReadyError          the gate has no func/action registered (yet)
    ├── IpcLengthMismatchError    a call with the wrong number of arguments
    ├── IpcTypeMismatchError      an argument (or the result) of the wrong JSON type
    ├── IpcValueNullError         null for an argument that may not be null
    ├── IpcHandlerError           the provider's handler raised; carries its type name
    ├── IpcPeerLeftError          the provider left (or died) before it answered
    ├── IpcRefusedError           the broker refused: ownership, names, limits
    └── IpcDisconnectedError      this process is not connected to the bus

Each error travels over the bus as its class name and message, and is rebuilt on the
caller's side by `error_from_wire`.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "IpcDisconnectedError",
    "IpcError",
    "IpcHandlerError",
    "IpcLengthMismatchError",
    "IpcNotReadyError",
    "IpcPeerLeftError",
    "IpcRefusedError",
    "IpcTypeMismatchError",
    "IpcValueNullError",
    "error_from_wire",
]


class IpcError(Exception):
    """Base of every bus error. `str(err)` is a full sentence meant for a person."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IpcNotReadyError(IpcError):
    """Raised when a gate is invoked while nothing is registered in that slot."""

    @classmethod
    def for_gate(cls, gate: str, kind: str = "func") -> IpcNotReadyError:
        """The error for a call to `gate`'s `kind` ("func" or "action"), in the framework's words."""
        what = "method" if kind == "func" else "action"
        return cls(f"IPC {what} {gate} was not registered yet.")


class IpcLengthMismatchError(IpcError):
    """Raised when a call carries a different number of arguments than the gate declares."""


class IpcTypeMismatchError(IpcError):
    """Raised when an argument or a result has a JSON type the gate does not declare."""


class IpcValueNullError(IpcError):
    """Raised when null is passed for an argument that is not declared nullable."""


class IpcHandlerError(IpcError):
    """Raised on the caller's side when the provider's handler raised an exception.

    `type_name` is the class name of the provider's exception and `detail` its message;
    `str()` reads "TypeName: message".
    """

    def __init__(self, message: str, type_name: str = "Exception", detail: str = "") -> None:
        super().__init__(message)
        self.type_name = type_name
        self.detail = detail


class IpcPeerLeftError(IpcError):
    """Raised when the process providing a gate left or died during the call."""


class IpcRefusedError(IpcError):
    """Raised when the broker refuses a request: a gate outside the caller's prefix,
    a name that is taken or malformed, a payload over the limit, too many calls in flight;
    or when a provider refuses a caller its gate does not answer (`for_caller`)."""

    @classmethod
    def for_caller(cls, gate: str, kind: str, caller: str, callers: frozenset[str]) -> IpcRefusedError:
        """The error for `caller`, whom `gate` refuses because it answers only `callers`."""
        what = "method" if kind == "func" else "action"
        names = " or ".join(sorted(callers)) or "no process"
        return cls(
            f"IPC {what} {gate} answers only {names}; {caller} called it and nothing ran. Its provider "
            f"keeps it for {names}: call a gate it opens to every process instead."
        )


class IpcDisconnectedError(IpcError):
    """Raised when this process has lost (or never had) its connection to the broker."""


_BY_NAME: Final[dict[str, type[IpcError]]] = {
    cls.__name__: cls
    for cls in (
        IpcError,
        IpcNotReadyError,
        IpcLengthMismatchError,
        IpcTypeMismatchError,
        IpcValueNullError,
        IpcHandlerError,
        IpcPeerLeftError,
        IpcRefusedError,
        IpcDisconnectedError,
    )
}


def error_from_wire(kind: str, message: str, type_name: str = "", detail: str = "") -> IpcError:
    """Rebuild the error a peer or the broker reported; an unknown kind becomes `IpcError`."""
    cls = _BY_NAME.get(kind, IpcError)
    if cls is IpcHandlerError:
        return IpcHandlerError(message, type_name or "Exception", detail)
    return cls(message)
