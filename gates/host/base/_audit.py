"""The audit log: every call, decision, approval, registration and suspension, one JSON object a line (T2, A4).

The file is ``DATA_DIR/audit.jsonl`` (mode 0600) and only ever appended to. Each line is written
with a single ``write`` on a file opened with ``O_APPEND``, so it is in the operating system at
once. The player's decisions are ``fsync``-ed before :meth:`AuditLog.record` returns; what plugins
and calls cause (calls, registrations, approval requests) reaches the disk by group commit within
`BATCH_SECONDS`, so no peer makes the host wait for the disk once per event (B7). A crash can
still leave a torn last line; :meth:`AuditLog.tail` skips lines that do not decode, and the next
entry after a restart starts on a fresh line.

Entries are written on the event loop only (see `Host`); the one other thread is the group
commit's syncer, which only fsyncs the file, under `_sync_lock`.

The log is bounded (B7): past `max_bytes` the file is rotated to ``audit.jsonl.1`` (the older
ones shift to ``.2``, ``.3``, …) and `keep` rotated files are kept; :meth:`AuditLog.tail` reads
across them. What the player decided (consent, settings, answers to approvals) and suspensions
are never rotated out: when the oldest file goes, its lines of those kinds are first appended to
``audit.player.jsonl``, which grows only as fast as the player acts. No plugin can flush the
history either: the lines it causes through the host's gates (registrations, dependencies,
approval requests) have a budget a minute on the host's clock (`AuditBudget`); the lines past it
are counted and summarised in one line per kind when the minute ends ("MyPlugin: 812 more
DeclareDependencies calls in the last minute", `details.more` the count).

A line looks like::

    {"time":"2025-01-02T03:04:05.678Z","kind":"call","plugin":"MyPlugin","tool":"myplugin_buy",
     "details":{"decision":"allowed","outcome":"ok"}}
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

import msgspec

from gates.datadir import owner_only_file
from gates.player import AuditLine

from ._audit_budget import LINES_PER_MINUTE, AuditBudget
from ._clock import Clock, SystemClock
from ._listeners import Listeners

__all__ = [
    "AUDIT_FILENAME",
    "KEEP",
    "KEPT_FILENAME",
    "MAX_BYTES",
    "AuditEntry",
    "AuditKind",
    "AuditLog",
    "utc_stamp",
]

AUDIT_FILENAME: Final = "audit.jsonl"
KEPT_FILENAME: Final = "audit.player.jsonl"
"""The player's decisions and the suspensions of rotated-out files: never rotated."""
_BLOCK: Final = 64 * 1024


class AuditKind(StrEnum):
    """What an audit line records."""

    CALL = "call"
    DECISION = "decision"
    APPROVAL = "approval"
    REGISTRATION = "registration"
    CONSENT = "consent"
    SUSPENSION = "suspension"
    SETTING = "setting"
    DEPENDENCIES = "dependencies"


class AuditEntry(AuditLine, omit_defaults=True):
    """One line of the log, as the player reads it (`gates.player.AuditLine`: its fields are defined
    once), written without the fields at their defaults. ``kind`` is an :class:`AuditKind` value."""

    def line(self) -> AuditLine:
        """The entry as the player's `audit` sends it: every field, defaults included."""
        return AuditLine(**msgspec.structs.asdict(self))


def utc_stamp(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a ``Z``: ``2025-01-02T03:04:05.678Z``."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _system_now() -> datetime:
    return datetime.now(UTC)


_encoder: Final = msgspec.json.Encoder()
_decoder: Final = msgspec.json.Decoder(AuditEntry)

BATCH_SECONDS: Final = 0.05
"""How long a batched line may wait for its fsync (see `AuditLog.record`)."""
MAX_BYTES: Final = 16 * 1024 * 1024
"""The size past which the log is rotated."""
KEEP: Final = 3
"""How many rotated files (``audit.jsonl.1`` …) are kept."""
_AT_ONCE: Final = frozenset({AuditKind.CONSENT, AuditKind.SETTING, AuditKind.SUSPENSION})
"""What the player decides (and suspensions): on disk before `record` returns, never rotated out."""
_BUDGETED: Final = frozenset({AuditKind.REGISTRATION, AuditKind.DEPENDENCIES, AuditKind.APPROVAL})
"""What a plugin causes by calling the host's gates, as often as it likes: lines on its budget.

Calls and their decisions are not: the assistant or a job makes them, within the in-flight limits,
and they are what `xivmcp check` and the kit judge a plugin by. A line written with `sync` (the
player's answer to an approval) is the player's, and never budgeted either."""


_MAYBE_PLAYERS: Final = tuple(f'"kind":"{kind}"'.encode() for kind in (*_AT_ONCE, AuditKind.APPROVAL))
"""What a line that may be the player's holds: only those lines are decoded when a file goes."""


def _players(entry: AuditEntry) -> bool:
    """Whether a line is the player's decision or a suspension: kept when its file is rotated out."""
    return entry.kind in _AT_ONCE or (entry.kind == AuditKind.APPROVAL and "answer" in entry.details)


class AuditLog:
    """Appends entries to a JSONL file and reads the most recent back; used on the event loop."""

    def __init__(
        self,
        path: str | Path,
        *,
        wall_clock: Callable[[], datetime] = _system_now,
        fsync: bool = True,
        max_bytes: int = MAX_BYTES,
        keep: int = KEEP,
        clock: Clock | None = None,
        lines_per_minute: int = LINES_PER_MINUTE,
    ) -> None:
        """`clock` (the host's) measures each plugin's minute of `lines_per_minute` lines."""
        self.path = Path(path)
        self.kept_path = self.path.with_name(KEPT_FILENAME)
        self._clock: Clock = clock or SystemClock()
        self._budget = AuditBudget(lines_per_minute)
        self._wall_clock = wall_clock
        self._fsync = fsync
        self._max_bytes = max_bytes
        self._keep = keep
        self._sync_lock = threading.Lock()
        """The one lock, because the syncer is a thread of its own: held by its fsync, and by
        whatever closes or replaces the file (`close`, rotation), so the file is not closed
        under an fsync. Writing a line does not take it: calls go on while the disk syncs."""
        self._listeners: Listeners[AuditEntry] = Listeners("audit line")
        self._fd = self._open()
        self._start_on_fresh_line()
        self._size = os.fstat(self._fd).st_size
        self._unsynced = threading.Event()
        self._syncer: threading.Thread | None = None
        if fsync:
            self._syncer = threading.Thread(target=self._sync_soon, name="xivmcp-audit-fsync", daemon=True)
            self._syncer.start()

    def _open(self) -> int:
        owner_only_file(self.path)  # a log written by an older version may be world-readable
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def _rotate(self) -> None:
        """Called with `_sync_lock` held: audit.jsonl becomes .1, .1 becomes .2, …; the oldest goes."""
        if self._fsync:
            os.fsync(self._fd)
        os.close(self._fd)
        oldest = self.rotated(self._keep) if self._keep > 0 else self.path
        self._keep_players_lines(oldest)
        oldest.unlink(missing_ok=True)
        for index in range(self._keep - 1, 0, -1):
            older = self.rotated(index)
            if older.exists():
                older.replace(self.rotated(index + 1))
        if self._keep > 0:
            self.path.replace(self.rotated(1))
        else:
            self.path.unlink(missing_ok=True)
        self._fd = self._open()
        self._size = 0

    def _keep_players_lines(self, leaving: Path) -> None:
        """Append the player's decisions and the suspensions of `leaving` (about to go) to the kept file."""
        kept: list[bytes] = []
        try:
            with leaving.open("rb") as f:
                for raw in f:
                    if not any(marker in raw for marker in _MAYBE_PLAYERS):
                        continue
                    entry = _parse(raw)
                    if entry is not None and _players(entry):
                        kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
        except FileNotFoundError:
            return
        if not kept:
            return
        owner_only_file(self.kept_path)
        fd = os.open(self.kept_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, b"".join(kept))
            if self._fsync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def rotated(self, index: int) -> Path:
        """The path of the `index`-th rotated file (1 is the newest)."""
        return self.path.with_name(f"{self.path.name}.{index}")

    @classmethod
    def in_dir(cls, data_dir: str | Path, **options: Any) -> AuditLog:
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory / AUDIT_FILENAME, **options)

    def close(self) -> None:
        if self._fd >= 0:
            self.summarise_due(every=True)
        with self._sync_lock:
            if self._fd >= 0:
                if self._fsync:
                    os.fsync(self._fd)
                os.close(self._fd)
                self._fd = -1
        self._unsynced.set()  # wakes the syncer, which sees the log closed and ends
        if self._syncer is not None:
            self._syncer.join(5)

    def _sync_soon(self) -> None:
        """Group commit for the frequent lines: one fsync covers every call line of the last moment."""
        while True:
            self._unsynced.wait()
            time.sleep(BATCH_SECONDS)  # gathers the lines of concurrent calls into one fsync
            with self._sync_lock:  # not `close` meanwhile; writers go on: they do not take it
                self._unsynced.clear()  # a line written from now on sets it again
                if self._fd < 0:
                    return
                os.fsync(self._fd)

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def on_record(self, callback: Callable[[AuditEntry], None]) -> Callable[[], None]:
        """Calls ``callback`` with each new entry after it is on disk; returns an unsubscribe function."""
        return self._listeners.add(callback)

    def record(
        self,
        kind: AuditKind,
        plugin: str | None = None,
        tool: str | None = None,
        *,
        flagged: bool = False,
        details: Mapping[str, Any] | None = None,
        sync: bool | None = None,
    ) -> AuditEntry | None:
        """Appends one entry and returns it (None when its plugin is past its budget: it is counted).

        The line is in the operating system at once (our process may crash; the line stays).
        With `sync` (default: for consent, settings and suspensions, what the player decides) it
        is on disk before this returns; otherwise it reaches the disk within `BATCH_SECONDS`, with
        every other line of that moment in one fsync, so no call or plugin waits for the disk.
        """
        if plugin is not None and kind in _BUDGETED and not sync:
            now = self._clock.now()
            self._summarise(now, plugin)
            if not self._budget.admit(plugin, kind.value, now):
                return None
        return self._write(kind, plugin, tool, flagged=flagged, details=details, sync=sync)

    def summarise_due(self, *, every: bool = False) -> None:
        """Write the summary of each plugin's minute that has ended (`every`: of every minute, as
        the log closes). The host calls it with its other deadlines."""
        self._summarise(float("inf") if every else self._clock.now())

    def _summarise(self, now: float, plugin: str | None = None) -> None:
        for skipped in self._budget.due(now, plugin):
            details = {"summary": skipped.sentence(), "more": skipped.count}
            self._write(AuditKind(skipped.kind), skipped.plugin, None, flagged=False, details=details, sync=None)

    def _write(
        self,
        kind: AuditKind,
        plugin: str | None,
        tool: str | None,
        *,
        flagged: bool,
        details: Mapping[str, Any] | None,
        sync: bool | None,
    ) -> AuditEntry:
        entry = AuditEntry(
            time=utc_stamp(self._wall_clock()),
            kind=kind.value,
            plugin=plugin,
            tool=tool,
            flagged=flagged,
            details=dict(details or {}),
        )
        line = _encoder.encode(entry) + b"\n"
        at_once = kind in _AT_ONCE if sync is None else sync
        if self._size + len(line) > self._max_bytes and self._size > 0:
            with self._sync_lock:
                if self._fd >= 0 and self._size + len(line) > self._max_bytes:
                    self._rotate()
        if self._fd < 0:
            raise ValueError(f"The audit log {self.path} is closed.")
        os.write(self._fd, line)
        self._size += len(line)
        if self._fsync:
            if at_once:
                os.fsync(self._fd)
            else:
                self._unsynced.set()
        self._listeners.emit(entry)
        return entry

    def tail(self, n: int = 100, plugin: str | None = None) -> list[AuditEntry]:
        """The last ``n`` entries (of one plugin, if given), oldest first; lines that don't decode are skipped."""
        newest_first: list[AuditEntry] = []
        for path in (self.path, *(self.rotated(i) for i in range(1, self._keep + 1)), self.kept_path):
            if len(newest_first) >= n:
                break
            try:
                self._tail_of(path, n, plugin, newest_first)
            except FileNotFoundError:
                continue  # rotated meanwhile, or never there
        newest_first.reverse()
        return newest_first

    @staticmethod
    def _tail_of(path: Path, n: int, plugin: str | None, newest_first: list[AuditEntry]) -> None:
        """Add `path`'s entries to `newest_first`, newest first, until it holds `n`."""
        with path.open("rb") as f:
            position = f.seek(0, os.SEEK_END)
            carry = b""
            while position > 0 and len(newest_first) < n:
                step = min(_BLOCK, position)
                position -= step
                f.seek(position)
                lines = (f.read(step) + carry).split(b"\n")
                carry = lines[0] if position > 0 else b""
                complete = lines[1:] if position > 0 else lines
                for raw in reversed(complete):
                    entry = _parse(raw)
                    if entry is not None and (plugin is None or entry.plugin == plugin):
                        newest_first.append(entry)
                        if len(newest_first) >= n:
                            return

    def _start_on_fresh_line(self) -> None:
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with self.path.open("rb") as f:
            f.seek(size - 1)
            last = f.read(1)
        if last != b"\n":
            os.write(self._fd, b"\n")
            if self._fsync:
                os.fsync(self._fd)


def _parse(raw: bytes) -> AuditEntry | None:
    if not raw.strip():
        return None
    try:
        return _decoder.decode(raw)
    except msgspec.DecodeError:
        return None
