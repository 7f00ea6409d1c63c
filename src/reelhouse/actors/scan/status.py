"""ScanStatus: what a library's scan looks like from outside.

One value serves ``GET /scans/status``, the ``data:`` of every scan event
and the ``scan:{libraryId}`` job, so the three never disagree. ``to_json``
renders the reference's camelCase shape with omitted fields absent.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from reelhouse.jsonfields import put_present, put_time
from reelhouse.storage.scans import FINAL_SCAN_STATES, ScanRunRecord

from ..jobs import JobSnapshot

# ScanState values.
IDLE, RUNNING, CANCELLING = "idle", "running", "cancelling"
COMPLETED, FAILED, CANCELLED = "completed", "failed", "cancelled"


@dataclass(frozen=True, slots=True)
class RootView:
    path: str
    online: bool
    checked_at_ms: int | None = None
    last_online_ms: int | None = None
    reason_code: str | None = None
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "online": self.online}
        put_time(data, "checkedAt", self.checked_at_ms)
        put_time(data, "lastOnline", self.last_online_ms)
        return put_present(data, (("reasonCode", self.reason_code), ("message", self.message)))


@dataclass(frozen=True, slots=True)
class WatchView:
    state: str  # watching, disabled, unsupported, limit, pending
    reason_code: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ScanStatusView:
    library_id: str
    state: str = IDLE
    mode: str | None = None
    processed: int = 0
    errors: int = 0
    added: int | None = None
    changed: int | None = None
    missing: int | None = None
    total: int | None = None
    phase: str | None = None
    current_dir: str | None = None
    current_path: str | None = None
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    message: str | None = None
    mass_missing_paused: bool = False
    roots: tuple[RootView, ...] = field(default_factory=tuple)
    watch: WatchView | None = None

    @property
    def active(self) -> bool:
        return self.state in (RUNNING, CANCELLING)

    def with_watch(self, watch: WatchView | None) -> ScanStatusView:
        return replace(self, watch=watch)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "libraryId": self.library_id,
            "state": self.state,
            "processed": self.processed,
            "errors": self.errors,
        }
        put_present(data, (
            ("added", self.added),
            ("changed", self.changed),
            ("missing", self.missing),
            ("total", self.total),
            ("phase", self.phase if self.active else None),
            ("currentDir", self.current_dir if self.active else None),
            ("currentPath", self.current_path if self.active else None),
            ("message", self.message),
        ))
        put_time(data, "startedAt", self.started_at_ms)
        if not self.active:
            put_time(data, "finishedAt", self.finished_at_ms)
        if self.mass_missing_paused:
            data["massMissingPaused"] = True
        if self.roots:
            data["roots"] = [root.to_json() for root in self.roots]
        if self.watch is not None:
            data["watch"] = self.watch.state
            put_present(data, (("watchReasonCode", self.watch.reason_code), ("watchMessage", self.watch.message)))
        return data


def scan_job(status: ScanStatusView, library_id: str, library_name: str, trigger: str) -> JobSnapshot:
    """The ``scan:{libraryId}`` job of a status."""
    job_state = {"running": "running", "cancelling": "cancelling", "completed": "succeeded"}.get(
        status.state, status.state
    )
    return JobSnapshot(
        id=f"scan:{library_id}",
        kind="scan",
        title=f"Scan {library_name}",
        state=job_state,
        cancellable=status.state == RUNNING,
        library_id=library_id,
        subject=library_name,
        current=status.current_path,
        phase=status.phase,
        processed=status.processed,
        total=status.total,
        errors=status.errors,
        changed=(status.added or 0) + (status.changed or 0),
        started_at_ms=status.started_at_ms,
        finished_at_ms=status.finished_at_ms,
        message=status.message,
        mass_missing_paused=status.mass_missing_paused,
        # Scans the monitor started on its own are automatic; every other
        # start (the API, library creation, an item action) is manual.
        trigger="auto" if trigger in ("monitor", "schedule") else "manual",
    )


def status_from_run(run: ScanRunRecord) -> ScanStatusView:
    state = run.state if run.state in FINAL_SCAN_STATES else IDLE
    counts = run.counts
    return ScanStatusView(
        library_id=run.library_id,
        state=state,
        mode=run.mode,
        processed=int(counts.get("processed", 0)),
        errors=int(counts.get("errors", 0)),
        added=counts.get("added"),
        changed=counts.get("changed"),
        missing=counts.get("missing"),
        started_at_ms=run.started_at_ms,
        finished_at_ms=run.finished_at_ms,
        message=run.message,
    )
