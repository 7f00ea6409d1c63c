"""LibraryActor: one library's settings, scan lifecycle and folder monitor.

It is the one place that decides "409, a scan already runs" for its library.
Scans run as temporary ScanActor children that report back by tell; each
report becomes the library's ScanStatus, a scan event on the bus and the
``scan:{libraryId}`` job. The realtime monitor's changes become quick
rescans of just the changed directories (queued while a scan runs).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from reelhouse import errors
from reelhouse.media.containment import is_under
from reelhouse.media.file_names import from_fs, to_fs
from reelhouse.media.library_options import (
    apply_update,
    effective_media_info_timing,
    effective_read_concurrency,
)
from reelhouse.runtime import ActorRef, ActorStopped, ChildSpec, EventBus, Supervisor
from reelhouse.shutdown import bounded_shield
from reelhouse.storage import Store, StoreError, StoreFull, StoreUnavailable, now_ms
from reelhouse.storage.catalog import mark_missing
from reelhouse.storage.confined_files import confinement_for, fenced_forms
from reelhouse.storage.libraries import LibraryRecord, get_library, update_library_options
from reelhouse.storage.scans import insert_scan_run, latest_scan_run, update_scan_run

from .cluster.node import ClusterNode
from .jobs import JobSnapshot, JobUpdate
from .library_messages import (
    ConfirmMissing,
    DirectoriesChanged,
    GetLibraryRuntime,
    GetScanStatus,
    GetScrapeQueue,
    LibraryRuntime,
    OptionsUpdated,
    StartScan,
    StopScan,
    UpdateOptions,
)
from .library_settings import check_roots_writable, entitled
from .plugins.infos import installed_plugin_infos
from .realtime import RootMonitor
from .rescans import DirectoryRescans, RescanDirectories, rescan_directories
from .scan import ScanDeps, ScanPlan, probe_pending_sources
from .scan.covers import refresh_covers
from .scan.run_record import record_run_end_until_stored
from .scan.status import (
    CANCELLING,
    COMPLETED,
    FAILED,
    RUNNING,
    RootView,
    ScanStatusView,
    WatchView,
    scan_job,
    status_from_run,
)
from .scan_actor import CancelScan, ScanActor, ScanReport, ScanSetup, ScanSlots
from .scrape.queue import LibraryChanged, ScanWrote, ScrapeQueue, ScrapeServices

log = logging.getLogger(__name__)

ABANDONED_RUN_TIMEOUT_SECONDS = 2.0
"""How long recording a run whose start was given up may take (never past the shutdown deadline)."""
STORE_RETRY_SECONDS = 5  # Retry-After when the database cannot be reached


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
    data_dir: Path | None = None  # the server's own files: never a root, never walked nor served
    plugins: ActorRef | None = None  # the PluginHost: settings naming plugins are checked against it
    scrape: ScrapeServices | None = None  # None: no scrape queue (tests of scans alone)
    cluster: ClusterNode | None = None  # PostgreSQL: this node of the cluster (None: a server of one)


@dataclass(frozen=True, slots=True)
class _MediaInfoProgress:
    job: JobSnapshot


@dataclass(frozen=True, slots=True)
class _ScanEnded:
    """Tell (to itself): the scan actor of ``run_id`` has ended; ``message`` if it never reported."""

    run_id: int
    message: str


class LibraryActor(Supervisor):
    def __init__(self, record: LibraryRecord, services: LibraryServices) -> None:
        super().__init__()
        self._record = record
        self._services = services
        self._status = ScanStatusView(library_id=record.id)
        # Memory only: the reference omits lastScannedAt after a restart
        # until a scan completes.
        self._last_completed_ms: int | None = None
        self._last_online: dict[str, int] = {}
        self._pending_dirs: set[str] = set()
        self._monitor: RootMonitor | None = None
        self._run_id: int | None = None
        self._trigger = "manual"
        self._covers_lock = trio.Lock()
        self._pipeline_lock = trio.Lock()  # one scan or rescan of this library at a time
        self._rescans = DirectoryRescans(self._pipeline_lock, self._rescan)
        self._held_missing: tuple[str, ...] | None = None  # waiting for POST .../confirm-missing
        self._monitor_scope: trio.CancelScope | None = None
        self._fenced_forms: tuple[str, ...] = ()  # the data directory as the monitor names it

    @property
    def library_id(self) -> str:
        return self._record.id

    async def on_start(self) -> None:
        await super().on_start()
        # A restarted actor reads its settings anew: they may have been
        # updated since its registry made it.
        self._record = await get_library(self._services.store, self.library_id) or self._record
        latest = await latest_scan_run(self._services.store, self.library_id)
        if latest is not None:
            self._status = status_from_run(latest)
            # After a restart the last run's final report may still be on its
            # way (the mailbox outlives the instance): it must not be dropped.
            self._run_id = latest.id
        await self._follow_monitor_setting()
        if self._services.scrape is not None:
            scrape = self._services.scrape
            await self.start_child(ChildSpec(SCRAPE_CHILD, lambda: ScrapeQueue(self._record, scrape)))

    async def _follow_monitor_setting(self) -> None:
        """Watch the roots exactly while realtimeMonitor is on and scans are not suspended."""
        options = self._record.options
        wanted = options.realtime_monitor and not options.scans_suspended
        if wanted and self._monitor is None:
            data_dir = self._services.data_dir
            self._fenced_forms = await trio.to_thread.run_sync(fenced_forms, self._record.paths, data_dir)
            self._monitor = RootMonitor(
                [Path(to_fs(p)) for p in self._record.paths],  # the os form; changes come back in it
                debounce_seconds=self._services.monitor_debounce,
                on_changes=self._on_changes,
            )
            self._monitor_scope = trio.CancelScope()
            await self.nursery.start(self._run_monitor, self._monitor, self._monitor_scope)
        elif not wanted and self._monitor is not None and self._monitor_scope is not None:
            self._monitor_scope.cancel()
            self._monitor, self._monitor_scope = None, None

    @staticmethod
    async def _run_monitor(
        monitor: RootMonitor, scope: trio.CancelScope, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        with scope:
            await monitor.run(task_status=task_status)

    async def handle(self, msg: object) -> object:
        try:
            return await self._handle(msg)
        except (StoreUnavailable, StoreFull) as exc:
            # Passing (logged once by the store): the asker gets 503, the library lives on.
            raise errors.Unavailable(
                f"The request failed: {exc.summary}.", params={"retryAfterSeconds": STORE_RETRY_SECONDS}
            ) from exc

    async def _handle(self, msg: object) -> object:
        match msg:
            case StartScan():
                await self._start_scan(msg)
            case StopScan():
                await self._stop_scan()
            case RescanDirectories(dirs=dirs):
                self._rescans.queue(self.nursery, dirs)
            case UpdateOptions(body=body):
                return await self._update_options(body)
            case ConfirmMissing():
                return await self._confirm_missing()
            case GetScanStatus():
                return self._status.with_watch(self._watch())
            case GetLibraryRuntime():
                return LibraryRuntime(self._last_completed_ms, self._status.active)
            case GetScrapeQueue():
                return self._scrape_queue()
            case ScanReport():
                await self._on_report(msg)
            case DirectoriesChanged(dirs=dirs):
                await self._on_directories_changed(dirs)
            case _MediaInfoProgress(job=job):
                await self._services.jobs.tell(JobUpdate(job))
            case _ScanEnded():
                await self._on_scan_ended(msg)
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
        self._held_missing = None  # this scan weighs the changes again
        plan = ScanPlan(
            library_id=self.library_id,
            collection_type=self._record.collection_type,
            roots=self._record.paths,
            mode="full" if request.mode == "full" else "quick",
            options=self._record.options,
            only_dirs=request.only_dirs,
            rewrite=request.rewrite,
            data_dir=str(services.data_dir) if services.data_dir is not None else None,
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
            library_lock=self._pipeline_lock,
        )
        try:
            await self.start_child(ChildSpec(_scan_child(run.id), lambda: ScanActor(setup), restart="temporary"))
        except BaseException:
            await self._abandon_run(run.id)  # its asker gave up (the deadline) or the start failed
            raise
        # Its reports are handled in later turns, so the status may follow the start.
        self._run_id, self._trigger = run.id, request.trigger
        self._status = ScanStatusView(
            library_id=self.library_id, state=RUNNING, mode=plan.mode, phase="queued", started_at_ms=run.started_at_ms
        )

    async def _abandon_run(self, run_id: int) -> None:
        """Record a run whose scan never started as cancelled, so it is not left ``running``."""
        with bounded_shield(ABANDONED_RUN_TIMEOUT_SECONDS):
            try:
                await update_scan_run(self._services.store, run_id, state="cancelled")
            except StoreError:
                log.exception("could not record the abandoned scan run %d", run_id)

    async def _stop_scan(self) -> None:
        scan = self.child(_scan_child(self._run_id)) if self._run_id is not None else None
        if scan is None or not self._status.active:
            raise errors.Conflict("No scan is running for this library.", params={"libraryId": self.library_id})
        if self._status.state == CANCELLING:
            return
        try:
            await scan.ask(CancelScan())  # down the tree, under the asker's deadline
        except ActorStopped:
            return  # the scan is already ending: its final report is on its way
        self._status = replace(self._status, state=CANCELLING)
        self._publish("scan.progress")
        await self._services.jobs.tell(self._job_update())

    async def _on_report(self, report: ScanReport) -> None:
        if report.final and not report.recorded:
            self.nursery.start_soon(record_run_end_until_stored, self._services.store, report.run_id, report.status)
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
        if report.status.started_at_ms is not None:
            await self._tell_scrape(ScanWrote(report.status.started_at_ms))
        if report.status.state == COMPLETED:
            self._last_completed_ms = report.status.finished_at_ms or now_ms()
            if report.outcome is not None and report.outcome.mass_missing_paused:
                self._held_missing = report.outcome.held_missing
            self.nursery.start_soon(self._refresh_covers)  # the next scan need not wait for a collage
        outcome = report.outcome
        timing = effective_media_info_timing(self._record.options)
        if outcome is not None and outcome.probe_pending and timing == "background":
            self.nursery.start_soon(self._read_media_info)
        if self._pending_dirs:
            dirs, self._pending_dirs = tuple(sorted(self._pending_dirs)), set()
            await self._start_scan(StartScan(mode="quick", only_dirs=dirs, trigger="monitor"))

    async def _rescan(self, dirs: tuple[str, ...]) -> None:
        record, services = self._record, self._services
        data_dir = str(services.data_dir) if services.data_dir is not None else None
        since = now_ms()
        outcome = await rescan_directories(record, services.store, services.deps, dirs, data_dir)
        if outcome and outcome.probe_pending and effective_media_info_timing(record.options) == "background":
            self.nursery.start_soon(self._read_media_info)
        await self._tell_scrape(ScanWrote(since))

    def _scrape_queue(self) -> ActorRef:
        queue = self.child(SCRAPE_CHILD)
        if queue is None:
            raise errors.Unavailable("The scrape queue is not running.", params={"retryAfterSeconds": 5})
        return queue

    async def _tell_scrape(self, msg: object) -> None:
        """News for the scrape queue (it never asks the library: a tell cannot deadlock)."""
        queue = self.child(SCRAPE_CHILD)
        if queue is not None:
            try:
                await queue.tell(msg)
            except ActorStopped:
                pass  # restarting: it wakes on start and finds what is pending

    # -- settings and the mass-missing confirmation ----------------------------

    async def _update_options(self, body: Mapping[str, Any]) -> OptionsUpdated:
        """Apply the reference's LibraryOptionsUpdate rules; saving never starts a scan."""
        record = self._record
        outcome = apply_update(
            record.options,
            body,
            creating=False,
            collection_type=record.collection_type,  # type: ignore[arg-type]
            installed_plugins=await installed_plugin_infos(self._services.plugins),
            entitled=entitled,
        )
        if outcome.check_roots_writable:
            await trio.to_thread.run_sync(check_roots_writable, record.paths)
        await update_library_options(self._services.store, self.library_id, outcome.options)
        self._record = replace(record, options=outcome.options, updated_at_ms=now_ms())
        await self._follow_monitor_setting()
        await self._tell_scrape(LibraryChanged(self._record))
        return OptionsUpdated(self._record, outcome.hints)

    async def _confirm_missing(self) -> int:
        held = self._held_missing
        if held is None or self._status.active:
            raise errors.Conflict(
                "No scan of this library waits for a mass-missing confirmation.",
                params={"libraryId": self.library_id},
            )
        try:
            self._pipeline_lock.acquire_nowait()
        except trio.WouldBlock:
            raise errors.Conflict(
                "A rescan of this library is running; confirm once it has ended.",
                params={"libraryId": self.library_id},
            ) from None
        try:
            await mark_missing(self._services.store, held, now_ms=now_ms())
        finally:
            self._pipeline_lock.release()
        self._held_missing = None
        self._status = replace(self._status, mass_missing_paused=False)
        self._publish("scan.completed")  # again, no longer paused: streams learn the pause is over
        await self._services.jobs.tell(self._job_update())
        return len(held)

    async def _refresh_covers(self) -> None:
        services = self._services
        limiter = services.deps.thread_limiter
        async with self._covers_lock:  # one choice at a time, in the order scans completed
            try:
                await refresh_covers(
                    services.store, self._record, services.covers_dir, limiter, data_dir=services.data_dir
                )
            except Exception:  # a cover is never worth failing the library for
                log.exception("choosing the covers of library %s failed", self.library_id)

    async def _on_directories_changed(self, dirs: frozenset[str]) -> None:
        if self._status.active:
            self._pending_dirs |= dirs
            return
        await self._start_scan(StartScan(mode="quick", only_dirs=tuple(sorted(dirs)), trigger="monitor"))

    async def _on_changes(self, dirs: frozenset[Path]) -> None:
        # The server's own writes under a root that holds the data directory
        # are no change to the library (and rescanning them would write again).
        kept = (str(d) for d in dirs if not any(is_under(str(d), f) for f in self._fenced_forms))
        changed = frozenset(from_fs(d) for d in kept)  # as path text
        if changed:
            await self.ref.tell(DirectoriesChanged(changed))

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
            within = await trio.to_thread.run_sync(confinement_for, self._record.paths, services.data_dir)
            count = await probe_pending_sources(
                services.store, self.library_id, services.deps,
                read_concurrency=concurrency, on_progress=report, within=within,
            )  # fmt: skip
        except Exception as exc:
            log.exception("media info read for library %s failed", self.library_id)
            final = replace(base, state="failed", finished_at_ms=now_ms(), message=f"{type(exc).__name__}: {exc}")
        else:
            final = replace(base, state="succeeded", processed=count, total=count, finished_at_ms=now_ms())
        await self.ref.tell(_MediaInfoProgress(final))

    def on_child_exit(self, name: str, error: BaseException | None) -> None:
        if name != _scan_child(self._run_id) or not self._status.active or self._run_id is None:
            return
        # A crashed scan never reports its end; a scan that ended normally
        # told its final report before this message, unless that was lost
        # (the mailbox stayed full past the report's bound).
        lost = "The scan ended without reporting its outcome."
        if error is not None:
            lost = "The scan stopped unexpectedly."
        self.nursery.start_soon(self._tell_scan_ended, _ScanEnded(self._run_id, lost))

    async def _tell_scan_ended(self, ended: _ScanEnded) -> None:
        try:
            await self.ref.tell(ended)
        except ActorStopped:
            pass  # the library is stopping: the next start fails a run left running

    async def _on_scan_ended(self, ended: _ScanEnded) -> None:
        if ended.run_id != self._run_id or not self._status.active:
            return  # its final report came first
        log.error("scan %d of library %s: %s", ended.run_id, self.library_id, ended.message)
        self._status = replace(self._status, state=FAILED, finished_at_ms=now_ms(), message=ended.message)
        self._publish("scan.failed")
        await self._services.jobs.tell(self._job_update())
        self.nursery.start_soon(record_run_end_until_stored, self._services.store, ended.run_id, self._status)

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
        job = scan_job(self._status, self.library_id, self._record.name, self._trigger)
        return JobUpdate(job, owner=self.ref, cancel=StopScan())


SCRAPE_CHILD = "scrape"


def _scan_child(run_id: int | None) -> str:
    return f"scan-{run_id}"
