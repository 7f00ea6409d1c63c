"""Stored jobs: rows survive, unfinished ones fail at start-up, retention drops old ones."""

from __future__ import annotations

from reelhouse.storage import Store
from reelhouse.storage._store import now_ms
from reelhouse.storage.jobs import (
    fail_unfinished_jobs,
    get_stored_job,
    list_stored_jobs,
    purge_finished_jobs,
    save_job,
)


def body(job_id: str, state: str, **extra: object) -> dict[str, object]:
    return {"id": job_id, "kind": "scan", "title": "Scan", "cancellable": state == "running", "state": state, **extra}


async def test_a_saved_job_is_listed_and_replaced_by_its_next_state(store: Store) -> None:
    now = now_ms()
    await save_job(store, body("scan:a", "running", phase="walk"), started_at_ms=now, finished_at_ms=None)
    await save_job(store, body("scan:a", "succeeded"), started_at_ms=now, finished_at_ms=now + 5)
    [job] = await list_stored_jobs(store, finished_since_ms=now - 1000)
    assert job["state"] == "succeeded" and "phase" not in job


async def test_jobs_finished_before_the_retention_are_not_listed_and_purged(store: Store) -> None:
    now = now_ms()
    await save_job(store, body("old", "succeeded"), started_at_ms=now - 10_000, finished_at_ms=now - 9_000)
    await save_job(store, body("new", "succeeded"), started_at_ms=now - 2_000, finished_at_ms=now - 1_000)
    await save_job(store, body("live", "running"), started_at_ms=now - 500, finished_at_ms=None)
    listed = await list_stored_jobs(store, finished_since_ms=now - 5_000)
    assert [job["id"] for job in listed] == ["live", "new"]
    assert await purge_finished_jobs(store, finished_before_ms=now - 5_000) == 1
    assert await get_stored_job(store, "old") is None


async def test_a_job_left_running_by_a_killed_process_becomes_failed(store: Store) -> None:
    now = now_ms()
    await save_job(store, body("scan:a", "running", phase="parse", etaSeconds=5), started_at_ms=now,
                   finished_at_ms=None)
    assert await fail_unfinished_jobs(store) == 1
    job = await get_stored_job(store, "scan:a")
    assert job is not None
    assert job["state"] == "failed" and job["cancellable"] is False and job["finishedAt"].endswith("Z")
    assert "phase" not in job and "etaSeconds" not in job and "stopped" in job["message"]
    assert await fail_unfinished_jobs(store) == 0
