"""Media info: probes in the probe workers, bounded per library and server-wide.

A scan (and the background mediaInfoRead job) probes its pending local
files in batches of :data:`BATCH` through a :class:`~.probe_pool.ProbePool`
(``ScanDeps.probe_pool``: the server's long-lived workers; without one, a
pool is opened for the call). Concurrency is bounded twice, as it always
was: by the library's read concurrency (the number of lanes) and by the
server-wide probe limiter every library shares (``ScanDeps.probe_limiter``),
held per batch. A file that cannot be read keeps its item with a
ProbeFailure and no media info; a file that hangs or crashes a worker
costs that file a ``timeout`` or ``invalid`` failure, not the scan. A file
that resolves outside the library's roots by the time it is probed
(``within``: :mod:`reelhouse.media.containment`) is never handed to a
worker: it is recorded ``permission_denied``.

Results are written by a writer task, up to :data:`FLUSH_EVERY` per
transaction (the lanes never wait for the database), so a cancelled probe
run keeps what was written and the rest stays pending.
``on_progress(done, total)`` is called as each file is answered. Remote
sources (``.strm``) are never probed here; whoever reads them later must
check every hop with
:func:`reelhouse.media.remote_targets.remote_target_allowed`.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import trio

from reelhouse.media.containment import Confinement
from reelhouse.media.file_names import to_fs
from reelhouse.media.probe import ProbeFailure
from reelhouse.storage import Store, now_ms
from reelhouse.storage.catalog import PendingSource, ProbeOutcomeRow, pending_probe_sources, save_probe_results
from reelhouse.storage.confined_files import resolves_inside

from .probe_pool import DEFAULT_COMMAND, Probed, ProbePool, open_probe_pool

FLUSH_EVERY = 256  # probe results per write transaction, at most...
FLUSH_WAIT_S = 0.2  # ...or those that came within this long
BATCH = 64  # paths per request to a worker (and per hold of the limiter)
OUTSIDE_ROOTS = Probed(
    failure=ProbeFailure.PERMISSION_DENIED, message="The file resolves outside the library's folders."
)

__all__ = ["BATCH", "FLUSH_EVERY", "Probed", "ScanDeps", "probe_pending_sources", "probe_sources"]


@dataclass(frozen=True, slots=True)
class ScanDeps:
    """What a scan needs from the server.

    ``probe_limiter`` is the server-wide probe limit (config
    ``scan.probe_concurrency``); ``probe_pool`` the server's probe workers
    (None: each probe run opens its own, with ``probe_command`` as the
    worker's command line); ``probe_timeout`` how long one file may take;
    ``thread_limiter`` bounds the worker threads that walk and parse, for
    every scan given these deps (default: one thread); ``parse_processes``
    the child processes big scans may parse in (see ``parser_process``;
    None: every scan parses in threads).
    """

    probe_limiter: trio.CapacityLimiter
    probe_pool: ProbePool | None = None
    probe_command: tuple[str, ...] = DEFAULT_COMMAND
    probe_timeout: float = 30.0
    thread_limiter: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(1))
    parse_processes: trio.CapacityLimiter | None = None


@asynccontextmanager
async def _pool(deps: ScanDeps) -> AsyncIterator[ProbePool]:
    if deps.probe_pool is not None:
        yield deps.probe_pool
        return
    slots = int(deps.probe_limiter.total_tokens)
    async with open_probe_pool(slots, timeout=deps.probe_timeout, command=deps.probe_command) as pool:
        yield pool


def _inside(batch: Sequence[PendingSource], within: Confinement | None) -> list[bool]:
    """Which files of ``batch`` resolve inside ``within`` now (blocking: a worker thread)."""
    if within is None:
        return [True] * len(batch)
    return [resolves_inside(to_fs(source.path), within) for source in batch]


async def probe_sources(
    store: Store,
    sources: Sequence[PendingSource],
    deps: ScanDeps,
    *,
    read_concurrency: int,
    on_progress: Callable[[int, int], None] | None = None,
    within: Confinement | None = None,
) -> int:
    """Probe ``sources`` in ``read_concurrency`` lanes; returns how many were probed.

    Lanes never wait for the database: a writer task saves the outcomes
    as they come. Raises StoreError when results cannot be written.
    """
    total = len(sources)
    pending: Iterator[PendingSource] = iter(sources)
    send, receive = trio.open_memory_channel[ProbeOutcomeRow](math.inf)  # at most ``total``
    count = 0

    async def lane(pool: ProbePool) -> None:
        while batch := [source for _, source in zip(range(BATCH), pending, strict=False)]:

            def answered(i: int, probed: Probed, batch: list[PendingSource] = batch) -> None:
                nonlocal count
                send.send_nowait(ProbeOutcomeRow(batch[i], now_ms(), probed.result, probed.failure))
                count += 1
                if on_progress is not None:
                    on_progress(count, total)

            async with deps.probe_limiter:
                allowed = await trio.to_thread.run_sync(_inside, batch, within)
                for i, ok in enumerate(allowed):
                    if not ok:
                        answered(i, OUTSIDE_ROOTS)
                inside = [i for i, ok in enumerate(allowed) if ok]
                # Workers get the os form (path text -> the name on disk).

                def answer_inside(j: int, probed: Probed, inside: list[int] = inside) -> None:
                    answered(inside[j], probed)

                await pool.probe([to_fs(batch[i].path) for i in inside], answer_inside)

    async def lanes(pool: ProbePool) -> None:
        async with send, trio.open_nursery() as nursery:
            for _ in range(max(1, min(read_concurrency, total))):
                nursery.start_soon(lane, pool)

    if total:
        async with _pool(deps) as pool, trio.open_nursery() as nursery:
            nursery.start_soon(_write_outcomes, store, receive)
            await lanes(pool)
    return count


async def _write_outcomes(store: Store, receive: trio.MemoryReceiveChannel[ProbeOutcomeRow]) -> None:
    """Save outcomes until the lanes are done: up to FLUSH_EVERY per transaction,
    or what came within FLUSH_WAIT_S of the first."""
    async with receive:
        async for first in receive:
            batch = [first]
            with trio.move_on_after(FLUSH_WAIT_S):
                while len(batch) < FLUSH_EVERY:
                    try:
                        batch.append(await receive.receive())
                    except trio.EndOfChannel:
                        break
            await save_probe_results(store, batch)


async def probe_pending_sources(
    store: Store,
    library_id: str,
    deps: ScanDeps,
    *,
    read_concurrency: int,
    on_progress: Callable[[int, int], None] | None = None,
    within: Confinement | None = None,
) -> int:
    """The background mediaInfoRead job: probe every source a scan left pending.

    Returns how many sources were probed (failures included). Cancellation
    keeps the results already written; the rest stays pending. Raises
    StoreError.
    """
    sources = await pending_probe_sources(store, library_id)
    return await probe_sources(
        store, sources, deps, read_concurrency=read_concurrency, on_progress=on_progress, within=within
    )
