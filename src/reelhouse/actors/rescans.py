"""Rescans of single directories, outside the library's ScanStatus.

POST /items/{id}/rescan "updates changes without a library scan": its
LibraryActor queues the item's directory here. The rescan runs the scan
pipeline on just those directories, after (never beside) any scan of the
library (they share the library's pipeline lock), and shows no status,
event or job of its own: the library's ScanStatus stays the last scan's.
Directories queued while one rescan runs are rescanned together next.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from reelhouse.storage import Store
from reelhouse.storage.libraries import LibraryRecord

from .scan import ScanDeps, ScanOutcome, ScanPlan, ScanProgress, run_scan

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RescanDirectories:
    """Ask (to a LibraryActor): rescan these directories; replies at once."""

    dirs: tuple[str, ...]


class DirectoryRescans:
    """The queue of one library's rescans; ``lock`` is its pipeline lock."""

    def __init__(self, lock: trio.Lock, rescan: Callable[[tuple[str, ...]], Awaitable[None]]) -> None:
        self._lock = lock
        self._rescan = rescan
        self._queued: set[str] = set()
        self._running = False

    def queue(self, nursery: trio.Nursery, dirs: tuple[str, ...]) -> None:
        self._queued.update(dirs)
        if not self._running:
            self._running = True
            nursery.start_soon(self._run)

    async def _run(self) -> None:
        try:
            while self._queued:
                async with self._lock:
                    dirs, self._queued = tuple(sorted(self._queued)), set()
                    await self._rescan(dirs)
        finally:
            self._running = False


async def rescan_directories(
    record: LibraryRecord, store: Store, deps: ScanDeps, dirs: tuple[str, ...], data_dir: str | None = None
) -> ScanOutcome | None:
    """Scan ``dirs`` of the library (every file, as a full scan would); None when it failed (logged)."""
    plan = ScanPlan(
        library_id=record.id,
        collection_type=record.collection_type,
        roots=record.paths,
        mode="full",
        options=record.options,
        only_dirs=dirs,
        data_dir=data_dir,
    )
    try:
        outcome = await run_scan(plan, store, ScanProgress(), deps)
    except Exception:  # the next rescan or scan tries again
        log.exception("rescan of %s in library %s failed", ", ".join(dirs), record.id)
        return None
    if outcome.mass_missing_paused:
        # Not held for confirmation: ScanStatus does not show a rescan, so
        # the next library scan weighs these again, where an admin sees it.
        log.warning("rescan of library %s left %d items unmarked (mass-missing safeguard)",
                    record.id, len(outcome.held_missing))  # fmt: skip
    return outcome
