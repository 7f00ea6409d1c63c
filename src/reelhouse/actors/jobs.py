"""JobRegistry: every background job's progress, and cancelling one.

Owners of work (a library's scans, a media-info read) tell the registry a
fresh :class:`JobSnapshot` whenever their job moves; the registry adds the
rates (``perMinute`` over the last 60 seconds, ``etaSeconds``), and keeps
finished jobs for a while. It never asks an owner: owners *tell* it, and a
library waiting on its mailbox while it waited on the library's would be
the ask cycle the design forbids. Cancelling a job is therefore routed:
the registry answers :class:`RouteCancel` with the owner and the message
that cancels the job, and the caller (the HTTP edge) asks the owner,
down the tree.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import trio

from reelhouse import errors
from reelhouse.jsonfields import put_present, put_time
from reelhouse.runtime import Actor, ActorRef, Ask
from reelhouse.storage import Store, StoreError, now_ms
from reelhouse.storage.jobs import FINAL_JOB_STATES, get_stored_job, list_stored_jobs

from .job_rows import SavedRow, StoredRows

RATE_WINDOW_SECONDS = 60.0
FINISHED_RETENTION_SECONDS = 3600.0
MAX_FINISHED_JOBS = 100
DEFAULT_STORED_RETENTION_SECONDS = 24 * 3600.0
# A running job's row is rewritten at most this often (its state changes
# are written at once): progress is for GET /jobs, which reads memory.
PERSIST_PROGRESS_EVERY_SECONDS = 5.0

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JobSnapshot:
    id: str
    kind: str
    title: str
    state: str  # running, paused, cancelling, succeeded, failed, cancelled
    cancellable: bool
    library_id: str | None = None
    subject: str | None = None
    current: str | None = None
    phase: str | None = None
    processed: int | None = None
    total: int | None = None
    errors: int | None = None
    changed: int | None = None
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    message: str | None = None
    mass_missing_paused: bool = False
    trigger: str | None = None
    unit: str | None = None
    progress_cached: int | None = None
    progress_no_upscale: int | None = None
    progress_no_poster: int | None = None
    progress_failed: int | None = None
    message_code: str | None = None
    message_params: Mapping[str, Any] | None = None
    related_job_id: str | None = None
    related_kind: str | None = None
    stop_reason: str | None = None
    stop_limit_bytes: int | None = None
    stop_used_bytes: int | None = None
    system: bool | None = None

    @property
    def finished(self) -> bool:
        return self.state in FINAL_JOB_STATES


@dataclass(frozen=True, slots=True)
class JobUpdate:
    """Tell: the job's latest state; ``cancel`` is asked of ``owner`` to cancel it."""

    job: JobSnapshot
    owner: ActorRef | None = None
    cancel: object | None = None


@dataclass(frozen=True, slots=True)
class ListJobs(Ask["list[dict[str, Any]]"]):
    """Ask: every running and recently finished job, as Job JSON, newest first."""


@dataclass(frozen=True, slots=True)
class RouteCancel(Ask["CancelRoute"]):
    """Ask: the :class:`CancelRoute` of a job; NotFound when absent, Conflict when not cancellable."""

    job_id: str


@dataclass(frozen=True, slots=True)
class CancelRoute:
    """Ask ``owner`` for ``cancel`` to cancel the job."""

    owner: ActorRef
    cancel: object


@dataclass(slots=True)
class _Entry:
    job: JobSnapshot
    owner: ActorRef | None
    cancel: object | None
    samples: collections.deque[tuple[float, int]] = field(default_factory=collections.deque)
    finished_at: float | None = None
    persisted_state: str | None = None
    persisted_at: float | None = None


class JobRegistry(Actor):
    """Live jobs in memory; with a ``store``, every job is also written there, so
    ``ListJobs`` shows jobs finished within ``retention_seconds`` across restarts."""

    def __init__(self, store: Store | None = None, retention_seconds: float = DEFAULT_STORED_RETENTION_SECONDS) -> None:
        self._jobs: dict[str, _Entry] = {}
        self._store = store
        self._retention_seconds = retention_seconds
        self._rows = StoredRows(store) if store is not None else None

    async def on_start(self) -> None:
        if self._rows is not None:
            self.nursery.start_soon(self._rows.run)

    async def on_stop(self) -> None:
        if self._rows is not None:
            await self._rows.flush()  # the last states (a scan cancelled by the shutdown)

    async def handle(self, msg: object) -> object:
        match msg:
            case JobUpdate(job=job, owner=owner, cancel=cancel):
                entry = self._update(job, owner, cancel)
                self._persist(entry)
            case ListJobs():
                return await self._list()
            case RouteCancel(job_id=job_id):
                return await self._cancel_route(job_id)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    def _update(self, job: JobSnapshot, owner: ActorRef | None, cancel: object | None) -> _Entry:
        now = trio.current_time()
        entry = self._jobs.get(job.id)
        if entry is None or entry.job.started_at_ms != job.started_at_ms:
            entry = self._jobs[job.id] = _Entry(job, owner, cancel)
        entry.job, entry.owner, entry.cancel = job, owner, cancel
        if job.processed is not None:
            entry.samples.append((now, job.processed))
            while entry.samples and entry.samples[0][0] < now - RATE_WINDOW_SECONDS:
                entry.samples.popleft()
        entry.finished_at = now if job.finished else None
        return entry

    def _persist(self, entry: _Entry) -> None:
        """Queue the job's row for writing when its state changed or its last write is old.

        Written by a task of its own: an update never waits for the
        database, so a database that is down or slow never fills this
        mailbox (and those of the owners telling it).
        """
        if self._rows is None:
            return
        now = trio.current_time()
        fresh = entry.persisted_at is not None and now - entry.persisted_at < PERSIST_PROGRESS_EVERY_SECONDS
        if entry.persisted_state == entry.job.state and fresh:
            return
        job = entry.job
        row = SavedRow(self._render(entry), job.started_at_ms, job.finished_at_ms or now_ms() if job.finished else None)
        self._rows.queue(job.id, row, lambda: _saved(entry, job, now))

    async def _list(self) -> list[dict[str, Any]]:
        self._expire()
        listed = [self._render(entry) for entry in self._jobs.values()]
        if self._store is not None:
            since = now_ms() - int(self._retention_seconds * 1000)
            try:
                stored = await list_stored_jobs(self._store, finished_since_ms=since)
            except StoreError as exc:  # a lost database is logged by the store
                log.warning("could not read stored jobs: %s", exc)
                stored = []
            listed.extend(job for job in stored if job.get("id") not in self._jobs)
        listed.sort(key=lambda job: job.get("startedAt") or "", reverse=True)
        return listed

    async def _cancel_route(self, job_id: str) -> CancelRoute:
        entry = self._jobs.get(job_id)
        if entry is None and self._store is not None and await get_stored_job(self._store, job_id) is not None:
            # Only a finished job outlives its process (start-up fails the rest).
            raise errors.Conflict(f"Job {job_id} cannot be cancelled now.", params={"jobId": job_id})
        if entry is None:
            raise errors.NotFound(f"No job {job_id}.", params={"jobId": job_id})
        if not entry.job.cancellable or entry.owner is None or entry.cancel is None:
            raise errors.Conflict(f"Job {job_id} cannot be cancelled now.", params={"jobId": job_id})
        return CancelRoute(entry.owner, entry.cancel)

    def _expire(self) -> None:
        now = trio.current_time()
        finished = [(e.finished_at, e) for e in self._jobs.values() if e.finished_at is not None]
        finished.sort(key=lambda pair: pair[0])
        excess = len(finished) - MAX_FINISHED_JOBS
        for index, (finished_at, entry) in enumerate(finished):
            if index < excess or finished_at < now - FINISHED_RETENTION_SECONDS:
                self._jobs.pop(entry.job.id, None)

    def _render(self, entry: _Entry) -> dict[str, Any]:
        job = entry.job
        data: dict[str, Any] = {
            "id": job.id,
            "title": job.title,
            "cancellable": job.cancellable,
            "state": job.state,
            "kind": job.kind,
        }
        put_present(data, (
            ("libraryId", job.library_id),
            ("subject", job.subject),
            ("current", job.current),
            ("phase", job.phase if not job.finished else None),
            ("processed", job.processed),
            ("total", job.total),
            ("errors", job.errors),
            ("changed", job.changed),
            ("message", job.message),
            ("trigger", job.trigger),
            ("unit", job.unit),
            ("progressCached", job.progress_cached),
            ("progressNoUpscale", job.progress_no_upscale),
            ("progressNoPoster", job.progress_no_poster),
            ("progressFailed", job.progress_failed),
            ("messageCode", job.message_code),
            ("messageParams", dict(job.message_params) if job.message_params is not None else None),
            ("relatedJobId", job.related_job_id),
            ("relatedKind", job.related_kind),
            ("stopReason", job.stop_reason),
            ("stopLimitBytes", job.stop_limit_bytes if job.stop_reason else None),
            ("stopUsedBytes", job.stop_used_bytes if job.stop_reason else None),
            ("system", job.system),
        ))
        put_time(data, "startedAt", job.started_at_ms)
        if job.finished:
            put_time(data, "finishedAt", job.finished_at_ms)
        if job.mass_missing_paused:
            data["massMissingPaused"] = True
        per_minute = _per_minute(entry.samples)
        if per_minute is not None:
            data["perMinute"] = per_minute
            if job.state == "running" and per_minute > 0 and job.total is not None and job.processed is not None:
                data["etaSeconds"] = max(int((job.total - job.processed) * 60 / per_minute), 0)
        return data


def _saved(entry: _Entry, job: JobSnapshot, at: float) -> None:
    entry.persisted_state, entry.persisted_at = job.state, at


def _per_minute(samples: collections.deque[tuple[float, int]]) -> int | None:
    """Units done in the last 60 seconds (scaled up while the window is shorter)."""
    if len(samples) < 2:
        return None
    (t0, p0), (t1, p1) = samples[0], samples[-1]
    if t1 <= t0:
        return None
    return int((p1 - p0) * RATE_WINDOW_SECONDS / min(t1 - t0, RATE_WINDOW_SECONDS))
