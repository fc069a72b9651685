"""The SQLite policy database (rules A6: the consented registration is persisted)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from gates.contract import Mode, PluginState, ToolDefinition
from gates.host import StoreError
from gates.host.policy._policy import Policies
from gates.host.policy._records import PluginRecord, ReviewKind, registration_of
from gates.host.policy._store import DB_FILENAME, SCHEMA_VERSION, PolicyDatabase


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def database(data_dir: Path) -> Iterator[PolicyDatabase]:
    with PolicyDatabase.in_dir(data_dir) as db:
        yield db


def full_record() -> PluginRecord:
    return PluginRecord(
        enabled=True,
        reviewed=True,
        awaiting_consent=True,
        suspended=True,
        suspend_reason="myplugin_buy: gil 1,000 → 800 (not declared)",
        consented={
            "myplugin_buy": frozenset({"move_character", "spend_gil"}),
            "myplugin_status": frozenset(),
        },
        capability_modes={"spend_gil": Mode.DENY, "game_ui": Mode.ALLOW},
        tool_modes={"myplugin_status": Mode.ASK},
    )


def test_in_dir_creates_the_database_file_with_the_current_schema(data_dir: Path, database: PolicyDatabase) -> None:
    assert (data_dir / DB_FILENAME).is_file()
    assert database.schema_version == SCHEMA_VERSION == 3


def test_the_database_is_in_wal_mode_with_full_synchronous_writes(data_dir: Path, database: PolicyDatabase) -> None:
    with sqlite3.connect(data_dir / DB_FILENAME) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert database._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a6_every_field_of_a_record_round_trips(database: PolicyDatabase) -> None:
    database.save("MyPlugin", full_record())
    database.save("Other", PluginRecord())
    loaded = database.load()
    assert loaded["MyPlugin"] == full_record()
    assert loaded["MyPlugin"].state is PluginState.SUSPENDED
    assert loaded["Other"] == PluginRecord()


def test_saving_replaces_the_previous_record_entirely(database: PolicyDatabase) -> None:
    database.save("MyPlugin", full_record())
    smaller = PluginRecord(enabled=True, reviewed=True, consented={"myplugin_status": frozenset()})
    database.save("MyPlugin", smaller)
    assert database.load() == {"MyPlugin": smaller}


def test_a_saved_record_is_committed_before_save_returns(data_dir: Path, database: PolicyDatabase) -> None:
    database.save("MyPlugin", full_record())
    with sqlite3.connect(data_dir / DB_FILENAME) as other:  # another connection, as after a crash
        rows = other.execute("SELECT owner, enabled, suspend_reason FROM plugins").fetchall()
    assert rows == [("MyPlugin", 1, "myplugin_buy: gil 1,000 → 800 (not declared)")]


def test_a_database_from_a_newer_version_is_refused(data_dir: Path) -> None:
    data_dir.mkdir()
    with sqlite3.connect(data_dir / DB_FILENAME) as newer:
        newer.execute("PRAGMA user_version = 99")
    newer.close()
    with pytest.raises(StoreError, match="schema version 99, newer than this XIV MCP understands"):
        PolicyDatabase.in_dir(data_dir)


def test_a_path_that_cannot_be_opened_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="Can't open the policy database"):
        PolicyDatabase(tmp_path / "missing" / "dir" / DB_FILENAME)


def test_a6_after_a_restart_the_same_registration_is_not_asked_again(data_dir: Path) -> None:
    buy = ToolDefinition(name="myplugin_buy", description="Buys.", capabilities=["read_game", "spend_gil"])
    with PolicyDatabase.in_dir(data_dir) as first_run:
        policies = Policies(first_run)
        policies.enable("MyPlugin", registration_of([buy]))
        policies.set_tool_mode("MyPlugin", "myplugin_buy", Mode.ALLOW)
    with PolicyDatabase.in_dir(data_dir) as second_run:
        restarted = Policies(second_run)
        assert restarted.on_registered("MyPlugin", registration_of([buy])).kind is ReviewKind.NONE
        assert restarted.state("MyPlugin") is PluginState.ENABLED
        assert restarted.tool_mode("MyPlugin", buy) is Mode.ALLOW
        grown = ToolDefinition(name="myplugin_buy", description="Buys.", capabilities=["spend_gil", "chat_send"])
        assert restarted.on_registered("MyPlugin", registration_of([grown])).kind is ReviewKind.CHANGED
    with PolicyDatabase.in_dir(data_dir) as third_run:
        assert Policies(third_run).state("MyPlugin") is PluginState.AWAITING_CONSENT


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_b8_a_secret_file_open_to_others_is_tightened_and_the_data_dir_made_owner_only(tmp_path: Path) -> None:
    from gates.datadir import owner_only_dir, secret

    key = tmp_path / "data" / "player.key"
    key.parent.mkdir(mode=0o755)
    key.write_text("kept")
    key.chmod(0o644)
    assert secret(key, "player key") == "kept"  # the same secret, now readable by this user only
    assert key.stat().st_mode & 0o777 == 0o600
    owner_only_dir(key.parent)
    assert key.parent.stat().st_mode & 0o777 == 0o700


def test_f2_installed_plugins_are_kept_across_restarts_and_a_database_of_version_2_is_migrated(data_dir: Path) -> None:
    from gates.contract import PluginManifest
    from gates.host.policy._installed import InstalledPlugin, InstalledPlugins, Source

    data_dir.mkdir()
    with sqlite3.connect(data_dir / DB_FILENAME) as old:  # a data dir of the version before installed plugins
        old.executescript("CREATE TABLE plugins (owner TEXT PRIMARY KEY); PRAGMA user_version = 2;")
    old.close()
    with PolicyDatabase.in_dir(data_dir) as first_run:
        installed = InstalledPlugins(first_run, lambda: {"MyFarm"})
        installed.declare("MyFarm", PluginManifest(name="My Farm", version="1.2.0", repo="official"))
        installed.add(InstalledPlugin("OtherPlugin", "Other Plugin", "2.0"))
    with PolicyDatabase.in_dir(data_dir) as second_run:
        assert second_run.schema_version == SCHEMA_VERSION
        installed = InstalledPlugins(second_run, lambda: set())
        farm, other = sorted(installed, key=lambda p: p.internal_name)
    assert farm == InstalledPlugin("MyFarm", "My Farm", "1.2.0", "official", Source.BUS)
    assert other == InstalledPlugin("OtherPlugin", "Other Plugin", "2.0", None, Source.PLAYER)
    assert installed.display_name("myfarm") == "My Farm" and not installed.is_loaded("MyFarm")
