"""What GET /metrics reads of the server at each scrape: actors asked, the store read, counters copied.

Each part is gathered on its own: an actor that does not answer in time
(restarting, stopping) leaves its figures out of that scrape rather than
failing it. Nothing here is a path, a name or an id: only counts.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import trio

from reelhouse import errors
from reelhouse.actors.jobs import ListJobs
from reelhouse.actors.playback.messages import ListSessions
from reelhouse.storage import PoolUsage, StoreError
from reelhouse.storage.scrape_queue import count_all_pending

from .asks import ask
from .context import AppContext
from .scans import all_scan_statuses

# A scrape is answered within Prometheus' default timeout (10 s) even when an actor hangs.
PART_SECONDS = 3.0


@dataclass
class ScanFigures:
    running: int = 0
    files_per_second: float = 0.0
    processed: int = 0  # files of the running scans
    errors: int = 0  # errors of the running scans


@dataclass
class ServerSnapshot:
    scans: ScanFigures | None = None
    jobs: dict[str, int] | None = None  # by state
    scrape_pending: int | None = None
    playback_sessions: int | None = None
    event_subscribers: int = 0
    events_refused: int = 0
    subscribers_dropped: int = 0
    pools: list[PoolUsage] = field(default_factory=list)
    loop_lag_seconds: float | None = None
    loop_stalls: int | None = None


async def take_snapshot(ctx: AppContext) -> ServerSnapshot:
    snapshot = ServerSnapshot(pools=ctx.store.pool_usage())
    bus = ctx.actors.bus
    snapshot.event_subscribers, snapshot.events_refused = bus.subscriber_count, bus.dropped_count
    snapshot.subscribers_dropped = bus.dropped_subscribers
    if ctx.watchdog is not None:
        snapshot.loop_lag_seconds, snapshot.loop_stalls = ctx.watchdog.take_recent_max(), ctx.watchdog.stalls
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_scans, ctx, snapshot)
        nursery.start_soon(_jobs, ctx, snapshot)
        nursery.start_soon(_scrape_queue, ctx, snapshot)
        nursery.start_soon(_playback, ctx, snapshot)
    return snapshot


async def _scans(ctx: AppContext, snapshot: ServerSnapshot) -> None:
    with trio.move_on_after(PART_SECONDS):
        try:
            statuses = await all_scan_statuses(ctx.actors.libraries, ctx.settings.http.ask_timeout_seconds)
        except errors.Unavailable:
            return
        figures = ScanFigures()
        now_ms = time.time() * 1000
        for status in statuses:
            if not status.active:
                continue
            figures.running += 1
            figures.processed += status.processed
            figures.errors += status.errors
            if status.started_at_ms is not None and now_ms > status.started_at_ms:
                figures.files_per_second += status.processed / ((now_ms - status.started_at_ms) / 1000)
        snapshot.scans = figures


async def _jobs(ctx: AppContext, snapshot: ServerSnapshot) -> None:
    with trio.move_on_after(PART_SECONDS):
        try:
            jobs = await ask(ctx.actors.jobs, ListJobs(), timeout=PART_SECONDS)
        except errors.Unavailable:
            return
        snapshot.jobs = dict(Counter(str(job.get("state")) for job in jobs))


async def _scrape_queue(ctx: AppContext, snapshot: ServerSnapshot) -> None:
    with trio.move_on_after(PART_SECONDS):
        try:
            snapshot.scrape_pending = await count_all_pending(ctx.store)
        except StoreError:
            return


async def _playback(ctx: AppContext, snapshot: ServerSnapshot) -> None:
    if ctx.actors.playback is None:
        return
    with trio.move_on_after(PART_SECONDS):
        try:
            sessions = await ask(ctx.actors.playback, ListSessions(), timeout=PART_SECONDS)
        except errors.Unavailable:
            return
        snapshot.playback_sessions = len(sessions)
