"""The job registry's rows in the store, written behind its back.

The registry queues a job's row and goes on; one task writes the queued
rows, the latest of each job only.  When the database cannot take them
(down, restarting, full), the rows wait and are tried again with a
growing delay, the failure logged once and the recovery once: the
registry's mailbox never waits for the database, and a job that failed
while the database was away is stored ``failed`` once it is back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import trio

from reelhouse.shutdown import bounded_shield
from reelhouse.storage import Store, StoreError
from reelhouse.storage.jobs import save_job

RETRY_FIRST_SECONDS = 0.5  # after a failed write, wait this long, doubling...
RETRY_MAX_SECONDS = 10.0  # ...up to this
FLUSH_TIMEOUT_SECONDS = 3.0  # the last writes at stop (never past the shutdown deadline)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SavedRow:
    job: Mapping[str, Any]  # Job JSON
    started_at_ms: int | None
    finished_at_ms: int | None


@dataclass(frozen=True, slots=True)
class _Queued:
    row: SavedRow
    on_saved: Callable[[], None]


class StoredRows:
    """Rows waiting to be written, by job id; :meth:`run` writes them."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._queued: dict[str, _Queued] = {}
        self._wake = trio.Event()
        self._failing = False

    def queue(self, job_id: str, row: SavedRow, on_saved: Callable[[], None]) -> None:
        """Write ``row`` soon (replacing a row of the job still waiting); ``on_saved`` once it is stored."""
        self._queued[job_id] = _Queued(row, on_saved)
        self._wake.set()

    async def run(self) -> None:
        """Write queued rows for ever (a task of the registry's nursery)."""
        delay = RETRY_FIRST_SECONDS
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            while self._queued:
                if await self._write_queued():
                    delay = RETRY_FIRST_SECONDS
                else:
                    await trio.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX_SECONDS)

    async def flush(self) -> None:
        """One last try at the waiting rows (bounded, shielded: called while stopping)."""
        with bounded_shield(FLUSH_TIMEOUT_SECONDS):
            await self._write_queued()

    async def _write_queued(self) -> bool:
        """Write what waits, oldest first; False when the store refused (the rest waits)."""
        for job_id, queued in list(self._queued.items()):
            row = queued.row
            try:
                await save_job(self._store, row.job, started_at_ms=row.started_at_ms, finished_at_ms=row.finished_at_ms)
            except StoreError as exc:
                self._note_failure(exc)
                return False
            if self._queued.get(job_id) is queued:  # not replaced while it was written
                del self._queued[job_id]
            queued.on_saved()
        if self._failing:
            self._failing = False
            log.warning("job states are stored again")
        return True

    def _note_failure(self, error: StoreError) -> None:
        if not self._failing:
            self._failing = True
            log.error("could not store job states (%s); they are kept and written once the store takes them", error)
