"""ScanActor: one running scan of one library, walk -> parse -> write.

Started by its LibraryActor as a temporary child. It waits for a full-scan
slot (phase ``queued``), runs the pipeline in its own nursery, and reports
to the library by *tell* (progress at most every ``interval`` seconds, then
one final report); the library turns those into status, events and jobs.
Cancelling (an ask, or the actor being stopped at shutdown) ends the scan
as ``cancelled``; the pipeline marks nothing missing unless it finished.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace

import trio

from reelhouse.runtime import Actor, ActorRef, ActorStopped, is_cancellation
from reelhouse.shutdown import bounded_shield, bounded_wait
from reelhouse.storage import Store, StoreError, failure_summary, now_ms, root_cause
from reelhouse.storage.scans import update_scan_run

from .scan import ScanDeps, ScanOutcome, ScanPlan, ScanProgress, run_scan
from .scan.run_record import scan_counts
from .scan.status import CANCELLED, CANCELLING, COMPLETED, FAILED, RUNNING, RootView, ScanStatusView

log = logging.getLogger(__name__)

# Bounds of the final record and report; both also end at the server's
# shutdown deadline (reelhouse.shutdown), whichever comes first.
FINAL_RECORD_TIMEOUT_SECONDS = 3.0


class ScanSlots:
    """The server-wide limit on concurrent full scans of whole libraries.

    Quick scans and rescans of a few directories need no slot.
    """

    def __init__(self, full_scans: int) -> None:
        self._semaphore = trio.Semaphore(full_scans)

    @asynccontextmanager
    async def slot(self, plan: ScanPlan, library_lock: trio.Lock | None = None) -> AsyncIterator[None]:
        """The right to run ``plan``: the library's own lock first (one
        pipeline per library), then a full-scan slot when it needs one."""
        async with AsyncExitStack() as stack:
            if library_lock is not None:
                await stack.enter_async_context(library_lock)
            if plan.mode == "full" and plan.only_dirs is None:
                await stack.enter_async_context(self._semaphore)
            yield


@dataclass(frozen=True, slots=True)
class CancelScan:
    """Ask: stop the scan; it ends ``cancelled``."""


@dataclass(frozen=True, slots=True)
class ScanReport:
    """Tell (scan -> library): the scan's status; ``event`` names the scan event."""

    run_id: int
    status: ScanStatusView
    event: str  # scan.queued, scan.started, scan.progress, scan.paused, scan.completed, ...
    outcome: ScanOutcome | None = None
    recorded: bool = True  # False: the run's end is not stored yet (the database was down)

    @property
    def final(self) -> bool:
        return self.event in ("scan.completed", "scan.failed", "scan.cancelled")


@dataclass(frozen=True, slots=True)
class ScanSetup:
    run_id: int
    plan: ScanPlan
    store: Store
    deps: ScanDeps
    slots: ScanSlots
    library: ActorRef
    interval: float
    started_at_ms: int
    library_lock: trio.Lock | None = None  # held while the pipeline runs: no rescan of the library beside it


class ScanActor(Actor):
    def __init__(self, setup: ScanSetup) -> None:
        self._setup = setup
        self._progress = ScanProgress()
        self._state = RUNNING
        self._phase = "queued"
        self._scope = trio.CancelScope()
        self._paused_reported = False
        self._done = trio.Event()

    async def on_start(self) -> None:
        self.nursery.start_soon(self._run)

    async def handle(self, msg: object) -> object:
        match msg:
            case CancelScan():
                self._cancel()
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    async def on_stop(self) -> None:
        # Stopped from outside (shutdown, library removed): the scan ends
        # cancelled, and its final report is still written and told.
        self._cancel()
        with bounded_wait(FINAL_RECORD_TIMEOUT_SECONDS * 2):
            await self._done.wait()

    def _cancel(self) -> None:
        if self._state == RUNNING:
            self._state = CANCELLING
            self._scope.cancel()
            self._tell_progress("scan.progress")

    async def _run(self) -> None:
        setup = self._setup
        outcome: ScanOutcome | None = None
        message = None
        try:
            with self._scope:
                self._tell_progress("scan.queued")
                async with setup.slots.slot(setup.plan, setup.library_lock):
                    self._phase = self._progress.phase
                    self._tell_progress("scan.started")
                    outcome = await self._scan()
        except Exception as exc:  # a failed scan is an outcome, not a crash
            message = f"The scan failed: {failure_summary(exc)}."
            if isinstance(root_cause(exc), StoreError):  # the store logs a lost database once
                log.error("scan of library %s failed: %s", setup.plan.library_id, root_cause(exc))
            else:
                log.exception("scan of library %s failed", setup.plan.library_id)
        except BaseException as exc:
            # Strict exception groups: a cancellation may arrive wrapped in a
            # group (with or without failures beside it). Torn down from
            # outside (a shutdown): the scan ends cancelled.
            if is_cancellation(exc):
                self._state = CANCELLING
            raise
        finally:
            if self._state == CANCELLING:
                await self._finish(CANCELLED, None, message)
            else:
                await self._finish(COMPLETED if outcome is not None else FAILED, outcome, message)

    async def _scan(self) -> ScanOutcome:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._tick)
            outcome = await run_scan(self._setup.plan, self._setup.store, self._progress, self._setup.deps)
            nursery.cancel_scope.cancel()
        return outcome

    async def _tick(self) -> None:
        while True:
            await trio.sleep(self._setup.interval)
            self._phase = self._progress.phase
            if self._progress.mass_missing_paused and not self._paused_reported:
                self._paused_reported = True
                self._tell_progress("scan.paused")
            else:
                self._tell_progress("scan.progress")

    async def _finish(self, state: str, outcome: ScanOutcome | None, message: str | None) -> None:
        setup = self._setup
        self._state = state
        status = replace(self._status(), finished_at_ms=now_ms(), message=message)
        recorded = False
        with bounded_shield(FINAL_RECORD_TIMEOUT_SECONDS) as recording:
            try:
                counts = scan_counts(status)
                await update_scan_run(setup.store, setup.run_id, state=state, counts=counts, message=message)
                recorded = True
            except StoreError as exc:  # the library records it once the database is back
                log.warning("could not record the end of scan %d yet: %s", setup.run_id, exc)
        if recording.cancelled_caught:
            log.warning("recording the end of scan %d took too long; given up", setup.run_id)
        if outcome is not None and outcome.mass_missing_paused and not self._paused_reported:
            self._try_tell(ScanReport(setup.run_id, status, "scan.paused"))
        with bounded_shield(FINAL_RECORD_TIMEOUT_SECONDS):
            try:
                await setup.library.tell(ScanReport(setup.run_id, status, f"scan.{state}", outcome, recorded))
            except ActorStopped:
                pass  # the library is stopping too (shutdown): the run is recorded above
        self._done.set()
        self.stop_self()

    def _tell_progress(self, event: str) -> None:
        # Progress may be dropped when the library is busy; the next tick
        # (or the final report, which is never dropped) catches up.
        self._try_tell(ScanReport(self._setup.run_id, self._status(), event))

    def _try_tell(self, report: ScanReport) -> None:
        try:
            self._setup.library.try_tell(report)
        except ActorStopped:
            pass

    def _status(self) -> ScanStatusView:
        p, setup = self._progress, self._setup
        roots = tuple(
            RootView(r.path, r.online, r.checked_at_ms, None, r.reason_code, r.message) for r in p.roots
        )
        return ScanStatusView(
            library_id=setup.plan.library_id,
            state=self._state,
            mode=setup.plan.mode,
            processed=p.processed,
            errors=p.errors,
            added=p.added,
            changed=p.changed,
            missing=p.missing,
            total=p.total,
            phase=self._phase,
            current_dir=p.current_dir,
            current_path=p.current_path,
            started_at_ms=setup.started_at_ms,
            mass_missing_paused=p.mass_missing_paused,
            roots=roots,
        )
