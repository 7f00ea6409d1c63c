"""LibraryActor: one library's settings, scan lifecycle and folder monitor.

It is the one place that decides "409, a scan already runs" for its library.
Scans run as temporary ScanActor children that report back by tell; each
report becomes the library's ScanStatus, a scan event on the bus and the
``scan:{libraryId}`` job. The realtime monitor's changes become quick
rescans of just the changed directories (queued while a scan runs).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from reelhouse import errors
from reelhouse.media.library_options import effective_media_info_timing, effective_read_concurrency
from reelhouse.storage import Store, StoreError, now_ms
from reelhouse.storage.libraries import LibraryRecord, set_last_scanned_at
from reelhouse.storage.scans import ScanRunRecord, insert_scan_run, latest_scan_run

from ._eventbus import EventBus
from ._runtime import ActorRef
from ._supervisor import ChildSpec, Supervisor
from .covers import refresh_covers
from .jobs import JobSnapshot, JobUpdate
from .monitor import RootMonitor
from .scan import ScanDeps, ScanPlan, probe_pending_sources
from .scan_actor import CancelScan, ScanActor, ScanReport, ScanSetup, ScanSlots
from .scan_status import CANCELLING, COMPLETED, FINAL_STATES, IDLE, RUNNING, RootView, ScanStatusView, WatchView

log = logging.getLogger(__name__)

ASK_SCAN_TIMEOUT_SECONDS = 5.0
SAVE_SCANNED_AT_TIMEOUT_SECONDS = 10.0
"""How long a stop waits for the record of a just-completed scan to be written."""


@dataclass(frozen=True, slots=True)
class LibraryServices:
    """What every LibraryActor shares."""

    store: Store
    bus: EventBus
    jobs: ActorRef
    deps: ScanDeps
    slots: ScanSlots
    progress_interval: float
    monitor_debounce: float
    global_probe_limit: int
    covers_dir: Path | None = None  # automatic collages (None: none are made)


@dataclass(frozen=True, slots=True)
class StartScan:
    """Ask: start a scan; Conflict when one runs."""

    mode: str = "full"
    rewrite: bool = False
    only_dirs: tuple[str, ...] | None = None
    trigger: str = "manual"


@dataclass(frozen=True, slots=True)
class StopScan:
    """Ask: cancel the running scan; Conflict when none runs."""


@dataclass(frozen=True, slots=True)
class GetScanStatus:
    """Ask: the library's ScanStatusView."""


@dataclass(frozen=True, slots=True)
class GetLibraryRuntime:
    """Ask: what only this process knows about the library (LibraryRuntime)."""


@dataclass(frozen=True, slots=True)
class LibraryRuntime:
    last_scanned_at_ms: int | None
    scanning: bool


@dataclass(frozen=True, slots=True)
class DirectoriesChanged:
    """Tell (monitor -> library): these directories changed on disk."""

    dirs: frozenset[str]


@dataclass(frozen=True, slots=True)
class _MediaInfoProgress:
    job: JobSnapshot


class LibraryActor(Supervisor):
    def __init__(self, record: LibraryRecord, services: LibraryServices) -> None:
        super().__init__()
        self._record = record
        self._services = services
        self._status = ScanStatusView(library_id=record.id)
        self._last_completed_ms = record.last_scanned_at_ms  # kept across restarts
        self._last_online: dict[str, int] = {}
        self._pending_dirs: set[str] = set()
        self._monitor: RootMonitor | None = None
        self._run_id: int | None = None
        self._trigger = "manual"
        self._covers_lock = trio.Lock()
        self._scanned_at_lock = trio.Lock()

    @property
    def library_id(self) -> str:
        return self._record.id

    async def on_start(self) -> None:
        await super().on_start()
        latest = await latest_scan_run(self._services.store, self.library_id)
        if latest is not None:
            self._status = _status_from_run(latest)
        options = self._record.options
        if options.realtime_monitor and not options.scans_suspended:
            self._monitor = RootMonitor(
                [Path(p) for p in self._record.paths],
                debounce_seconds=self._services.monitor_debounce,
                on_changes=self._on_changes,
            )
            await self.nursery.start(self._monitor.run)

    async def handle(self, msg: object) -> object:
        match msg:
            case StartScan():
                await self._start_scan(msg)
            case StopScan():
                await self._stop_scan()
            case GetScanStatus():
                return self._status.with_watch(self._watch())
            case GetLibraryRuntime():
                return LibraryRuntime(self._last_completed_ms, self._status.active)
            case ScanReport():
                await self._on_report(msg)
            case DirectoriesChanged(dirs=dirs):
                await self._on_directories_changed(dirs)
            case _MediaInfoProgress(job=job):
                await self._services.jobs.tell(JobUpdate(job))
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    async def _start_scan(self, request: StartScan) -> None:
        if self._status.active:
            raise errors.Conflict(
                "A scan is already running for this library.",
                code="conflict",
                params={"libraryId": self.library_id},
            )
        services = self._services
        run = await insert_scan_run(services.store, self.library_id, request.mode)
        self._run_id, self._trigger = run.id, request.trigger
        plan = ScanPlan(
            library_id=self.library_id,
            collection_type=self._record.collection_type,
            roots=self._record.paths,
            mode="full" if request.mode == "full" else "quick",
            options=self._record.options,
            only_dirs=request.only_dirs,
            rewrite=request.rewrite,
        )
        setup = ScanSetup(
            run_id=run.id,
            plan=plan,
            store=services.store,
            deps=services.deps,
            slots=services.slots,
            library=self.ref,
            interval=services.progress_interval,
            started_at_ms=run.started_at_ms,
        )
        self._status = ScanStatusView(
            library_id=self.library_id, state=RUNNING, mode=plan.mode, phase="queued", started_at_ms=run.started_at_ms
        )
        await self.start_child(ChildSpec(_scan_child(run.id), lambda: ScanActor(setup), restart="temporary"))

    async def _stop_scan(self) -> None:
        scan = self.child(_scan_child(self._run_id)) if self._run_id is not None else None
        if scan is None or not self._status.active:
            raise errors.Conflict("No scan is running for this library.", params={"libraryId": self.library_id})
        if self._status.state == CANCELLING:
            return
        self._status = replace(self._status, state=CANCELLING)
        self._publish("scan.progress")
        await scan.ask(CancelScan(), timeout=ASK_SCAN_TIMEOUT_SECONDS)

    async def _on_report(self, report: ScanReport) -> None:
        if report.run_id != self._run_id:
            return  # a late report of an earlier run
        status = report.status
        if self._status.state == CANCELLING and not report.final:
            status = replace(status, state=CANCELLING)
        self._status = replace(status, roots=self._with_last_online(status.roots))
        self._publish(report.event)
        await self._services.jobs.tell(self._job_update())
        if report.final:
            await self._after_scan(report)

    async def _after_scan(self, report: ScanReport) -> None:
        if report.status.state == COMPLETED:
            self._last_completed_ms = report.status.finished_at_ms or now_ms()
            # Off the mailbox: while other scans write, this write waits its
            # turn, and status asks (GET /scans/status) must not wait with it.
            self.nursery.start_soon(self._save_last_scanned_at, self._last_completed_ms)
            self.nursery.start_soon(self._refresh_covers)  # the next scan need not wait for a collage
        outcome = report.outcome
        timing = effective_media_info_timing(self._record.options)
        if outcome is not None and outcome.probe_pending and timing == "background":
            self.nursery.start_soon(self._read_media_info)
        if self._pending_dirs:
            dirs, self._pending_dirs = tuple(sorted(self._pending_dirs)), set()
            await self._start_scan(StartScan(mode="quick", only_dirs=dirs, trigger="monitor"))

    async def _save_last_scanned_at(self, at_ms: int) -> None:
        # Shielded, within a bound: a server stopped just after a scan still records it.
        deadline = trio.current_time() + SAVE_SCANNED_AT_TIMEOUT_SECONDS
        with trio.CancelScope(shield=True, deadline=deadline) as scope:
            async with self._scanned_at_lock:  # in the order scans completed
                try:
                    await set_last_scanned_at(self._services.store, self.library_id, at_ms)
                except StoreError:  # the next completed scan writes it again
                    log.exception("recording when library %s was scanned failed", self.library_id)
        if scope.cancelled_caught:
            log.warning("recording when library %s was scanned took over %.0f s; given up",
                        self.library_id, SAVE_SCANNED_AT_TIMEOUT_SECONDS)  # fmt: skip

    async def _refresh_covers(self) -> None:
        services = self._services
        limiter = services.deps.thread_limiter or trio.CapacityLimiter(1)
        async with self._covers_lock:  # one choice at a time, in the order scans completed
            try:
                await refresh_covers(services.store, self._record, services.covers_dir, limiter)
            except Exception:  # a cover is never worth failing the library for
                log.exception("choosing the covers of library %s failed", self.library_id)

    async def _on_directories_changed(self, dirs: frozenset[str]) -> None:
        if self._status.active:
            self._pending_dirs |= dirs
            return
        await self._start_scan(StartScan(mode="quick", only_dirs=tuple(sorted(dirs)), trigger="monitor"))

    async def _on_changes(self, dirs: frozenset[Path]) -> None:
        await self.ref.tell(DirectoriesChanged(frozenset(str(d) for d in dirs)))

    async def _read_media_info(self) -> None:
        """The background mediaInfoRead job: probe what the scan left pending."""
        services, job_id = self._services, f"mediaInfoRead:{self.library_id}"
        started = now_ms()
        base = JobSnapshot(job_id, "mediaInfoRead", "Read media information", "running", False,
                           library_id=self.library_id, started_at_ms=started, trigger="scan")

        last_report = -services.progress_interval

        def report(done: int, total: int) -> None:
            # Files are answered by the thousand a second: progress at the scan's pace.
            nonlocal last_report
            now = trio.current_time()
            if now - last_report >= services.progress_interval or done == total:
                last_report = now
                self.ref.try_tell(_MediaInfoProgress(replace(base, processed=done, total=total)))

        concurrency = effective_read_concurrency(self._record.options, global_probe_limit=services.global_probe_limit)
        try:
            count = await probe_pending_sources(
                services.store, self.library_id, services.deps, read_concurrency=concurrency, on_progress=report
            )
        except Exception as exc:
            log.exception("media info read for library %s failed", self.library_id)
            final = replace(base, state="failed", finished_at_ms=now_ms(), message=f"{type(exc).__name__}: {exc}")
        else:
            final = replace(base, state="succeeded", processed=count, total=count, finished_at_ms=now_ms())
        await self.ref.tell(_MediaInfoProgress(final))

    def on_child_exit(self, name: str, error: BaseException | None) -> None:
        if name == _scan_child(self._run_id) and error is not None and self._status.active:
            # The scan crashed before it could report its end.
            self._status = replace(self._status, state="failed", finished_at_ms=now_ms(), message="The scan stopped unexpectedly.")
            self._publish("scan.failed")

    def _publish(self, event: str) -> None:
        self._services.bus.publish(event, self._status.with_watch(self._watch()).to_json())

    def _watch(self) -> WatchView:
        if self._monitor is None:
            return WatchView("disabled")
        status = self._monitor.status
        return WatchView(status.state, status.reason_code, status.message)

    def _with_last_online(self, roots: tuple[RootView, ...]) -> tuple[RootView, ...]:
        updated = []
        for root in roots:
            if root.online and root.checked_at_ms is not None:
                self._last_online[root.path] = root.checked_at_ms
            updated.append(replace(root, last_online_ms=self._last_online.get(root.path)))
        return tuple(updated)

    def _job_update(self) -> JobUpdate:
        status = self._status
        job_state = {"running": "running", "cancelling": "cancelling", "completed": "succeeded"}.get(
            status.state, status.state
        )
        job = JobSnapshot(
            id=f"scan:{self.library_id}",
            kind="scan",
            title=f"Scan {self._record.name}",
            state=job_state,
            cancellable=status.state == RUNNING,
            library_id=self.library_id,
            subject=self._record.name,
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
            trigger="auto" if self._trigger == "monitor" else "manual",
        )
        return JobUpdate(job, owner=self.ref, cancel=StopScan())


def _scan_child(run_id: int | None) -> str:
    return f"scan-{run_id}"


def _status_from_run(run: ScanRunRecord) -> ScanStatusView:
    state = run.state if run.state in FINAL_STATES else IDLE
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
