"""Scan runs: recorded from running to a final state; none survives a restart running."""

from __future__ import annotations

import pytest
import trio

from reelhouse.storage import IntegrityError
from reelhouse.storage.scans import (
    SERVER_STOPPED_MESSAGE,
    fail_running_scans,
    get_scan_run,
    insert_scan_run,
    latest_scan_run,
    update_scan_run,
)

LIMIT_S = 20


async def _library(store, library_id: str) -> None:
    await store.execute(
        "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        (library_id, library_id, "movies", 1, 1),
    )


async def test_a_run_goes_from_running_to_completed(store) -> None:
    with trio.fail_after(LIMIT_S):
        await _library(store, "l1")
        run = await insert_scan_run(store, "l1", "quick", started_at_ms=5)
        assert (run.state, run.started_at_ms, run.finished_at_ms) == ("running", 5, None)
        assert await update_scan_run(store, run.id, state="completed", counts={"added": 3}, finished_at_ms=9)
        done = await get_scan_run(store, run.id)
        assert done is not None
        assert (done.state, done.counts, done.finished_at_ms) == ("completed", {"added": 3}, 9)
        assert await latest_scan_run(store, "l1") == done
        assert not await update_scan_run(store, run.id + 100, state="failed")


async def test_a_run_needs_an_existing_library(store) -> None:
    with trio.fail_after(LIMIT_S), pytest.raises(IntegrityError):
        await insert_scan_run(store, "missing", "full")


async def test_runs_left_unfinished_fail_at_start_up(store) -> None:
    with trio.fail_after(LIMIT_S):
        await _library(store, "l1")
        await _library(store, "l2")
        running = await insert_scan_run(store, "l1", "quick")
        cancelling = await insert_scan_run(store, "l2", "full")
        await update_scan_run(store, cancelling.id, state="cancelling")
        completed = await insert_scan_run(store, "l2", "quick")
        await update_scan_run(store, completed.id, state="completed")
        assert await fail_running_scans(store) == 2
        for run_id in (running.id, cancelling.id):
            failed = await get_scan_run(store, run_id)
            assert failed is not None and failed.state == "failed"
            assert failed.message == SERVER_STOPPED_MESSAGE and failed.finished_at_ms is not None
        still = await get_scan_run(store, completed.id)
        assert still is not None and still.state == "completed"
        assert await fail_running_scans(store) == 0
