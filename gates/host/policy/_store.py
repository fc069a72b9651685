"""The policy database: the player's decisions per plugin, kept in SQLite in the data directory.

All SQL of the host lives here. The file is ``DATA_DIR/xivmcp.db`` in WAL mode with
``synchronous=FULL``, and every :meth:`PolicyDatabase.save` is one transaction committed before it
returns, so a decision the host has acknowledged survives a crash or ``kill -9``.

The schema is versioned with ``PRAGMA user_version``; :data:`SCHEMA_VERSION` is the version this
code writes. An older file is migrated forward on open; a newer one is refused rather than
misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Final

from gates.contract import Mode

from ..base._errors import StoreError
from ._installed import InstalledPlugin, Source
from ._modules import Access, ModuleSettings
from ._records import PluginRecord

__all__ = ["DB_FILENAME", "SCHEMA_VERSION", "PolicyDatabase"]

DB_FILENAME: Final = "xivmcp.db"
SCHEMA_VERSION: Final = 3

_SCHEMA_V1: Final = """
CREATE TABLE plugins (
    owner            TEXT PRIMARY KEY,
    enabled          INTEGER NOT NULL,
    reviewed         INTEGER NOT NULL,
    awaiting_consent INTEGER NOT NULL,
    suspended        INTEGER NOT NULL,
    suspend_reason   TEXT
);
CREATE TABLE consented_tools (
    owner TEXT NOT NULL REFERENCES plugins(owner) ON DELETE CASCADE,
    tool  TEXT NOT NULL,
    PRIMARY KEY (owner, tool)
);
CREATE TABLE consented_capabilities (
    owner      TEXT NOT NULL,
    tool       TEXT NOT NULL,
    capability TEXT NOT NULL,
    PRIMARY KEY (owner, tool, capability),
    FOREIGN KEY (owner, tool) REFERENCES consented_tools(owner, tool) ON DELETE CASCADE
);
CREATE TABLE capability_modes (
    owner      TEXT NOT NULL REFERENCES plugins(owner) ON DELETE CASCADE,
    capability TEXT NOT NULL,
    mode       TEXT NOT NULL,
    PRIMARY KEY (owner, capability)
);
CREATE TABLE tool_modes (
    owner TEXT NOT NULL REFERENCES plugins(owner) ON DELETE CASCADE,
    tool  TEXT NOT NULL,
    mode  TEXT NOT NULL,
    PRIMARY KEY (owner, tool)
);
"""


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Runs statements one by one, inside the caller's transaction (``executescript`` would commit it)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


_SCHEMA_V2: Final = """
CREATE TABLE module_modes (
    module TEXT NOT NULL,
    access TEXT NOT NULL,
    mode   TEXT NOT NULL,
    PRIMARY KEY (module, access)
);
CREATE TABLE modules_off (
    module TEXT PRIMARY KEY
);
CREATE TABLE core_tool_modes (
    tool TEXT PRIMARY KEY,
    mode TEXT NOT NULL
)
"""
"""Version 2: the player's settings for XIV MCP's own tools (the modules, `_modules.py` beside this)."""


_SCHEMA_V3: Final = """
CREATE TABLE installed (
    internal_name TEXT PRIMARY KEY COLLATE NOCASE,
    name          TEXT,
    version       TEXT,
    repo          TEXT,
    source        TEXT NOT NULL
)
"""
"""Version 3: the plugins installed as Dalamud would list them (`_installed.py` beside this)."""


def _create_v1(db: sqlite3.Connection) -> None:
    _run_script(db, _SCHEMA_V1)


def _add_modules_v2(db: sqlite3.Connection) -> None:
    _run_script(db, _SCHEMA_V2)


def _add_installed_v3(db: sqlite3.Connection) -> None:
    _run_script(db, _SCHEMA_V3)


# Entry i takes the database from schema version i to i + 1.
_MIGRATIONS: Final[tuple[Callable[[sqlite3.Connection], None], ...]] = (
    _create_v1,
    _add_modules_v2,
    _add_installed_v3,
)


class PolicyDatabase:
    """A :class:`~gates.host.policy._records.PolicyStore` on SQLite, used on the event loop only
    (see `Host`): each load or save runs whole, with no lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"Can't open the policy database {path}: {exc}") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except (sqlite3.Error, StoreError) as exc:
            self._db.close()
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"Can't open the policy database {path}: {exc}") from exc

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> PolicyDatabase:
        """Opens (creating if needed) ``data_dir/xivmcp.db``."""
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory / DB_FILENAME)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> PolicyDatabase:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def _migrate(self) -> None:
        version = self.schema_version
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"The policy database {self.path} has schema version {version}, newer than this "
                f"XIV MCP understands ({SCHEMA_VERSION}). Use a newer xivmcp, or another data directory."
            )
        for target in range(version, SCHEMA_VERSION):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                _MIGRATIONS[target](self._db)
                self._db.execute(f"PRAGMA user_version = {target + 1}")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # ------------------------------------------------------------------ PolicyStore

    def load(self) -> dict[str, PluginRecord]:
        """Every stored record, by owner."""
        try:
            return self._load()
        except (sqlite3.Error, ValueError, KeyError) as exc:
            raise StoreError(f"Can't read the policy database {self.path}: {exc}") from exc

    def save(self, owner: str, record: PluginRecord) -> None:
        """Replaces the owner's record in one committed transaction."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._write(owner, record)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"Can't save {owner}'s settings to {self.path}: {exc}") from exc

    def _load(self) -> dict[str, PluginRecord]:
        records: dict[str, PluginRecord] = {}
        rows = self._db.execute(
            "SELECT owner, enabled, reviewed, awaiting_consent, suspended, suspend_reason FROM plugins"
        )
        for owner, enabled, reviewed, awaiting, suspended, reason in rows:
            records[owner] = PluginRecord(
                enabled=bool(enabled),
                reviewed=bool(reviewed),
                awaiting_consent=bool(awaiting),
                suspended=bool(suspended),
                suspend_reason=reason,
            )
        consented: dict[str, dict[str, set[str]]] = {}
        for owner, tool in self._db.execute("SELECT owner, tool FROM consented_tools"):
            consented.setdefault(owner, {})[tool] = set()
        for owner, tool, capability in self._db.execute("SELECT owner, tool, capability FROM consented_capabilities"):
            consented[owner][tool].add(capability)
        for owner, tools in consented.items():
            records[owner].consented = {tool: frozenset(caps) for tool, caps in tools.items()}
        for owner, capability, mode in self._db.execute("SELECT owner, capability, mode FROM capability_modes"):
            records[owner].capability_modes[capability] = Mode(mode)
        for owner, tool, mode in self._db.execute("SELECT owner, tool, mode FROM tool_modes"):
            records[owner].tool_modes[tool] = Mode(mode)
        return records

    def _write(self, owner: str, record: PluginRecord) -> None:
        db = self._db
        db.execute("DELETE FROM plugins WHERE owner = ?", (owner,))
        db.execute(
            "INSERT INTO plugins (owner, enabled, reviewed, awaiting_consent, suspended, suspend_reason) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                owner,
                record.enabled,
                record.reviewed,
                record.awaiting_consent,
                record.suspended,
                record.suspend_reason,
            ),
        )
        db.executemany(
            "INSERT INTO consented_tools (owner, tool) VALUES (?, ?)",
            [(owner, tool) for tool in record.consented],
        )
        db.executemany(
            "INSERT INTO consented_capabilities (owner, tool, capability) VALUES (?, ?, ?)",
            [(owner, tool, cap) for tool, caps in record.consented.items() for cap in sorted(caps)],
        )
        db.executemany(
            "INSERT INTO capability_modes (owner, capability, mode) VALUES (?, ?, ?)",
            [(owner, cap, mode.value) for cap, mode in record.capability_modes.items()],
        )
        db.executemany(
            "INSERT INTO tool_modes (owner, tool, mode) VALUES (?, ?, ?)",
            [(owner, tool, mode.value) for tool, mode in record.tool_modes.items()],
        )

    # ------------------------------------------------------------------ ModuleStore

    def load_module_settings(self) -> ModuleSettings:
        try:
            settings = ModuleSettings()
            for module, access, mode in self._db.execute("SELECT module, access, mode FROM module_modes"):
                settings.modes[(module, Access(access))] = Mode(mode)
            settings.off = {module for (module,) in self._db.execute("SELECT module FROM modules_off")}
            for tool, mode in self._db.execute("SELECT tool, mode FROM core_tool_modes"):
                settings.tools[tool] = Mode(mode)
            return settings
        except (sqlite3.Error, ValueError) as exc:
            raise StoreError(f"Can't read the module settings from {self.path}: {exc}") from exc

    def save_module_settings(self, settings: ModuleSettings) -> None:
        """Replaces the module settings in one committed transaction."""
        try:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM module_modes")
                db.execute("DELETE FROM modules_off")
                db.execute("DELETE FROM core_tool_modes")
                db.executemany(
                    "INSERT INTO module_modes (module, access, mode) VALUES (?, ?, ?)",
                    [(m, a.value, mode.value) for (m, a), mode in settings.modes.items()],
                )
                db.executemany("INSERT INTO modules_off (module) VALUES (?)", [(m,) for m in sorted(settings.off)])
                db.executemany(
                    "INSERT INTO core_tool_modes (tool, mode) VALUES (?, ?)",
                    [(t, mode.value) for t, mode in settings.tools.items()],
                )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"Can't save the module settings to {self.path}: {exc}") from exc

    # ------------------------------------------------------------------ InstalledStore

    def load_installed(self) -> list[InstalledPlugin]:
        try:
            rows = self._db.execute("SELECT internal_name, name, version, repo, source FROM installed")
            return [InstalledPlugin(i, name, version, repo, Source(source)) for i, name, version, repo, source in rows]
        except (sqlite3.Error, ValueError) as exc:
            raise StoreError(f"Can't read the installed plugins from {self.path}: {exc}") from exc

    def save_installed(self, plugin: InstalledPlugin) -> None:
        """Adds or replaces one installed plugin; committed before it returns."""
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO installed (internal_name, name, version, repo, source) VALUES (?, ?, ?, ?, ?)",
                (plugin.internal_name, plugin.name, plugin.version, plugin.repo, plugin.source.value),
            )
        except sqlite3.Error as exc:
            raise StoreError(f"Can't save the installed plugin {plugin.internal_name} to {self.path}: {exc}") from exc

    def delete_installed(self, internal_name: str) -> None:
        try:
            self._db.execute("DELETE FROM installed WHERE internal_name = ?", (internal_name,))
        except sqlite3.Error as exc:
            raise StoreError(f"Can't remove the installed plugin {internal_name} from {self.path}: {exc}") from exc
