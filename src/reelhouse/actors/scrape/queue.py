"""ScrapeQueue: one library's provider work, a child of its LibraryActor.

It works through the library's ``pending`` works (``items.scrape_state``)
in a task of its own nursery, matching up to two items per slot of the
provider plugin's ``concurrency`` at a time: recognizer -> search ->
confident? -> details (and, for a series, its seasons on disk) ->
:func:`apply_match` (``scraped``; in a task of its own, so an item waiting
for its images does not hold up the matching of the next); no
confident candidate, or a name too unsure to search with (``guesses.py``)
-> ``needsIdentify``; an item's error -> ``failed``
with ``scrapeError``; a rate limit or an unavailable upstream pauses the
whole queue (``outcomes.py``). Progress is the ``scrape:{libraryId}`` job
(``progress.py``), told to the JobRegistry.

Messages (the library forwards the scans' news; HTTP asks come down
through the library's :class:`~reelhouse.actors.library.GetScrapeQueue`):

- :class:`ScanWrote` (tell): queue what a scan created (autoScrape), wake;
- :class:`LibraryChanged` (tell): new settings, wake;
- :class:`WakeQueue` (tell): look again (the scheduler's ``scrape`` task);
- :class:`Requeue` (ask): queue works by state (rescrape, scrape-requeue,
  refresh) -> :class:`Queued`;
- :class:`~.identify.Identify`, :class:`~.identify.IdentifyApply` (ask).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import httpx
import trio

from reelhouse import errors
from reelhouse.runtime import Actor, ActorRef, Ask
from reelhouse.storage import Store, StoreError, failure_summary, now_ms, root_cause
from reelhouse.storage.libraries import LibraryRecord
from reelhouse.storage.scrape_queue import (
    FILL,
    PendingItem,
    Refresh,
    count_pending,
    mark_new_pending,
    pending_batch,
    queue_works,
    set_scrape_state,
)

from ..jobs import JobSnapshot, JobUpdate
from . import progress
from .apply import ITEM_IMAGES_SECONDS, ApplyDeps, ApplyMode, ApplyRequest, ScrapeOutcome, apply_match
from .download_slots import DownloadSlots
from .guesses import is_guess
from .identify import Identify, IdentifyApply, IdentifyContext, identify_apply, identify_candidates
from .outcomes import MAX_CRASHES_PER_ITEM, Crashed, ItemFailed, Pause, classify
from .provider_images import DOWNLOAD_SECONDS
from .providers import Found, Provider, find_match, plugin_views, usable_providers, usable_recognizers

BATCH_SIZE: Final = 256
# Workers per plugin slot. A worker matches items one after another (the
# plugin calls) and hands each match to an apply task of its own (images,
# writes), so an item whose images come slowly never holds a worker: the
# others go on matching and applying. Two per slot keep the slot busy
# between one item's calls and the next (its connection never runs more
# calls than its ``concurrency``). Measured: 2 per slot scraped faster than
# 4 (items then mostly wait for a slot and only load the event loop) and
# than 1.5.
ITEMS_PER_SLOT: Final = 2
# Items taken and not yet settled, matching or applying; each applying one
# may hold a few downloaded images in memory. Its images' deadline
# (``scrape.item_images_seconds``) bounds how long one item stays.
MAX_ITEMS_IN_PROGRESS: Final = 32
REPORT_EVERY_SECONDS: Final = 1.0
BACKOFF_FIRST_SECONDS: Final = 2.0
BACKOFF_MAX_SECONDS: Final = 300.0
NO_PROVIDER_RECHECK_SECONDS: Final = 30.0
# A store that failed is tried again after 1 s, then 2, 4, 8 and every 10 s: a database
# back from a restart is noticed within a second or two, a long outage costs a query per 10 s.
STORE_RETRY_FIRST_SECONDS: Final = 1.0
STORE_RETRY_MAX_SECONDS: Final = 10.0

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ScrapeServices:
    """What every library's queue shares (tree.py builds it)."""

    store: Store
    jobs: ActorRef
    plugins: ActorRef | None
    data_dir: Path
    http: httpx.AsyncClient
    downloads: DownloadSlots
    backoff_first_seconds: float = BACKOFF_FIRST_SECONDS
    download_seconds: float = DOWNLOAD_SECONDS  # settings.scrape.image_download_seconds
    item_images_seconds: float = ITEM_IMAGES_SECONDS  # settings.scrape.item_images_seconds
    batch_done: Callable[[str], None] | None = None  # told the library id when a batch ends (never blocks)


@dataclass(frozen=True, slots=True)
class ScanWrote:
    """Tell: a scan (or rescan) of the library wrote; items created since ``created_since_ms`` are new."""

    created_since_ms: int


@dataclass(frozen=True, slots=True)
class WakeQueue:
    """Tell: look for pending items now (the scheduler's ``scrape`` task)."""


@dataclass(frozen=True, slots=True)
class LibraryChanged:
    """Tell: the library's settings changed."""

    record: LibraryRecord


@dataclass(frozen=True, slots=True)
class Requeue(Ask["Queued"]):
    """Ask: set works in ``states`` pending (only ``item_ids`` when given) -> :class:`Queued`.

    ``mode``/``replace_images`` say how their matches are applied (memory
    only: after a restart a queued refresh is applied as ``missing``).
    """

    states: tuple[str, ...]
    mode: ApplyMode = "missing"
    replace_images: bool = False
    item_ids: tuple[str, ...] | None = None
    with_nfo: bool = True
    trigger: Literal["manual", "scan", "auto"] = "manual"


@dataclass(frozen=True, slots=True)
class Queued:
    queued: int
    skipped: int


@dataclass(frozen=True, slots=True)
class _Batch:
    """What one batch's workers share."""

    providers: Sequence[Provider]
    recognizers: Sequence[str]
    appliers: trio.Nursery  # each match is applied in a task of its own here
    in_progress: trio.Semaphore  # items taken and not yet left: at most MAX_ITEMS_IN_PROGRESS


class ScrapeQueue(Actor):
    def __init__(self, record: LibraryRecord, services: ScrapeServices) -> None:
        self._record = record
        self._services = services
        self._wake = trio.Event()
        self._crashes: dict[str, int] = {}
        self._tally: progress.RunTally | None = None
        self._trigger = "scan"
        self._pause: Pause | None = None
        self._backoff = services.backoff_first_seconds
        self._store_retry = STORE_RETRY_FIRST_SECONDS
        self._changed = trio.Event()  # an item taken or left: the reporter reports
        self._recheck_pending = False  # a look for providers is scheduled
        self._threads = trio.CapacityLimiter(2)  # apply's image checks and file writes
        self._unmarked_since: int | None = None  # scans wrote items since then, not yet marked pending
        self._marks_asked = 0
        self._failing = False  # the last run failed (logged once until one succeeds)

    async def on_start(self) -> None:
        self.nursery.start_soon(self._run)
        self._wake.set()  # items left pending by an earlier process

    async def handle(self, msg: object) -> object:
        match msg:
            case ScanWrote(created_since_ms=since):
                self._queue_new(since)
            case WakeQueue():
                self._wake.set()
            case LibraryChanged(record=record):
                self._record = record
                self._wake.set()
            case Requeue():
                return await self._requeue(msg)
            case Identify():
                self._deferred(identify_candidates, msg)
            case IdentifyApply():
                self._deferred(identify_apply, msg)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    # -- queueing -------------------------------------------------------------------

    def _queue_new(self, since_ms: int) -> None:
        """Items a scan wrote since ``since_ms`` become pending: marked by the worker
        (a database that is down then delays it, and loses nothing)."""
        unmarked = self._unmarked_since
        self._unmarked_since = since_ms if unmarked is None else min(unmarked, since_ms)
        self._marks_asked += 1
        self._wake.set()

    async def _mark_new(self) -> None:
        since, asked = self._unmarked_since, self._marks_asked
        if since is None:
            return
        options = self._record.options
        if options.auto_scrape and options.metadata_providers:
            queued = await mark_new_pending(self._services.store, self._record.id, created_since_ms=since,
                                            with_nfo=options.fill_missing_from_provider)
            if queued:
                self._trigger = "scan"
        if self._marks_asked == asked:  # no scan wrote meanwhile
            self._unmarked_since = None

    async def _requeue(self, request: Requeue) -> Queued:
        ids, skipped = await queue_works(self._services.store, self._record.id, request.states,
                                         with_nfo=request.with_nfo, item_ids=request.item_ids,
                                         refresh=Refresh(request.mode, request.replace_images))
        for item_id in ids:
            self._crashes.pop(item_id, None)
        if ids:
            self._trigger = request.trigger
        self._wake.set()
        return Queued(len(ids), skipped)

    def _deferred(self, work: object, msg: object) -> None:
        reply = self.defer_reply()
        context = self._identify_context()

        async def run() -> None:
            with trio.move_on_at(reply.deadline):
                try:
                    reply.set(await work(context, msg))  # type: ignore[operator]
                except Exception as exc:  # a domain error is the answer; anything else too, logged
                    if not isinstance(exc, errors.DomainError):
                        log.exception("identify for library %s failed", self._record.id)
                    reply.fail(exc)

        self.nursery.start_soon(run)

    def _identify_context(self) -> IdentifyContext:
        return IdentifyContext(self._record, self._services, self._apply_deps)

    # -- the worker -----------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            try:
                await self._mark_new()
                await self._drain()
            except Exception as exc:  # the store failed (maybe inside the workers' group): later, not a crash loop
                self._note_failure(exc)
                await trio.sleep(self._store_retry)
                self._store_retry = min(self._store_retry * 2, STORE_RETRY_MAX_SECONDS)
                self._wake.set()
            else:
                self._store_retry = STORE_RETRY_FIRST_SECONDS
                if self._failing:
                    self._failing = False
                    log.warning("scrape queue of library %s works again", self._record.id)

    def _note_failure(self, exc: Exception) -> None:
        """Log a failure once, not once per retry; a store's failure without a traceback."""
        if self._failing:
            return
        self._failing = True
        cause = root_cause(exc)
        if isinstance(cause, StoreError):
            log.error("scrape queue of library %s waits for the store: %s", self._record.id, failure_summary(cause))
        else:
            log.exception("scrape queue of library %s failed; trying again later", self._record.id)

    async def _drain(self) -> None:
        store, library_id = self._services.store, self._record.id
        while True:
            views = await plugin_views(self._services.plugins)
            providers = usable_providers(views, self._record.options.metadata_providers)
            pending = await count_pending(store, library_id)
            if pending == 0:
                await self._finish()
                return
            tally = self._begin(providers)
            if not providers:
                await self._report_pause(Pause("no_provider", "no_provider", None), pending)
                if not self._recheck_pending:
                    self._recheck_pending = True
                    self.nursery.start_soon(self._wake_after, NO_PROVIDER_RECHECK_SECONDS)
                return
            await self._tell(progress.waiting(self._base(), tally, pending))  # the batch is about to be taken
            batch = await pending_batch(store, library_id, limit=BATCH_SIZE)
            recognizers = usable_recognizers(views, self._record.options.recognizers)
            pause = await self._work(batch, providers, recognizers)
            if pause is None:
                self._backoff = self._services.backoff_first_seconds
                continue
            await self._report_pause(pause, await count_pending(store, library_id))
            await trio.sleep(self._pause_seconds(pause))
            tally.current = None

    def _begin(self, providers: Sequence[Provider]) -> progress.RunTally:
        if self._tally is None:
            self._tally = progress.RunTally(now_ms(), self._trigger)
        self._tally.providers = tuple(p.plugin_id for p in providers)
        return self._tally

    def _pause_seconds(self, pause: Pause) -> float:
        if pause.retry_after is not None:
            return pause.retry_after
        seconds, self._backoff = self._backoff, min(self._backoff * 2, BACKOFF_MAX_SECONDS)
        return seconds

    async def _wake_after(self, seconds: float) -> None:
        await trio.sleep(seconds)
        self._recheck_pending = False
        self._wake.set()

    async def _work(self, batch: Sequence[PendingItem], providers: Sequence[Provider],
                    recognizers: Sequence[str]) -> Pause | None:
        self._pause = None
        send, receive = trio.open_memory_channel[PendingItem](len(batch))
        for item in batch:
            send.send_nowait(item)
        send.close()
        slots = max(p.concurrency for p in providers)
        workers = min(slots * ITEMS_PER_SLOT, MAX_ITEMS_IN_PROGRESS, len(batch))
        in_progress = trio.Semaphore(MAX_ITEMS_IN_PROGRESS)
        async with trio.open_nursery() as reporting:
            reporting.start_soon(self._reporter)
            async with trio.open_nursery() as appliers:
                async with trio.open_nursery() as matchers:
                    for _ in range(workers):
                        matchers.start_soon(self._worker, receive.clone(), _Batch(providers, recognizers, appliers,
                                                                                   in_progress))
            reporting.cancel_scope.cancel()
        receive.close()
        return self._pause

    async def _worker(self, items: trio.MemoryReceiveChannel[PendingItem], batch: _Batch) -> None:
        """Match items one by one; each match is applied in ``batch.appliers``, so slow images never hold a worker."""
        async with items:
            async for item in items:
                if self._pause is not None:
                    return  # the rest stays pending for after the pause
                if item.lock_data:
                    await set_scrape_state(self._services.store, item.id, "none")  # locked after it was queued
                    continue
                await batch.in_progress.acquire()
                self._taken(item)
                found = await self._match(item, batch)
                if found is None:
                    self._left(batch)
                else:
                    batch.appliers.start_soon(self._apply, item, found, batch)

    async def _match(self, item: PendingItem, batch: _Batch) -> Found | None:
        """The item's match; None when the item is settled without one (needsIdentify, failed) or stays pending."""
        store, tally = self._services.store, self._tally
        assert tally is not None
        if item.refresh == FILL and is_guess(self._record, item):  # a user's refresh still searches
            await set_scrape_state(store, item.id, "needsIdentify")
            tally.needs_identify += 1
            self._done(item)
            return None
        language = self._record.options.metadata_language
        try:
            found = await find_match(self._services.plugins, store, batch.providers, batch.recognizers, item,  # type: ignore[arg-type]
                                     language)
        except StoreError:
            raise
        except Exception as exc:
            await self._failed(item, exc)
            return None
        if found is None:
            await set_scrape_state(store, item.id, "needsIdentify")
            tally.needs_identify += 1
            self._done(item)
        return found

    async def _apply(self, item: PendingItem, found: Found, batch: _Batch) -> None:
        tally = self._tally
        assert tally is not None
        # The user's own match found again by its id stays theirs.
        state: ScrapeOutcome = "identified" if found.provider_id == item.identified_by else "scraped"
        request = ApplyRequest(item.id, found.provider_id, found.match, item.refresh.mode,
                               item.refresh.replace_images, state)
        try:
            result = await apply_match(self._apply_deps(batch.providers), request)
            if not result.applied:  # locked meanwhile: left as it is, out of the queue
                await set_scrape_state(self._services.store, item.id, "none")
            tally.applied += int(result.applied)
            self._done(item)
        except StoreError:
            raise
        except Exception as exc:
            await self._failed(item, exc)
        finally:
            self._left(batch)

    def _taken(self, item: PendingItem) -> None:
        assert self._tally is not None
        self._tally.current = item.name
        self._tally.in_progress += 1
        self._changed.set()

    def _left(self, batch: _Batch) -> None:
        """An item taken is no longer in progress (done, failed or back to pending)."""
        assert self._tally is not None
        self._tally.in_progress -= 1
        batch.in_progress.release()
        self._changed.set()

    def _done(self, item: PendingItem) -> None:
        assert self._tally is not None
        self._tally.processed += 1
        self._crashes.pop(item.id, None)

    async def _failed(self, item: PendingItem, exc: Exception) -> None:
        """Sort out an item's error: failed (done), or pending again with the queue paused."""
        outcome = classify(exc)
        if isinstance(outcome, Crashed):
            crashes = self._crashes[item.id] = self._crashes.get(item.id, 0) + 1
            if crashes < MAX_CRASHES_PER_ITEM:
                self._pause = self._pause or Pause("provider_unavailable", "crashed", outcome.provider_id)
                return
            outcome = ItemFailed("the provider stopped while answering for this item")
        if isinstance(outcome, Pause):
            self._pause = self._pause or outcome
            return
        log.warning("scraping item %s failed: %s (%s)", item.id, outcome.error, exc)
        await set_scrape_state(self._services.store, item.id, "failed", error=outcome.error)
        assert self._tally is not None
        self._tally.failed += 1
        self._done(item)

    def _apply_deps(self, providers: Sequence[Provider]) -> ApplyDeps:
        services = self._services
        origins = frozenset(origin for provider in providers for origin in provider.origins)
        return ApplyDeps(store=services.store, data_dir=services.data_dir, http=services.http,
                         downloads=services.downloads, threads=self._threads, options=self._record.options,
                         provider_origins=origins, download_seconds=services.download_seconds,
                         item_images_seconds=services.item_images_seconds)

    # -- the job --------------------------------------------------------------------

    def _base(self) -> JobSnapshot:
        assert self._tally is not None
        return progress.base_job(self._record.id, self._record.name, self._tally)

    async def _reporter(self) -> None:
        """The running job whenever an item was taken or left, at most once a REPORT_EVERY_SECONDS."""
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            if self._tally is not None:
                pending = await count_pending(self._services.store, self._record.id)
                await self._tell(progress.running(self._base(), self._tally, pending))
            await trio.sleep(REPORT_EVERY_SECONDS)

    async def _report_pause(self, pause: Pause, pending: int) -> None:
        assert self._tally is not None
        retry_at = now_ms() + int(pause.retry_after * 1000) if pause.retry_after is not None else None
        log.info("scrape queue of library %s paused: %s (%s)", self._record.id, pause.code, pause.reason)
        await self._tell(progress.paused(self._base(), self._tally, pending, code=pause.code, reason=pause.reason,
                                         retry_at_ms=retry_at))

    async def _finish(self) -> None:
        if self._tally is None:
            return
        job = progress.finished(self._base(), self._tally, now_ms())
        self._tally, self._trigger = None, "auto"
        self._backoff = self._services.backoff_first_seconds
        await self._tell(job)
        if self._services.batch_done is not None:
            self._services.batch_done(self._record.id)  # people and collections filled after (metadata_jobs)

    async def _tell(self, job: JobSnapshot) -> None:
        await self._services.jobs.tell(JobUpdate(job))
