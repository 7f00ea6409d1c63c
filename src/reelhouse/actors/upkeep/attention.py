"""Bulk actions on a library's items by attention state: the ``attentionAction`` job.

Actions (``POST /libraries/{id}/attention-actions``, body ``{action,
itemIds?}``; decided here, the reference names only the job):

- ``reidentify``: items in ``needsIdentify`` are searched again
  (``replaceAll``: a confident match replaces provider fields);
- ``rescrape``: items in ``scrapeFailed`` or ``scrapeNotQueued`` are
  scraped (empty fields filled);
- ``reprobe``: the local files of items in ``unprobed`` are probed again
  by the job ``localReprobe:{libraryId}``; remote (``.strm``) sources are
  skipped (the scan's ``mediaInfoRead`` reads those);
- ``dropMissing``: items in ``missing`` leave the catalogue now, whatever
  the library's ``missingGraceHours`` (files on disk are never touched).

The first three hand their items to a queue: the attentionAction job
ends at once ``succeeded`` with ``attentionActionQueued`` {action, count,
skipped, failed} and ``relatedJobId``/``relatedKind`` naming the job that
does the work (``scrape:{id}``, or ``localReprobe:{id}``). ``dropMissing``
does its work itself: ``attentionActionRunning`` {action, processed,
total}, then ``attentionActionDone`` {action, done, skipped, failed}
(skipped: found again meanwhile).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import trio

from reelhouse.media.library_options import effective_read_concurrency
from reelhouse.runtime import ActorRef
from reelhouse.storage import Store
from reelhouse.storage.attention import count_in_states, drop_missing, missing_ids, unprobed_remote_count
from reelhouse.storage.catalog import PendingSource, pending_probe_sources
from reelhouse.storage.confined_files import confinement_for
from reelhouse.storage.libraries import LibraryRecord

from ..scan import ScanDeps
from ..scan.probing import probe_sources
from ..scrape.queue import Queued, Requeue
from .job_report import JobReport

Action = Literal["reidentify", "rescrape", "reprobe", "dropMissing"]
ACTIONS: Final[tuple[str, ...]] = ("reidentify", "rescrape", "reprobe", "dropMissing")
STATES: Final[dict[str, tuple[str, ...]]] = {
    "reidentify": ("needsIdentify",),
    "rescrape": ("scrapeFailed", "scrapeNotQueued"),
    "reprobe": ("unprobed",),
    "dropMissing": ("missing",),
}
"""The attention states each action takes its items from."""
SCRAPE_ACTIONS: Final = frozenset({"reidentify", "rescrape"})
REQUEUES: Final[dict[str, tuple[Requeue, ...]]] = {
    "reidentify": (Requeue(("needsIdentify",), mode="replaceAll"),),
    "rescrape": (Requeue(("failed",)), Requeue(("none",), with_nfo=False)),
}
DROP_BATCH: Final = 100


@dataclass(frozen=True, slots=True)
class AttentionWork:
    library: LibraryRecord
    action: str
    item_ids: tuple[str, ...] | None


async def hand_to_scrape_queue(job: JobReport, work: AttentionWork, queue: ActorRef) -> None:
    """reidentify / rescrape: the items queued for the scrape queue (job ``scrape:{id}``)."""
    queued, skipped = 0, 0
    for request in REQUEUES[work.action]:
        if work.item_ids is not None:
            request = Requeue(request.states, mode=request.mode, with_nfo=request.with_nfo, item_ids=work.item_ids)
        answer: Queued = await queue.ask(request)
        queued, skipped = queued + answer.queued, skipped + answer.skipped
    await job.finish("succeeded", **queued_fields(work, queued, skipped, f"scrape:{work.library.id}", "scrape"))


async def hand_to_reprobe(job: JobReport, work: AttentionWork, store: Store,
                          start_reprobe: Callable[[], Awaitable[int]]) -> None:
    """reprobe: the local sources handed to the ``localReprobe`` job (remote ones skipped)."""
    skipped = await unprobed_remote_count(store, work.library.id)
    count = await start_reprobe()
    await job.finish("succeeded", **queued_fields(work, count, skipped, f"localReprobe:{work.library.id}",
                                                  "localReprobe"))


def queued_fields(work: AttentionWork, count: int, skipped: int, related: str, kind: str) -> dict[str, Any]:
    return {"message_code": "attentionActionQueued", "changed": count, "processed": count, "total": count,
            "message_params": {"action": work.action, "count": count, "skipped": skipped, "failed": 0},
            "related_job_id": related, "related_kind": kind,
            "message": f"{count} items handed to {related}; {skipped} skipped."}


async def drop_missing_items(job: JobReport, work: AttentionWork, store: Store) -> None:
    """dropMissing: delete the missing items in batches, reporting as it goes."""
    ids = await missing_ids(store, work.library.id, work.item_ids)
    done = 0
    job.progress(force=True, processed=0, total=len(ids), **running(work, 0, len(ids)))
    for start in range(0, len(ids), DROP_BATCH):
        batch = ids[start:start + DROP_BATCH]
        done += await drop_missing(store, work.library.id, batch)
        processed = start + len(batch)
        job.progress(processed=processed, changed=done, **running(work, processed, len(ids)))
        await trio.lowlevel.checkpoint()
    skipped = max(len(ids) - done, 0)
    params = {"action": work.action, "done": done, "skipped": skipped, "failed": 0}
    await job.finish("succeeded", processed=len(ids), changed=done, message_code="attentionActionDone",
                     message_params=params, message=f"{done} missing items removed from the catalogue.")


def running(work: AttentionWork, processed: int, total: int) -> dict[str, Any]:
    return {"message_code": "attentionActionRunning",
            "message_params": {"action": work.action, "processed": processed, "total": total},
            "message": f"{work.action}: {processed} of {total}."}


async def count_for(store: Store, work: AttentionWork) -> int:
    """How many items the action would take now."""
    return await count_in_states(store, work.library.id, STATES[work.action], work.item_ids)


async def reprobe_sources(store: Store, library_id: str, item_ids: Sequence[str] | None) -> list[PendingSource]:
    """The local sources of the library's unprobed items (only ``item_ids``' when given)."""
    sources = await pending_probe_sources(store, library_id)
    if item_ids is not None:
        wanted = set(item_ids)
        sources = [source for source in sources if source.item_id in wanted]
    return sources


async def local_reprobe(job: JobReport, store: Store, library: LibraryRecord, sources: Sequence[PendingSource],
                        deps: ScanDeps, *, data_dir: str, global_probe_limit: int) -> None:
    """The ``localReprobe`` job: probe ``sources`` again (results written as they come)."""
    job.progress(force=True, processed=0, total=len(sources))

    def report(done: int, total: int) -> None:
        job.progress(processed=done, total=total)

    within = await trio.to_thread.run_sync(confinement_for, library.paths, data_dir)
    concurrency = effective_read_concurrency(library.options, global_probe_limit=global_probe_limit)
    count = await probe_sources(store, sources, deps, read_concurrency=concurrency, on_progress=report,
                                within=within)
    await job.finish("succeeded", processed=count, total=len(sources), changed=count,
                     message=f"{count} files probed again.")
