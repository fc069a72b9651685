"""What the host remembers about each third-party plugin, and whether a registration is news (G5, A6).

A :class:`PluginRecord` holds whether the player enabled the plugin, kept it disabled, whether its
registration grew since they consented, whether XIV MCP suspended it, the registration they
consented to (each tool with its capabilities), and their modes per capability and per tool.
The state the contract reports is derived from those flags, so lifting a suspension returns the
plugin to whatever the player had decided before::

    undecided --enable--> enabled --registration grows--> awaiting_consent --enable--> enabled
        |                   |  ^                                 |
        +--keep disabled--> kept_disabled <--disable / keep disabled-+
    any --suspend--> suspended --lift--> (the state before)

The player is asked again only when a registration *grows* (:func:`review_registration`): a tool
they did not consent to, or a capability none of the tools they consented to had (the plugin's
capabilities as a whole, as the real host's `RegistrationReview` counts them). Removing tools never
asks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from gates.contract import Mode, PluginState, Risk, ToolDefinition, acting_capabilities, find_capability

__all__ = [
    "PluginRecord",
    "PolicyStore",
    "Registration",
    "Review",
    "ReviewKind",
    "registration_digest",
    "registration_of",
    "review_registration",
]

Registration = Mapping[str, frozenset[str]]
"""A plugin's registration as the player sees it: each tool name with its acting capabilities."""


def registration_of(definitions: Iterable[ToolDefinition]) -> dict[str, frozenset[str]]:
    return {d.name: frozenset(acting_capabilities(d)) for d in definitions}


@dataclass
class PluginRecord:
    """What the host remembers about one plugin. ``state`` is derived, never stored."""

    enabled: bool = False
    reviewed: bool = False
    awaiting_consent: bool = False
    suspended: bool = False
    suspend_reason: str | None = None
    consented: dict[str, frozenset[str]] = field(default_factory=dict)
    capability_modes: dict[str, Mode] = field(default_factory=dict)
    tool_modes: dict[str, Mode] = field(default_factory=dict)

    @property
    def state(self) -> PluginState:
        if self.suspended:
            return PluginState.SUSPENDED
        if self.enabled:
            return PluginState.AWAITING_CONSENT if self.awaiting_consent else PluginState.ENABLED
        return PluginState.KEPT_DISABLED if self.reviewed else PluginState.UNDECIDED

    def copy(self) -> PluginRecord:
        return PluginRecord(
            enabled=self.enabled,
            reviewed=self.reviewed,
            awaiting_consent=self.awaiting_consent,
            suspended=self.suspended,
            suspend_reason=self.suspend_reason,
            consented=dict(self.consented),
            capability_modes=dict(self.capability_modes),
            tool_modes=dict(self.tool_modes),
        )


class PolicyStore(Protocol):
    """Where records are kept between runs (:class:`~gates.host.policy._store.PolicyDatabase`)."""

    def load(self) -> dict[str, PluginRecord]: ...

    def save(self, owner: str, record: PluginRecord) -> None: ...


class ReviewKind(StrEnum):
    NONE = "none"
    NEW_PLUGIN = "new_plugin"
    CHANGED = "changed"


@dataclass(frozen=True, slots=True)
class Review:
    """Whether a registration needs the player's decision, and what to show them (riskiest first)."""

    kind: ReviewKind
    new_tools: tuple[str, ...] = ()
    new_capabilities: tuple[str, ...] = ()

    @property
    def needs_decision(self) -> bool:
        return self.kind is not ReviewKind.NONE


_RISK_RANK = {Risk.LOW: 0, Risk.MEDIUM: 1, Risk.HIGH: 2, Risk.CRITICAL: 3}


def _riskiest_first(capabilities: Iterable[str]) -> tuple[str, ...]:
    def key(c: str) -> tuple[int, str]:
        cap = find_capability(c)
        return (-_RISK_RANK[cap.risk] if cap is not None else 1, c)

    return tuple(sorted(set(capabilities), key=key))


def registration_digest(registration: Registration) -> str:
    """A short fingerprint of a registration (its tools and their capabilities), shown to the
    player by `xivmcp plugins` and sent back with `enable` / `consent`: the player consents to
    exactly what they saw, never to what a plugin added in between."""
    canonical = json.dumps(sorted((tool, sorted(caps)) for tool, caps in registration.items()))
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def review_registration(record: PluginRecord, registration: Registration) -> Review:
    """Whether ``registration`` needs the player's decision, given what ``record`` consented to."""
    if not record.reviewed:
        everything = (c for tool_caps in registration.values() for c in tool_caps)
        return Review(ReviewKind.NEW_PLUGIN, tuple(registration), _riskiest_first(everything))
    known = {c for tool_caps in record.consented.values() for c in tool_caps}
    new_tools = tuple(t for t in registration if t not in record.consented)
    # Across the whole plugin, as the real host's RegistrationReview compares the declared
    # capabilities with the plugin's ReviewedCapabilities: a consented tool taking up a capability
    # another consented tool already had is nothing new to the player.
    new_caps = {c for caps in registration.values() for c in caps} - known
    if not new_tools and not new_caps:
        return Review(ReviewKind.NONE)
    return Review(ReviewKind.CHANGED, new_tools, _riskiest_first(new_caps))
