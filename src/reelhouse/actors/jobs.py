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
from dataclasses import dataclass, field
from typing import Any

import trio

from reelhouse import errors
from reelhouse.jsonfields import put_present, put_time

from ._runtime import Actor, ActorRef

RATE_WINDOW_SECONDS = 60.0
FINISHED_RETENTION_SECONDS = 3600.0
MAX_FINISHED_JOBS = 100
FINAL_JOB_STATES = frozenset({"succeeded", "failed", "cancelled"})


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
class ListJobs:
    """Ask: every running and recently finished job, as Job JSON, newest first."""


@dataclass(frozen=True, slots=True)
class RouteCancel:
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


class JobRegistry(Actor):
    def __init__(self) -> None:
        self._jobs: dict[str, _Entry] = {}

    async def handle(self, msg: object) -> object:
        match msg:
            case JobUpdate(job=job, owner=owner, cancel=cancel):
                self._update(job, owner, cancel)
            case ListJobs():
                self._expire()
                entries = sorted(self._jobs.values(), key=lambda e: e.job.started_at_ms or 0, reverse=True)
                return [self._render(entry) for entry in entries]
            case RouteCancel(job_id=job_id):
                return self._cancel_route(job_id)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    def _update(self, job: JobSnapshot, owner: ActorRef | None, cancel: object | None) -> None:
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

    def _cancel_route(self, job_id: str) -> CancelRoute:
        entry = self._jobs.get(job_id)
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


def _per_minute(samples: collections.deque[tuple[float, int]]) -> int | None:
    """Units done in the last 60 seconds (scaled up while the window is shorter)."""
    if len(samples) < 2:
        return None
    (t0, p0), (t1, p1) = samples[0], samples[-1]
    if t1 <= t0:
        return None
    return int((p1 - p0) * RATE_WINDOW_SECONDS / min(t1 - t0, RATE_WINDOW_SECONDS))
