"""UpkeepActor: one-off upkeep jobs an administrator starts, each a task of its nursery.

Jobs (ids contain the library): ``attentionAction:{libraryId}`` and
``localReprobe:{libraryId}`` (``attention.py``), and a library's cover
regeneration (an ask answered when the covers are made). One job of an
id at a time (409 ``conflict`` otherwise). Every job reports to the
JobRegistry by tell (``job_report.py``); a running job is cancelled
through the registry's ``RouteCancel`` with :class:`CancelUpkeepJob`, and
a stopping server records it ``cancelled``. The actor asks the
LibraryRegistry (a sibling that never asks it back) for scrape queues,
from the job's task, never in its mailbox turn.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from reelhouse import errors
from reelhouse.runtime import Actor, ActorRef, Ask
from reelhouse.storage import Store, now_ms
from reelhouse.storage.covers import StoredCover
from reelhouse.storage.libraries import LibraryRecord, get_library

from ..jobs import JobSnapshot
from ..library_messages import GetScrapeQueue
from ..library_registry import GetLibraryRef
from ..scan import ScanDeps
from ..scan.covers import refresh_covers
from . import attention
from .job_report import JobReport

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class UpkeepServices:
    store: Store
    jobs: ActorRef
    libraries: ActorRef
    deps: ScanDeps
    data_dir: Path
    covers_dir: Path
    global_probe_limit: int


@dataclass(frozen=True, slots=True)
class ActionStarted:
    job_id: str
    count: int  # the items the action takes now


@dataclass(frozen=True, slots=True)
class StartAttentionAction(Ask[ActionStarted]):
    """Ask: start ``action`` on the library's items in its attention states (only ``item_ids``')."""

    library_id: str
    action: str
    item_ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class RegenerateCovers(Ask[dict[str, StoredCover]]):
    """Ask: make the library's automatic covers again now; its covers as chosen."""

    library_id: str


@dataclass(frozen=True, slots=True)
class CancelUpkeepJob(Ask[None]):
    job_id: str


Body = Callable[[JobReport], Awaitable[None]]


class UpkeepActor(Actor):
    def __init__(self, services: UpkeepServices) -> None:
        self._services = services
        self._running: dict[str, trio.CancelScope] = {}
        self._covers = trio.Lock()

    async def handle(self, msg: object) -> object:
        match msg:
            case StartAttentionAction():
                return await self._start_attention(msg)
            case RegenerateCovers(library_id=library_id):
                self._regenerate(await self._library(library_id))
            case CancelUpkeepJob(job_id=job_id):
                self._cancel(job_id)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    # -- jobs -----------------------------------------------------------------------

    def launch(self, base: JobSnapshot, body: Body) -> None:
        """Run ``body`` as the job ``base`` in the nursery; Conflict while a job of that id runs."""
        if base.id in self._running:
            raise errors.Conflict(f"The job {base.id} is already running.", params={"jobId": base.id})
        scope = self._running[base.id] = trio.CancelScope()
        cancel = CancelUpkeepJob(base.id) if base.cancellable else None
        report = JobReport(self._services.jobs, base, self.ref, cancel)
        report.progress(force=True)
        self.nursery.start_soon(self._run, scope, report, body)

    async def _run(self, scope: trio.CancelScope, report: JobReport, body: Body) -> None:
        try:
            with scope:
                await body(report)
        except Exception as exc:
            if isinstance(exc, errors.DomainError):
                log.warning("job %s failed: %s", report.job.id, exc)
            else:
                log.exception("job %s failed", report.job.id)
            await report.finish("failed", message_code="failedSeeLog", message_params={},
                                message="The job failed; the server log says why.")
        finally:
            self._running.pop(report.job.id, None)
        if scope.cancelled_caught and not report.job.finished:
            await report.finish("cancelled", message="Cancelled.")

    def _cancel(self, job_id: str) -> None:
        scope = self._running.get(job_id)
        if scope is None:
            raise errors.Conflict(f"Job {job_id} cannot be cancelled now.", params={"jobId": job_id})
        scope.cancel()

    async def _library(self, library_id: str) -> LibraryRecord:
        record = await get_library(self._services.store, library_id)
        if record is None:
            raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
        return record

    # -- attention actions ------------------------------------------------------------

    async def _start_attention(self, msg: StartAttentionAction) -> ActionStarted:
        if msg.action not in attention.ACTIONS:
            raise errors.Invalid(f"Unknown action {msg.action!r}.", field="action")
        library = await self._library(msg.library_id)
        if msg.action in attention.SCRAPE_ACTIONS and not library.options.metadata_providers:
            raise errors.Conflict("The library has no metadata provider.", code="library_no_providers",
                                  params={"libraryId": library.id})
        work = attention.AttentionWork(library, msg.action, msg.item_ids)
        job_id = f"attentionAction:{library.id}"
        if msg.action == "reprobe" and f"localReprobe:{library.id}" in self._running:
            raise errors.Conflict("The library's files are being probed again already.", params={"jobId": job_id})
        count = await attention.count_for(self._services.store, work)
        base = JobSnapshot(job_id, "attentionAction", f"Attention: {msg.action}", "running",
                           msg.action == "dropMissing", library_id=library.id, subject=library.name,
                           started_at_ms=now_ms(), trigger="manual", total=count, processed=0,
                           message_code="attentionActionRunning",
                           message_params={"action": msg.action, "processed": 0, "total": count})
        self.launch(base, lambda job: self._attention_body(job, work))
        return ActionStarted(job_id, count)

    async def _attention_body(self, job: JobReport, work: attention.AttentionWork) -> None:
        store = self._services.store
        if work.action in attention.SCRAPE_ACTIONS:
            library_ref = await self._services.libraries.ask(GetLibraryRef(work.library.id))
            queue = await library_ref.ask(GetScrapeQueue())
            await attention.hand_to_scrape_queue(job, work, queue)
        elif work.action == "reprobe":
            await attention.hand_to_reprobe(job, work, store, lambda: self._start_reprobe(work))
        else:
            await attention.drop_missing_items(job, work, store)

    async def _start_reprobe(self, work: attention.AttentionWork) -> int:
        services, library = self._services, work.library
        sources = await attention.reprobe_sources(services.store, library.id, work.item_ids)
        base = JobSnapshot(f"localReprobe:{library.id}", "localReprobe", "Probe local files again", "running", True,
                           library_id=library.id, subject=library.name, started_at_ms=now_ms(), trigger="manual",
                           processed=0, total=len(sources))

        async def body(job: JobReport) -> None:
            await attention.local_reprobe(job, services.store, library, sources, services.deps,
                                          data_dir=str(services.data_dir),
                                          global_probe_limit=services.global_probe_limit)

        self.launch(base, body)
        return len(sources)

    # -- covers -----------------------------------------------------------------------

    def _regenerate(self, library: LibraryRecord) -> None:
        reply = self.defer_reply()
        services = self._services

        async def run() -> None:
            with trio.move_on_at(reply.deadline):
                try:
                    async with self._covers:
                        covers = await refresh_covers(services.store, library, services.covers_dir,
                                                      services.deps.thread_limiter, data_dir=services.data_dir,
                                                      regenerate=True)
                    reply.set(covers)
                except Exception as exc:  # a store's failure is the asker's 503; logged here
                    log.exception("regenerating the covers of library %s failed", library.id)
                    reply.fail(exc)

        self.nursery.start_soon(run)
