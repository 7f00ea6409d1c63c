"""database_maintenance, cleanup and scrape: the tasks that keep the server tidy.

``database_maintenance`` runs in a child process at low CPU priority
(``reelhouse.process.maintenance_process``): in a thread it took the GIL and a core
from the event loop.  ``cleanup`` removes, in seven steps: missing items
past their library's ``missingGraceHours``; scan errors, finished jobs,
play history addresses and activity entries past their ``[schedule]``
retention; collages of deleted libraries and temporary files a crash left
in the image cache (older than an hour); provider images no row names any
more (``provider_image_sweep``).  ``scrape`` wakes every library's queue.
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from reelhouse import errors
from reelhouse.process.maintenance_process import optimize_in_child
from reelhouse.runtime import ActorError
from reelhouse.storage import StoreError
from reelhouse.storage.activity import purge_activity
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR
from reelhouse.storage.jobs import purge_finished_jobs
from reelhouse.storage.maintenance import (
    MaintenanceError,
    clear_history_addresses,
    count_queued_for_scrape,
    library_ids,
    missing_grace_by_library,
    purge_missing_items,
    purge_scan_errors,
)

from ..library import GetScrapeQueue
from ..library_registry import ListLibraryRefs
from ..scan.covers import COVERS_DIR
from ..schedule import RunEnd, TaskContext
from ..scrape.queue import WakeQueue
from .provider_image_sweep import sweep_provider_images

HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS
TEMP_SUFFIX = ".tmp"
STALE_TEMP_MS = HOUR_MS  # a temporary file older than this was left by a crash
WAKE_TIMEOUT_SECONDS = 10.0


async def run_database_maintenance(ctx: TaskContext) -> RunEnd:
    if ctx.settings is None:
        return RunEnd("skipped", message="No database to maintain.")
    ctx.progress(processed=0, total=1, current="optimize")
    try:
        report = await optimize_in_child(ctx.settings.effective_database_url)
    except MaintenanceError as exc:
        return RunEnd("failed", "unknown", message=str(exc))
    ctx.progress(processed=1, current=None, changed=len(report.steps))
    return RunEnd("succeeded", message=", ".join(report.steps))


async def run_cleanup(ctx: TaskContext) -> RunEnd:
    """Purge what has outlived its retention; each step counts one unit of progress."""
    settings, now = ctx.settings, ctx.now_ms()
    schedule = settings.schedule if settings is not None else None
    removed = 0
    ctx.progress(processed=0, total=7)
    for library_id, grace_hours in sorted((await missing_grace_by_library(ctx.store)).items()):
        if grace_hours > 0:
            removed += await purge_missing_items(ctx.store, library_id, missing_before_ms=now - grace_hours * HOUR_MS)
    ctx.progress(processed=1, changed=removed)
    if schedule is not None:
        removed += await purge_scan_errors(ctx.store, before_ms=now - int(schedule.scan_error_retention_days * DAY_MS))
        ctx.progress(processed=2, changed=removed)
        removed += await purge_finished_jobs(ctx.store,
                                             finished_before_ms=now - int(schedule.job_retention_hours * HOUR_MS))
        ctx.progress(processed=3, changed=removed)
        try:
            removed += await clear_history_addresses(
                ctx.store, before_ms=now - int(schedule.history_ip_retention_days * DAY_MS))
        except StoreError:
            pass  # no play history table on an older schema: nothing to clear
        ctx.progress(processed=4, changed=removed)
        removed += await purge_activity(ctx.store, before_ms=now - int(schedule.activity_retention_days * DAY_MS))
        ctx.progress(processed=5, changed=removed)
    if settings is not None:
        known = await library_ids(ctx.store)
        removed += await trio.to_thread.run_sync(_remove_orphaned_files, settings.data_dir, known, now)
        ctx.progress(processed=6, changed=removed)
        removed += await sweep_provider_images(ctx.store, settings.data_dir, now)
    ctx.progress(processed=7, changed=removed)
    return RunEnd("succeeded" if removed else "skipped", message=f"{removed} removed.")


def _remove_orphaned_files(data_dir: Path, libraries: set[str], now_ms: int) -> int:
    """Collages of deleted libraries and temporary files a crash left in the image cache."""
    removed = 0
    covers = data_dir / COVERS_DIR
    if covers.is_dir():
        for path in covers.iterdir():
            if path.suffix == ".jpg" and path.name.rsplit("-", 1)[0] not in libraries:
                path.unlink(missing_ok=True)
                removed += 1
    cache = data_dir / IMAGE_CACHE_DIR
    if cache.is_dir():
        for folder, _dirs, files in os.walk(cache):
            for name in files:
                path = Path(folder) / name
                if name.endswith(TEMP_SUFFIX) and now_ms - path.stat().st_mtime * 1000 > STALE_TEMP_MS:
                    path.unlink(missing_ok=True)
                    removed += 1
    return removed


async def run_scrape(ctx: TaskContext) -> RunEnd:
    """Wake every library's scrape queue (each works through its own
    ``pending`` items as the job ``scrape:{libraryId}``). Without libraries
    served (no actor tree) the queue is left as it is and the job says so."""
    await ctx.yield_while_playing()
    queued = await _queued_for_scrape(ctx)
    if ctx.libraries is None:
        ctx.progress(processed=0, total=queued, cancellable=False, message_code="noProvider",
                     message="No metadata provider is installed; the scrape queue waits.")
        return RunEnd("skipped", message="No metadata provider is installed.")
    if queued == 0:
        # "skipped" makes a continuous rule wait its long pause: a run that
        # succeeded every 5 s wrote a job row each time, and every write
        # moves the store's data version, which the edge's caches check.
        ctx.progress(processed=0, total=0, cancellable=False)
        return RunEnd("skipped", message="Nothing waits for a provider.")
    refs = await ctx.libraries.ask(ListLibraryRefs(), timeout=WAKE_TIMEOUT_SECONDS)
    woken = []
    for library_id, ref in sorted(refs.items()):
        try:
            queue = await ref.ask(GetScrapeQueue(), timeout=WAKE_TIMEOUT_SECONDS)
            await queue.tell(WakeQueue())
        except (errors.DomainError, ActorError):
            continue  # a library being deleted or restarted: its queue wakes on start
        woken.append(library_id)
    if len(woken) == 1:
        ctx.progress(related_job_id=f"scrape:{woken[0]}", related_kind="scrape")
    ctx.progress(processed=0, total=queued, cancellable=False)
    return RunEnd("succeeded", message=f"{queued} items wait for a provider; {len(woken)} queues woken.")


async def _queued_for_scrape(ctx: TaskContext) -> int:
    try:
        return await count_queued_for_scrape(ctx.store)
    except StoreError:
        return 0
