"""The exceptions of the contract, shared by the host and plugins.

Every refusal a host gate can make is a :class:`RefusedError`; the host turns it into
``{"ok": false, "error": str(exc)}``, so each message is a full sentence written for the plugin
developer who reads it: what was wrong, and what to send instead. The host adds its own
refusals under :class:`RefusedError` (``gates.host``: settings, dependencies, approvals, store).

::

    XivMcpError                     anything XIV MCP's code raises on purpose
    +-- RefusedError                a request the host refuses; the message is the reply's "error"
        +-- InvalidDocumentError    a JSON document that does not decode (syntax or types)
        +-- DefinitionError         a tool definition that breaks a rule of the contract
        +-- NameTakenError          a tool name that belongs to XIV MCP or to another plugin
        +-- UnknownCapabilityError  a capability id that is not in the catalog
        +-- HostReplyError          (plugin side) the host answered {"ok": false, "error": ...}
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "QUOTE_LIMIT",
    "DefinitionError",
    "HostReplyError",
    "InvalidDocumentError",
    "NameTakenError",
    "RefusedError",
    "UnknownCapabilityError",
    "XivMcpError",
    "quote",
]

QUOTE_LIMIT: Final = 80
"""How much of a value a message quotes: a gate may be sent half a megabyte in one string."""


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` in single quotes for a message: control characters escaped, cut after ``limit`` characters.

    Messages quote what the caller sent, but a reply must stay small whatever was sent (G2), so a
    long value is cut and its length said instead: ``'aaaa…' (500000 characters)``.
    """
    text = value if isinstance(value, str) else str(value)
    shown = text[:limit]
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
    if len(text) > limit:
        return f"'{escaped}…' ({len(text)} characters)"
    return f"'{escaped}'"


class XivMcpError(Exception):
    """The root of the host core's exceptions."""


class RefusedError(XivMcpError):
    """Raised when the host refuses a request; ``str(exc)`` is what the caller reads."""


class InvalidDocumentError(RefusedError):
    """Raised when a JSON document sent to a gate is not valid JSON or has the wrong shape."""


class DefinitionError(RefusedError):
    """Raised when a tool definition breaks a rule (name, description, schema, capabilities)."""


class NameTakenError(RefusedError):
    """Raised when a plugin registers a name that XIV MCP or another plugin owns."""

    def __init__(self, name: str, *, by_xivmcp: bool) -> None:
        self.name = name
        self.by_xivmcp = by_xivmcp
        if by_xivmcp:
            message = f"{quote(name)} is an XIV MCP tool; pick another name (prefix it with your plugin's name)."
        else:
            message = (
                f"{quote(name)} is already registered by another plugin; "
                "pick another name (prefix it with your plugin's name)."
            )
        super().__init__(message)


class UnknownCapabilityError(RefusedError):
    """Raised when a capability id is not one of the catalog's (see ``XivMcp.ListCapabilities``)."""

    def __init__(self, capability: str, valid: tuple[str, ...]) -> None:
        self.capability = capability
        super().__init__(f"Unknown capability {quote(capability)}. Valid: {', '.join(valid)}.")


class HostReplyError(RefusedError):
    """Raised on the plugin side when a host gate answered ``{"ok": false, "error": ...}``."""
