"""library_scan, library_full_scan and metadata_refresh: scans of every library, through its LibraryActor.

A library whose scans are suspended is left out; one already scanning is
skipped, not failed. The run waits for the scans it started and fails
with ``scan_failed`` (and the libraries) when any of them failed, else
with ``library_root_unavailable`` when one ended with a folder offline.
Cancelling the run cancels the scans it started.
"""

from __future__ import annotations

import trio

from reelhouse import errors
from reelhouse.runtime import ActorError, ActorRef
from reelhouse.storage.libraries import list_libraries

from ..library import GetScanStatus, StartScan, StopScan
from ..library_registry import ListLibraryRefs
from ..schedule import RunEnd, TaskContext

ASK_TIMEOUT_SECONDS = 10.0
POLL_SECONDS = 1.0
STOP_TIMEOUT_SECONDS = 5.0


async def run_quick_scans(ctx: TaskContext) -> RunEnd:
    return await scan_libraries(ctx, "quick")


async def run_full_scans(ctx: TaskContext) -> RunEnd:
    return await scan_libraries(ctx, "full")


async def run_metadata_refresh(ctx: TaskContext) -> RunEnd:
    """Read every NFO file and local image again: a full scan that ignores
    fingerprints, so unchanged items are written again from their files."""
    return await scan_libraries(ctx, "full", rewrite=True)


async def scan_libraries(ctx: TaskContext, mode: str, *, rewrite: bool = False) -> RunEnd:
    if ctx.libraries is None:
        return RunEnd("skipped", message="No libraries are served.")
    refs: dict[str, ActorRef] = await ctx.libraries.ask(ListLibraryRefs(), timeout=ASK_TIMEOUT_SECONDS)
    records = await list_libraries(ctx.store)
    eligible = sorted(r.id for r in records if r.id in refs and not r.options.scans_suspended)
    started: list[str] = []
    for library_id in eligible:
        try:
            await refs[library_id].ask(StartScan(mode=mode, rewrite=rewrite, trigger="schedule"),
                                       timeout=ASK_TIMEOUT_SECONDS)
        except (errors.Conflict, errors.NotFound, ActorError):
            continue  # already scanning (or just deleted): skipped, not failed
        started.append(library_id)
    if not started:
        return RunEnd("skipped", message="No library to scan.")
    ctx.progress(processed=0, total=len(started), current=None)
    if len(started) == 1:  # the work is that one scan's job
        ctx.progress(related_job_id=f"scan:{started[0]}", related_kind="scan")
    try:
        failed, offline = await _wait_for(ctx, {i: refs[i] for i in started})
    except trio.Cancelled:
        with trio.CancelScope(shield=True), trio.move_on_after(STOP_TIMEOUT_SECONDS):
            await _stop(refs, started)
        raise
    if failed:
        return RunEnd("failed", "scan_failed", tuple(sorted(failed)), f"{len(failed)} scan(s) failed.")
    if offline:
        return RunEnd("failed", "library_root_unavailable", tuple(sorted(offline)),
                      f"{len(offline)} library(ies) had a folder offline.")
    return RunEnd("succeeded")


async def _wait_for(ctx: TaskContext, scans: dict[str, ActorRef]) -> tuple[list[str], list[str]]:
    """Poll the libraries until every scan ended; the ids of those that failed,
    and of those that ended with a root offline (their items were kept)."""
    running, failed, offline = dict(scans), [], []
    while running:
        for library_id, ref in list(running.items()):
            try:
                status = await ref.ask(GetScanStatus(), timeout=ASK_TIMEOUT_SECONDS)
            except ActorError:
                running.pop(library_id)  # the library went away
                continue
            if not status.active:
                running.pop(library_id)
                if status.state == "failed":
                    failed.append(library_id)
                elif any(not root.online for root in status.roots):
                    offline.append(library_id)
        ctx.progress(processed=len(scans) - len(running), changed=len(scans) - len(running) - len(failed))
        if running:
            await trio.sleep(POLL_SECONDS)
    return failed, offline


async def _stop(refs: dict[str, ActorRef], started: list[str]) -> None:
    for library_id in started:
        try:
            await refs[library_id].ask(StopScan(), timeout=STOP_TIMEOUT_SECONDS)
        except (errors.DomainError, ActorError):
            pass  # it ended meanwhile
