"""A plugin's manifest, as Dalamud knows an installed plugin: its display name, version and repository.

In the game Dalamud tells XIV MCP which plugins are installed, under which display name, at which
version and whether they are loaded; the real host uses that to word its messages ("My Farm's
tools aren't allowed yet") and to check dependencies (`plugin_missing`, `plugin_outdated`,
`plugin_not_loaded`, F2). Across processes nothing plays Dalamud's plugin list, so a process that
joins the bus declares its manifest to the host through a gate of this simulator's own,
`XivMcp.Simulator.DeclareManifest` (the plugin kit does it before it registers; a raw peer may),
and the player keeps a list of plugins installed but not running (`xivmcp installed`). The real
host has no such gate: a plugin ported to the game drops the call, and Dalamud reads its manifest.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

import msgspec

from ._codec import DocumentDecoder
from ._documents import Wire
from ._errors import InvalidDocumentError, quote

__all__ = [
    "MANIFEST_GATE",
    "OFFICIAL_REPO",
    "InstalledInfo",
    "ManifestReply",
    "PLUGIN_NAME",
    "PluginManifest",
    "check_manifest",
    "decode_manifest",
    "is_plugin_repo",
    "version_key",
]

MANIFEST_GATE: Final = "XivMcp.Simulator.DeclareManifest"
"""`DeclareManifest(owner, manifestJson)` -> `{"ok": true, "plugin": {…}}`: this simulator's own
gate (the real host reads Dalamud's plugin list instead)."""
OFFICIAL_REPO: Final = "official"
"""The repo of a plugin from Dalamud's main repository."""
PLUGIN_NAME: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""What a plugin's InternalName may be, as the real host's dependency parser checks it."""
_VERSION: Final = re.compile(r"\d+(?:\.\d+){1,3}")
_MAX_TEXT: Final = 200


class PluginManifest(msgspec.Struct, rename="camel", frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a plugin says of itself: ``{"name": "My Farm", "version": "1.2.0", "repo": "official"}``.

    Every field may be left out: the name is then the InternalName, the version unknown (a
    dependency's ``minVersion`` is then not checked), and the repo unknown."""

    name: str | None = None
    """The display name players see in the installer and in XIV MCP's messages."""
    version: str | None = None
    repo: str | None = None
    """The https URL of the plugin's repo.json, or "official"."""


class InstalledInfo(Wire, kw_only=True):
    """One installed plugin as XIV MCP knows it (`xivmcp installed`, DeclareManifest's reply)."""

    internal_name: str
    name: str
    """The display name (the InternalName when none was given)."""
    version: str | None = None
    repo: str | None = None
    loaded: bool = False
    """Its process is on the bus now."""


class ManifestReply(Wire, kw_only=True):
    plugin: InstalledInfo


_MANIFEST: Final = DocumentDecoder(
    PluginManifest, "plugin manifest", '{"name": "My Farm", "version": "1.2.0", "repo": "official"}'
)


def version_key(text: str) -> tuple[int, ...] | None:
    """``1.2`` and ``1.2.0.0`` compare equal; anything that isn't a dotted version is ``None``."""
    if not _VERSION.fullmatch(text.strip()):
        return None
    parts = [int(p) for p in text.strip().split(".")]
    return tuple(parts + [0] * (4 - len(parts)))


def is_plugin_repo(repo: str) -> bool:
    """An https URL with a host, or "official" (Dalamud's main repository)."""
    if repo == OFFICIAL_REPO:
        return True
    parts = urlsplit(repo)
    return parts.scheme == "https" and bool(parts.netloc)


def decode_manifest(text: str | bytes) -> PluginManifest:
    """Decodes and checks a manifest; each refusal says what to send instead."""
    return check_manifest(_MANIFEST.decode(text))


def check_manifest(manifest: PluginManifest) -> PluginManifest:
    """The manifest, if its name, version and repo are ones Dalamud would take; else `InvalidDocumentError`."""
    for field, value in (("name", manifest.name), ("version", manifest.version), ("repo", manifest.repo)):
        if value is not None and (not value.strip() or len(value) > _MAX_TEXT or not value.isprintable()):
            raise InvalidDocumentError(
                f"The manifest's {field!r} must be 1-{_MAX_TEXT} printable characters, not {quote(value[:40])}."
            )
    if manifest.version is not None and version_key(manifest.version) is None:
        raise InvalidDocumentError(f"The manifest's 'version' must be like \"1.2.0\", not {quote(manifest.version)}.")
    if manifest.repo is not None and not is_plugin_repo(manifest.repo):
        raise InvalidDocumentError(
            f"The manifest's 'repo' must be the https URL of the plugin's repo.json, or \"official\"; "
            f"not {quote(manifest.repo)}."
        )
    return manifest
