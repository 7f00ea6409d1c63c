"""MetadataJobs: the actor that runs the people, collection and NFO sync jobs.

One run of a kind (and library, for nfoSync and a library's
collectionNameFill) at a time: asking again while one runs answers the
running job (the HTTP edge answers 202 either way, with its id).  A run
is a task of this actor's nursery, reported to the JobRegistry as it goes
(:class:`~._context.JobRun`) and cancellable through it
(:class:`CancelMetadataJob`).  A run that raises ends ``failed``
(``failedSeeLog``, the error logged) without crashing the actor.

When a library's scrape batch ends (:class:`BatchListener`, called by the
scrape queue), people still ``pending`` with a provider id are filled
(personDetailsFill) and the library's provider collections not yet read
are filled (collectionNameFill), each with trigger ``scan``, when there is
such work and a provider for it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from reelhouse import errors
from reelhouse.runtime import Actor, ActorRef, ActorStopped, Ask
from reelhouse.storage import now_ms
from reelhouse.storage.collections import boxsets_to_fill
from reelhouse.storage.libraries import LibraryRecord, get_library
from reelhouse.storage.people import has_people_to_fill

from ..jobs import JobSnapshot
from ..scrape.queue import ScrapeServices
from ._collections import fill_collections
from ._context import JobRun
from ._nfo_sync import sync_nfo
from ._people import ProviderGone, fill_details, person_providers_usable, refetch_sources

log = logging.getLogger(__name__)

PEOPLE_KINDS = ("personDetailsFill", "personRecheck", "personSourceRefetch")
TITLES = {
    "personDetailsFill": "Filling people's details",
    "personRecheck": "Checking people again",
    "personSourceRefetch": "Fetching people's pictures again",
    "collectionNameFill": "Filling collections",
    "nfoSync": "Writing NFO files",
}


@dataclass(frozen=True, slots=True)
class StartMetadataJob(Ask["JobSnapshot"]):
    """Ask: start a job of ``kind`` (or find the one running); its snapshot.

    ``library``: for nfoSync (required) and collectionNameFill (None: every library).
    """

    kind: str
    library: LibraryRecord | None = None
    trigger: str = "manual"


@dataclass(frozen=True, slots=True)
class ScrapeBatchDone:
    """Tell: the scrape queue of ``library_id`` ended a batch."""

    library_id: str


class BatchListener:
    """The scrape queue's ``batch_done`` callback: tells MetadataJobs once its ref is set (tree.py)."""

    def __init__(self) -> None:
        self.ref: ActorRef | None = None

    def __call__(self, library_id: str) -> None:
        if self.ref is not None:
            try:
                self.ref.try_tell(ScrapeBatchDone(library_id))  # full or stopped: the next batch tries again
            except ActorStopped:
                pass


@dataclass(frozen=True, slots=True)
class CancelMetadataJob:
    """Ask (routed by the JobRegistry): cancel the run ``job_id``."""

    job_id: str


class MetadataJobs(Actor):
    def __init__(self, services: ScrapeServices) -> None:
        self._services = services
        self._running: dict[str, tuple[JobRun, trio.CancelScope]] = {}

    async def handle(self, msg: object) -> object:
        match msg:
            case StartMetadataJob(kind=kind, library=library, trigger=trigger):
                return await self._start(kind, library, trigger)
            case ScrapeBatchDone(library_id=library_id):
                self.nursery.start_soon(self._after_batch, library_id)
                return None
            case CancelMetadataJob(job_id=job_id):
                running = self._running.get(job_id)
                if running is None:
                    raise errors.Conflict(f"Job {job_id} cannot be cancelled now.", params={"jobId": job_id})
                await running[0].report(state="cancelling", cancellable=False)
                running[1].cancel()
                return None
            case _:
                raise TypeError(f"unexpected message {msg!r}")

    async def _start(self, kind: str, library: LibraryRecord | None, trigger: str) -> JobSnapshot:
        if kind not in TITLES:
            raise errors.Invalid(f"Unknown job kind {kind}.", field="kind")
        job_id = kind if library is None else f"{kind}:{library.id}"
        if job_id in self._running:
            return self._running[job_id][0].job
        job = JobSnapshot(id=job_id, kind=kind, title=TITLES[kind], state="running", cancellable=True,
                          library_id=library.id if library else None,
                          subject=library.name if library else None, started_at_ms=now_ms(), trigger=trigger,
                          processed=0)
        run = JobRun(self._services, job, self.ref, CancelMetadataJob(job_id))
        scope = trio.CancelScope()
        self._running[job_id] = (run, scope)
        await run.report()
        self.nursery.start_soon(self._run, run, scope, self._work(kind, library))
        return run.job

    async def _after_batch(self, library_id: str) -> None:
        """Start the fills a finished scrape batch calls for (errors logged: never crashes the actor)."""
        store = self._services.store
        try:
            library = await get_library(store, library_id)
            if await has_people_to_fill(store) and await person_providers_usable(self._services):
                await self._start("personDetailsFill", None, "scan")
            collecting = library is not None and library.options.import_collections
            if collecting and await boxsets_to_fill(store, [library_id]):
                await self._start("collectionNameFill", library, "scan")
        except Exception:
            log.exception("metadata jobs after the scrape batch of library %s not started", library_id)

    def _work(self, kind: str, library: LibraryRecord | None) -> Callable[[JobRun], Awaitable[None]]:
        if kind == "personDetailsFill":
            return fill_details
        if kind == "personRecheck":
            return lambda run: fill_details(run, recheck=True)
        if kind == "personSourceRefetch":
            return refetch_sources
        if kind == "collectionNameFill":
            return lambda run: fill_collections(run, library.id if library else None)
        assert library is not None  # nfoSync names its library
        return lambda run: sync_nfo(run, library)

    async def _run(self, run: JobRun, scope: trio.CancelScope, work: Callable[[JobRun], Awaitable[None]]) -> None:
        try:
            with scope:
                await work(run)
            if scope.cancelled_caught:
                await run.report(state="cancelled", cancellable=False, finished_at_ms=now_ms())
        except ProviderGone as exc:
            log.warning("job %s stopped: %s", run.job.id, exc)
            await run.report(state="failed", cancellable=False, finished_at_ms=now_ms(), message=str(exc),
                             message_code="noProvider", message_params={})
        except Exception:
            log.exception("job %s failed", run.job.id)
            await run.report(state="failed", cancellable=False, finished_at_ms=now_ms(),
                             message="The job failed; see the server log.", message_code="failedSeeLog",
                             message_params={})
        finally:
            self._running.pop(run.job.id, None)
