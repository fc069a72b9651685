"""Jobs that are never lost (J11): each job one JSON document in `DATA_DIR/jobs.db`, by group commit.

A job's document holds its steps with their results and errors, and the tail of its log. The
runner saves a job whenever it changes; saves are gathered and written by one task in one
transaction (SQLite in WAL mode, `synchronous=FULL`, off the event loop), so a thousand jobs
stepping at once cost one fsync per moment, not one each (B7). `durable()` waits until every
save made so far is on disk: the runner awaits it after a step's outcome, before the next step
starts, so an acknowledged outcome survives a crash. The schema is versioned like the policy
database's; a newer file is refused rather than misread.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import anyio
import anyio.to_thread
import msgspec

from gates.contract import JobInfo

from ..base._errors import StoreError

__all__ = ["JOBS_DB", "JobStore"]

JOBS_DB: Final = "jobs.db"
SCHEMA_VERSION: Final = 1
_SCHEMA: Final = "CREATE TABLE jobs (id TEXT PRIMARY KEY, finished TEXT, doc BLOB NOT NULL)"

_encode: Final = msgspec.json.Encoder().encode
_decode: Final = msgspec.json.Decoder(JobInfo).decode


class JobStore:
    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        """`fsync=False` (tests of the state machine only) leaves the syncing to the OS."""
        self.path = path
        self._lock = threading.Lock()
        """The connection's: `_write` runs in a worker thread (`anyio.to_thread`) while `load` and
        `close` run on the event loop, and the host closes the store before it cancels the writer,
        so a batch may still be in flight. The rest of the store is the loop's alone."""
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if fsync else 'OFF'}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"The jobs database {path} has schema version {version}, newer than this XIV MCP "
                    f"understands ({SCHEMA_VERSION}). Use a newer xivmcp, or another data directory."
                )
            if version == 0:
                self._db.execute(_SCHEMA)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            raise StoreError(f"Can't open the jobs database {path}: {exc}") from exc
        self._pending: dict[str, JobInfo | None] = {}
        """Documents to write (None: delete), the newest of each job only."""
        self._waiting: list[anyio.Event] = []
        """Who waits for the pending documents to be on disk."""
        self._in_flight: list[anyio.Event] | None = None
        """Who waits for the batch being written now."""
        self._wakeup = anyio.Event()
        self._closed = False

    @classmethod
    def in_dir(cls, data_dir: Path) -> JobStore:
        return cls(data_dir / JOBS_DB)

    def load(self) -> list[JobInfo]:
        """Every stored job (a document that does not decode is skipped, not fatal)."""
        with self._lock:
            rows = self._db.execute("SELECT doc FROM jobs").fetchall()
        jobs = []
        for (doc,) in rows:
            try:
                jobs.append(_decode(doc))
            except msgspec.DecodeError:
                continue
        return jobs

    def save(self, job: JobInfo) -> None:
        self._pending[job.id] = job
        self._wakeup.set()

    def drop(self, job_ids: Iterable[str]) -> None:
        for job_id in job_ids:
            self._pending[job_id] = None
        self._wakeup.set()

    async def durable(self) -> None:
        """Wait until every save made so far is on disk."""
        if self._pending:
            event = anyio.Event()
            self._waiting.append(event)
            self._wakeup.set()
        elif self._in_flight is not None:
            event = anyio.Event()
            self._in_flight.append(event)
        else:
            return
        await event.wait()

    async def run(self) -> None:
        """The writer: until cancelled, write what was saved, a batch at a time."""
        while True:
            await self._wakeup.wait()
            self._wakeup = anyio.Event()
            if not self._pending:
                continue
            batch, self._pending = self._pending, {}
            self._in_flight, self._waiting = self._waiting, []
            try:
                await anyio.to_thread.run_sync(self._write, batch)
            finally:
                waiting, self._in_flight = self._in_flight, None
                for event in waiting:
                    event.set()

    def _write(self, batch: dict[str, JobInfo | None]) -> None:
        rows = [(job_id, job.finished, _encode(job)) for job_id, job in batch.items() if job is not None]
        gone = [(job_id,) for job_id, job in batch.items() if job is None]
        with self._lock:
            if self._closed:
                return  # the host is stopping: `close` wrote what was pending
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("INSERT OR REPLACE INTO jobs (id, finished, doc) VALUES (?, ?, ?)", rows)
                self._db.executemany("DELETE FROM jobs WHERE id = ?", gone)
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"Can't save jobs to {self.path}: {exc}") from exc

    def close(self) -> None:
        """Write what is still pending (the host is stopping), then close."""
        if self._pending:
            batch, self._pending = self._pending, {}
            self._write(batch)
        with self._lock:
            self._closed = True
            self._db.close()
