"""One scan of a library: check roots -> walk -> parse -> write -> probe -> finish.

:func:`run_scan` is the body of a ScanActor. The file system work (walk,
parse, reading NFOs and images) runs in worker threads, or for a big scan
in a child process (``parser_process``), many directories per hop, so the
event loop never blocks and cancellation is honoured between hops. Parsing
runs ahead of the writing by a batch (in a child, by what its pipes hold);
each batch is one transaction, so a cancelled scan leaves a consistent
catalogue.

Only a scan that got to the end marks anything missing: items it did not
see (files removed, or now excluded), except under an offline root, an
unreadable directory, or, for a scan of ``only_dirs``, outside those
directories. When that would be more than ``massMissingThreshold`` of the
library's present items, nothing is marked (``mass_missing_paused``,
``missing`` is the would-be count, ``held_missing`` the ids an admin may
confirm) and directory times are not stored, so the next scan weighs the
same changes again. Items missing for longer
than ``missingGraceHours`` are then purged.

Media info follows the effective ``mediaInfoTiming``: ``scan`` probes new
and changed local files after they are written (phase ``write``);
``background`` leaves them pending for :func:`probe_pending_sources`;
``playback`` never marks them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import trio

from reelhouse.media.assembly import ScanRules
from reelhouse.media.containment import Confinement
from reelhouse.media.library_options import (
    LibraryOptions,
    effective_media_info_timing,
    effective_read_concurrency,
)
from reelhouse.storage import Store, background_reads, now_ms
from reelhouse.storage.catalog import (
    ScanIndex,
    count_probe_pending,
    load_local_images,
    load_scan_index,
    mark_missing,
    pending_probe_sources,
    purge_missing,
    relist_directories,
    save_scan_dirs,
    write_batch,
)
from reelhouse.storage.confined_files import confinement_for

from .parse import walk_error_rows
from .parser_process import ParsedRows, ParserSetup, ScanParser, listed_files, open_parser
from .probing import ScanDeps, probe_sources
from .roots import RootState, check_roots
from .walk import DirVisit, Walker, WalkError, WalkStart

WALK_MAX_DIRS = 1024  # directories per walk hop...
WALK_MAX_SECONDS = 0.05  # ...or about this long
PARSE_MAX_FILES = 1200  # listed files per parse hop (a few hundred items per write)
PARSE_MAX_DIRS = 4000  # directories per parse hop (unchanged ones cost little)
WRITE_QUEUE = 1  # parsed batches waiting for the writer
WARM_PROBES_MIN_FILES = 200  # listed files from which a probing scan starts its probe workers early
MS_PER_HOUR = 3_600_000


@dataclass(frozen=True, slots=True)
class ScanPlan:
    library_id: str
    collection_type: str  # movies, tvshows, mixed
    roots: tuple[str, ...]  # absolute root directories
    mode: Literal["quick", "full"]  # quick: directory mtimes; full: every file's size and mtime
    options: LibraryOptions
    only_dirs: tuple[str, ...] | None = None  # rescan just these directories (and below)
    rewrite: bool = False  # rescan every directory as if changed (after externalAudio changed)
    data_dir: str | None = None  # the server's data directory: never walked nor read


@dataclass
class ScanProgress:
    """Mutated by the scan, read by its actor (same task tree, no locks)."""

    phase: str = "walk"  # walk, parse, write
    processed: int = 0  # directories processed, then also files probed (phase write)
    total: int | None = None  # directories known so far (grows while walking), then plus files to probe
    added: int = 0
    changed: int = 0
    missing: int = 0
    errors: int = 0
    current_dir: str | None = None
    current_path: str | None = None
    roots: list[RootState] = field(default_factory=list)
    mass_missing_paused: bool = False
    held_missing: list[str] = field(default_factory=list)  # what the safeguard kept from being marked


@dataclass(frozen=True, slots=True)
class ScanOutcome:
    added: int
    changed: int
    missing: int
    errors: int
    processed: int
    roots: tuple[RootState, ...]
    mass_missing_paused: bool
    probe_pending: int  # sources left for a background mediaInfoRead job
    held_missing: tuple[str, ...] = ()  # item ids an admin may confirm missing (POST .../confirm-missing)


@dataclass(frozen=True, slots=True)
class _Scope:
    """Where this scan looks, and where it must not conclude anything."""

    starts: tuple[WalkStart, ...]
    within: tuple[str, ...] | None  # only_dirs scans: only items below these
    protected: tuple[str, ...]  # offline roots, unreadable directories

    def decides(self, path: str | None) -> bool:
        """Whether the scan may turn an item at ``path`` missing."""
        if path is None:
            return False
        if self.within is not None and not any(_under(path, d) for d in self.within):
            return False
        return not any(_under(path, p) for p in self.protected)


async def run_scan(plan: ScanPlan, store: Store, progress: ScanProgress, deps: ScanDeps) -> ScanOutcome:
    """Scan ``plan`` into the catalogue, keeping ``progress`` current.

    Raises StoreError when the catalogue cannot be read or written (the
    scan fails; what was written stays). Cancellation stops between hops:
    batches already written stay, nothing is marked missing. Its reads (a
    whole library's index, eight scans at once) take the store's background
    readers: the requests' readers stay free.
    """
    with background_reads():
        return await _run_scan(plan, store, progress, deps)


async def _run_scan(plan: ScanPlan, store: Store, progress: ScanProgress, deps: ScanDeps) -> ScanOutcome:
    limiter = deps.thread_limiter
    rules = ScanRules.from_options(plan.library_id, plan.collection_type, plan.options)
    index = await load_scan_index(store, plan.library_id)
    progress.phase = "walk"
    roots = await check_roots(plan.roots, functools.partial(_has_items, index), limiter=limiter)
    progress.roots = list(roots)
    scope = _scope(plan, roots)
    timing = effective_media_info_timing(plan.options)
    walker = await trio.to_thread.run_sync(_walker, plan, index, scope, rules, limiter=limiter)
    visits, unreadable = await _walk(walker, store, plan.library_id, progress, limiter)
    if any(visit.listing is not None for visit in visits):
        index.images = await load_local_images(store, plan.library_id)
    scope = _Scope(scope.starts, scope.within, scope.protected + tuple(unreadable))
    listed = listed_files(visits)
    if timing == "scan" and deps.probe_pool is not None and listed >= WARM_PROBES_MIN_FILES:
        # Workers start while the scan parses, not when its probes begin.
        global_limit = int(deps.probe_limiter.total_tokens)
        deps.probe_pool.warm(effective_read_concurrency(plan.options, global_probe_limit=global_limit))
    progress.phase = "parse"
    setup = ParserSetup(
        rules, index, plan.rewrite, timing in ("scan", "background"), walker.within, store.backend == "sqlite"
    )
    async with open_parser(
        setup, listed_files=listed, thread_limiter=limiter, process_slots=deps.parse_processes
    ) as parser:
        await _parse_and_write(parser, visits, store, progress)
        seen = await parser.seen_ids()
    progress.phase = "write"
    if timing == "scan":
        await _probe(store, plan, deps, progress, walker.within)
    await _finish(plan, store, index, seen, visits, scope, progress, limiter)
    return ScanOutcome(
        added=progress.added,
        changed=progress.changed,
        missing=progress.missing,
        errors=progress.errors,
        processed=progress.processed,
        roots=tuple(roots),
        mass_missing_paused=progress.mass_missing_paused,
        probe_pending=await count_probe_pending(store, plan.library_id),
        held_missing=tuple(progress.held_missing),
    )


def _walker(plan: ScanPlan, index: ScanIndex, scope: _Scope, rules: ScanRules) -> Walker:
    """Worker thread: the walker, from the stored index."""
    return Walker(
        scope.starts,
        quick=plan.mode == "quick" and not plan.rewrite,
        stored_mtimes={path: d.mtime_ns for path, d in index.dirs.items()},
        stored_children=index.children_of(),
        expand=frozenset(p for p, i in index.folders_by_path().items() if i.type == "Series"),
        within=confinement_for(plan.roots, plan.data_dir),
        stored_signatures=None if plan.rewrite else {path: d.signature for path, d in index.dirs.items()},
        salt=_rules_salt(plan, rules),
        dirty=_dirty_dirs(index),
    )


def _rules_salt(plan: ScanPlan, rules: ScanRules) -> str:
    """Every setting that changes what parsing a listing yields, exclusions included."""
    options = plan.options
    return repr((
        rules.signature, plan.collection_type, tuple(options.exclude_keywords),
        tuple(options.exclude_extensions), options.exclude_smaller_than_bytes,
    ))  # fmt: skip


def _dirty_dirs(index: ScanIndex) -> set[str]:
    """Directories a full scan parses even when unchanged: those holding a
    missing item (its file may be there, as after a flaky mount)."""
    dirty: set[str] = set()
    for item in index.items.values():
        if item.missing:
            dirty.update(p for p in (item.path, item.dir_path) if p is not None)
    return dirty


def _has_items(index: ScanIndex, root: str) -> bool:
    return any(
        not item.missing and _under(item.path or item.dir_path or "", root) for item in index.items.values()
    )


def _scope(plan: ScanPlan, roots: Sequence[RootState]) -> _Scope:
    online = [r.path for r in roots if r.online]
    offline = tuple(r.path for r in roots if not r.online)
    if plan.only_dirs is None:
        return _Scope(tuple(WalkStart(r) for r in online), None, offline)
    starts: list[WalkStart] = []
    within: list[str] = []
    for directory in plan.only_dirs:
        root = next((r for r in plan.roots if _under(directory, r)), None)
        if root is None:
            continue  # outside the library: nothing to decide there
        within.append(directory)
        if root in online:
            starts.append(WalkStart(root, directory[len(root) :].strip("/"), forced=True))
    return _Scope(tuple(starts), tuple(within), offline)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


async def _walk(
    walker: Walker, store: Store, library_id: str, progress: ScanProgress, limiter: trio.CapacityLimiter
) -> tuple[list[DirVisit], list[str]]:
    visits: list[DirVisit] = []
    errors: list[WalkError] = []
    unreadable: list[str] = []
    step = functools.partial(walker.step, max_dirs=WALK_MAX_DIRS, max_seconds=WALK_MAX_SECONDS)
    while True:
        done = await trio.to_thread.run_sync(step, limiter=limiter)
        visits.extend(done.visits)
        errors.extend(done.errors)
        unreadable.extend(done.unreadable)
        progress.total = len(visits) + done.pending
        if done.visits:
            progress.current_dir = done.visits[-1].path
        if done.done:
            break
    if errors:
        await write_batch(store, library_id, (), walk_error_rows(errors), now_ms=now_ms())
        progress.errors += len(errors)
    return visits, unreadable


def _chunks(visits: list[DirVisit]) -> Iterator[list[DirVisit]]:
    chunk: list[DirVisit] = []
    files = 0
    for visit in visits:
        chunk.append(visit)
        files += len(visit.listing.files) if visit.listing is not None else 0
        if files >= PARSE_MAX_FILES or len(chunk) >= PARSE_MAX_DIRS:
            yield chunk
            chunk, files = [], 0
    if chunk:
        yield chunk


async def _parse_and_write(
    parser: ScanParser, visits: list[DirVisit], store: Store, progress: ScanProgress
) -> None:
    send, receive = trio.open_memory_channel[ParsedRows](WRITE_QUEUE)

    async def writer() -> None:
        async with receive:
            async for rows in receive:
                progress.processed += rows.processed
                progress.current_dir = rows.current_dir or progress.current_dir
                progress.current_path = rows.current_path or progress.current_path
                if rows.statements:
                    await store.transaction(rows.statements)
                progress.added += rows.added
                progress.changed += rows.changed
                progress.errors += rows.errors

    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer)
        async with send:
            await parser.parse_all(_chunks(visits), send)


async def _probe(store: Store, plan: ScanPlan, deps: ScanDeps, progress: ScanProgress, within: Confinement) -> None:
    """Probe what the scan marked; each file probed counts in ``processed``.

    The files to probe are added to ``total`` when the phase starts, so
    ``processed`` keeps growing towards ``total`` instead of standing at
    the directory count for the whole phase.
    """
    concurrency = effective_read_concurrency(plan.options, global_probe_limit=int(deps.probe_limiter.total_tokens))
    sources = await pending_probe_sources(store, plan.library_id)
    directories = progress.processed
    progress.total = max(progress.total or 0, directories) + len(sources)

    def probed(done: int, _total: int) -> None:
        progress.processed = directories + done

    await probe_sources(store, sources, deps, read_concurrency=concurrency, on_progress=probed, within=within)


async def _finish(
    plan: ScanPlan,
    store: Store,
    index: ScanIndex,
    seen: set[str],
    visits: list[DirVisit],
    scope: _Scope,
    progress: ScanProgress,
    limiter: trio.CapacityLimiter,
) -> None:
    """Missing marks (with the safeguard), directory times, purge."""
    work = functools.partial(_conclusions, plan, index, seen, visits, scope)
    gone, present, (seen_dirs, gone_dirs) = await trio.to_thread.run_sync(work, limiter=limiter)
    progress.missing = len(gone)
    threshold = plan.options.mass_missing_threshold
    if threshold < 1 and len(gone) > threshold * present:
        progress.mass_missing_paused = True
        progress.held_missing = gone
    else:
        await mark_missing(store, gone, now_ms=now_ms())
        await save_scan_dirs(store, plan.library_id, seen_dirs, gone_dirs)
    grace_ms = max(0, plan.options.missing_grace_hours) * MS_PER_HOUR
    purged = await purge_missing(store, plan.library_id, missing_before_ms=now_ms() - grace_ms)
    if purged:
        below = await trio.to_thread.run_sync(_below, index, purged, limiter=limiter)
        await relist_directories(store, plan.library_id, below)


def _below(index: ScanIndex, folders: list[str]) -> list[str]:
    """``folders`` and every stored directory below them."""
    wanted = set(folders)
    found = list(wanted)
    for path in index.dirs:
        parent = path
        while parent and parent not in wanted:
            parent = parent.rpartition("/")[0]
        if parent and path not in wanted:
            found.append(path)
    return found


_DirTimes = tuple[list[tuple[str, str | None, int, str | None]], list[str]]


def _conclusions(
    plan: ScanPlan, index: ScanIndex, seen: set[str], visits: list[DirVisit], scope: _Scope
) -> tuple[list[str], int, _DirTimes]:
    """Worker thread: items not seen, present items, directory times."""
    return _unseen(index, seen, scope), index.present_count(), _directory_times(plan, index, visits, scope)


def _unseen(index: ScanIndex, seen: set[str], scope: _Scope) -> list[str]:
    return [
        item.id
        for item in index.items.values()
        if not item.missing and item.id not in seen and scope.decides(item.path or item.dir_path)
    ]


def _directory_times(plan: ScanPlan, index: ScanIndex, visits: list[DirVisit], scope: _Scope) -> _DirTimes:
    """Listed directories with their times and signatures, and stored ones that are gone."""
    roots = set(plan.roots)
    listed = [
        (v.path, None if v.path in roots else (v.parent or os.path.dirname(v.path)), v.mtime_ns, v.signature)
        for v in visits
        if v.listing is not None
    ]
    visited = {v.path for v in visits}
    gone = [path for path in index.dirs if path not in visited and scope.decides(path)]
    return listed, gone
